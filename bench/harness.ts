/**
 * The harness benchmark: how fast the loop turns, and whether rollback costs what the undo log
 * promises (proportional to the changes, not to the store).
 *
 * Measures in-process with performance.now():
 *
 * - signals per second through `processSignal` with an instant backend, a no-op actuator and
 *   five pass-through gates (each signal: perceive, think, parse, five gates twice — decide and
 *   the last-mile check — and dispatch);
 * - the median time to roll back a transaction of 10 changes in a store of 1 000 nodes and in
 *   one of 1 000 000 nodes, and their ratio, which should be near 1 (it sits a little above:
 *   the work is the same 20 map operations, but a million-entry map misses the CPU caches);
 * - for scale, what copying the 1 000 000-node store once costs, which the seed paid per signal.
 *
 * It reports; it does not gate. `bench/run.ts` wires it into `npm run bench`.
 */
import { createHarness, createSignal, defineSkill, ingest, lookupObject, openTransaction, processSignal, registerActuator, registerBackend, rollback, runInTransaction } from "../generated/index.ts";
import { createMemory, type MemoryHost } from "../generated/memory.ts";

/** The middle value of a list of samples (the mean of the two middle ones for an even count). */
function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Signals per second through the whole loop. */
async function signalsPerSecond(count: number): Promise<{ perSecond: number; microsPerSignal: number }> {
  const h = createHarness({ newId: (() => {
    let n = 0;
    return () => `id-${++n}`;
  })() });
  registerBackend(h, "instant", () => ({ text: '{"kind":"message","text":"ok"}' }));
  registerActuator(h, "cli", () => undefined);
  for (let i = 0; i < 5; i++) defineSkill(h, { name: `gate-${i}`, priority: i, gate: () => ({ verdict: "pass" }) });
  const signal = createSignal({ type: "event", payload: { sensor: "user-input", text: "ping" } });
  for (let i = 0; i < Math.min(500, count); i++) await processSignal(h, signal);
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const outcome = await processSignal(h, signal);
    if (outcome.status !== "done") throw new Error(`bench: a signal ended \`${outcome.status}\``);
  }
  const ms = performance.now() - started;
  return { perSecond: (count / ms) * 1000, microsPerSignal: (ms * 1000) / count };
}

/** Builds a flat store of `size` nodes and returns the median time of rolling back 10 changes. */
function rollbackMicros(size: number, rounds: number): { buildMs: number; medianMicros: number; snapshotMs: number } {
  const host: MemoryHost = { memory: createMemory() };
  const built = performance.now();
  for (let i = 0; i < size; i++) ingest(host, { id: `n${i}`, type: "note", content: `${i}` });
  const buildMs = performance.now() - built;
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const ids = Array.from({ length: 10 }, (_, j) => `n${((round * 10 + j) * 7919) % size}`);
    const before = ids.map((id) => lookupObject(host, id));
    const tx = openTransaction();
    runInTransaction(host, tx, () => {
      for (const id of ids) ingest(host, { id, type: "note", content: `changed in round ${round}` });
    });
    const started = performance.now();
    const report = rollback(host, tx);
    samples.push((performance.now() - started) * 1000);
    if (report.reverted !== 10 || ids.some((id, i) => lookupObject(host, id) !== before[i])) throw new Error("bench: rollback did not restore the store");
  }
  const copied = performance.now();
  const snapshot = new Map(host.memory.nodes);
  const snapshotMs = performance.now() - copied;
  if (snapshot.size !== size) throw new Error("bench: snapshot lost nodes");
  return { buildMs, medianMicros: medianOf(samples), snapshotMs };
}

/** Runs the harness benchmark, printing one line per measurement. */
export async function benchHarness(print: (line: string) => void): Promise<void> {
  print("harness:");
  const loop = await signalsPerSecond(5000);
  print(`  processSignal (instant backend, 5 gates): ${Math.round(loop.perSecond)} signals/s (${loop.microsPerSignal.toFixed(1)} µs per signal)`);
  const small = rollbackMicros(1_000, 2000);
  print(`  rollback of 10 changes, 1 000 nodes: ${small.medianMicros.toFixed(2)} µs median (store built in ${small.buildMs.toFixed(0)} ms)`);
  const large = rollbackMicros(1_000_000, 2000);
  print(`  rollback of 10 changes, 1 000 000 nodes: ${large.medianMicros.toFixed(2)} µs median (store built in ${large.buildMs.toFixed(0)} ms)`);
  print(`  rollback ratio 1 000 000 / 1 000 nodes: ${(large.medianMicros / small.medianMicros).toFixed(2)} (target: near 1)`);
  print(`  for scale: a shallow whole-store snapshot (the seed's approach, minus its deep copy) of 1 000 000 nodes: ${large.snapshotMs.toFixed(1)} ms`);
}
