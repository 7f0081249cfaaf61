/** Values kept in a map by key, as many modules group what they find (per block, per file, per line). */

/** Appends `value` to the list `map` holds at `key`, starting the list when there is none. */
export function pushAt<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** The value `map` holds at `key`; when it holds none, `make()`'s, kept there first. */
export function valueAt<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const known = map.get(key);
  if (known !== undefined) return known;
  const made = make();
  map.set(key, made);
  return made;
}
