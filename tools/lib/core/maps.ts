/** Lists kept in a map by key, as many modules group what they find (per block, per file, per line). */

/** Appends `value` to the list `map` holds at `key`, starting the list when there is none. */
export function pushAt<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
