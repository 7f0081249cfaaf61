/**
 * The harness benchmark: how fast the loop turns, and whether rollback costs what the undo log
 * promises (proportional to the changes, not to the store).
 *
 * Measures in-process with performance.now():
 *
 * - signals per second through `processSignal` with an instant backend, a no-op actuator and
 *   five pass-through gates (each signal: perceive, think, parse, five gates twice — decide and
 *   the last-mile check — and dispatch);
 * - the time to roll back a transaction of 10 changes in a store of 1 000 nodes and in one of
 *   1 000 000 nodes, and their ratio, timed over batches of 1 000 transactions (a single rollback
 *   takes about a microsecond, too close to the clock's own cost to time one at a time). It is
 *   measured three ways: the same 10 nodes each time (the undo log's own cost, ratio near 1),
 *   10 nodes spread over the store (adds the cache misses of a million-entry Map), and bare
 *   Map.get + Map.set on those spread nodes, the floor any store pays: spread rollback over bare
 *   Map work is the same for both sizes, so the extra cost is the Map's, not the undo log's;
 * - for scale, what copying the 1 000 000-node store once costs, which the seed paid per signal.
 *
 * It reports; it does not gate. `bench/run.ts` wires it into `npm run bench`.
 */
import { createHarness, createSignal, defineSkill, ingest, lookupObject, openTransaction, processSignal, registerActuator, registerBackend, rollback, runInTransaction } from "../generated/index.ts";
import { createMemory, type MemoryHost, type Transaction } from "../generated/memory.ts";
import { median } from "./toolchain.ts";

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

/**
 * Rollback timings for one store size, in microseconds per transaction of 10 changes.
 * Each figure is the median over 7 batches; each batch opens 1 000 transactions, then times rolling all of them back
 * (newest first, so overlapping transactions restore exactly) in one timed region, so timer resolution and the cost
 * of reading the clock vanish from the result.
 */
interface RollbackTimings {
  readonly buildMs: number;
  /** The same 10 nodes in every transaction: the undo log's own cost, with the nodes in cache. */
  readonly hotMicros: number;
  /** 10 different nodes spread over the store per transaction: adds the cache misses of a large Map. */
  readonly spreadMicros: number;
  /** The irreducible part of `spreadMicros`: a bare `Map.get` + `Map.set` on the same 10 spread nodes. */
  readonly bareMapMicros: number;
  /** The old measurement: one rollback per clock reading, median of 2 000. */
  readonly singleMicros: number;
  readonly snapshotMs: number;
}

/** Builds a flat store of `size` nodes and measures rolling back transactions of 10 changes in it (see `RollbackTimings`). */
function rollbackMicros(size: number): RollbackTimings {
  const host: MemoryHost = { memory: createMemory() };
  const built = performance.now();
  for (let i = 0; i < size; i++) ingest(host, { id: `n${i}`, type: "note", content: `${i}` });
  const buildMs = performance.now() - built;
  const nodeIds = (batch: number, tx: number, spread: boolean): string[] =>
    Array.from({ length: 10 }, (_, j) => `n${(((spread ? batch * 10_000 + tx * 10 : 0) + j) * 7919) % size}`);
  const timeBatch = (batch: number, spread: boolean, bare: boolean): number => {
    const txs: Transaction[] = [];
    const idLists: string[][] = [];
    const original = new Map<string, ReturnType<typeof lookupObject>>();
    for (let t = 0; t < 1000; t++) {
      const ids = nodeIds(batch, t, spread);
      for (const id of ids) if (!original.has(id)) original.set(id, lookupObject(host, id));
      const tx = openTransaction();
      runInTransaction(host, tx, () => {
        for (const id of ids) ingest(host, { id, type: "note", content: `changed in batch ${batch}, transaction ${t}` });
      });
      txs.push(tx);
      idLists.push(ids);
    }
    const nodes = host.memory.nodes;
    const started = performance.now();
    if (bare) {
      for (const ids of idLists) for (const id of ids) nodes.set(id, nodes.get(id) as NonNullable<ReturnType<typeof lookupObject>>);
    } else {
      for (let t = txs.length - 1; t >= 0; t--) rollback(host, txs[t] as Transaction);
    }
    const micros = ((performance.now() - started) * 1000) / txs.length;
    if (bare) for (let t = txs.length - 1; t >= 0; t--) rollback(host, txs[t] as Transaction);
    for (const [id, node] of original) if (lookupObject(host, id) !== node) throw new Error("bench: rollback did not restore the store");
    return micros;
  };
  const medianOfBatches = (spread: boolean, bare: boolean): number => median(Array.from({ length: 7 }, (_, b) => timeBatch(b, spread, bare)));
  const hotMicros = medianOfBatches(false, false);
  const spreadMicros = medianOfBatches(true, false);
  const bareMapMicros = medianOfBatches(true, true);
  const samples: number[] = [];
  for (let round = 0; round < 2000; round++) {
    const ids = Array.from({ length: 10 }, (_, j) => `n${((round * 10 + j) * 7919) % size}`);
    const tx = openTransaction();
    runInTransaction(host, tx, () => {
      for (const id of ids) ingest(host, { id, type: "note", content: `changed in round ${round}` });
    });
    const started = performance.now();
    rollback(host, tx);
    samples.push((performance.now() - started) * 1000);
  }
  const copied = performance.now();
  const snapshot = new Map(host.memory.nodes);
  const snapshotMs = performance.now() - copied;
  if (snapshot.size !== size) throw new Error("bench: snapshot lost nodes");
  return { buildMs, hotMicros, spreadMicros, bareMapMicros, singleMicros: median(samples), snapshotMs };
}

/** Runs the harness benchmark, printing one line per measurement. */
export async function benchHarness(print: (line: string) => void): Promise<void> {
  print("harness:");
  const loop = await signalsPerSecond(5000);
  print(`  processSignal (instant backend, 5 gates): ${Math.round(loop.perSecond)} signals/s (${loop.microsPerSignal.toFixed(1)} µs per signal)`);
  rollbackMicros(1_000); // warm-up: the first timings in a fresh process measure the JIT, not the code
  const small = rollbackMicros(1_000);
  const large = rollbackMicros(1_000_000);
  const row = (name: string, pick: (t: RollbackTimings) => number): void =>
    print(`  ${name}: 1 000 nodes ${pick(small).toFixed(2)} µs, 1 000 000 nodes ${pick(large).toFixed(2)} µs, ratio ${(pick(large) / pick(small)).toFixed(2)}`);
  print(`  rollback of 10 changes (median of 7 batches of 1 000 transactions; stores built in ${small.buildMs.toFixed(0)} ms and ${large.buildMs.toFixed(0)} ms):`);
  row("same 10 nodes each time (the undo log's own cost; target near 1)", (t) => t.hotMicros);
  row("10 nodes spread over the store", (t) => t.spreadMicros);
  row("bare Map.get + Map.set on those spread nodes (what any store pays)", (t) => t.bareMapMicros);
  print(`  spread rollback minus bare Map work (the undo log's share): 1 000 nodes ${(small.spreadMicros - small.bareMapMicros).toFixed(2)} µs, 1 000 000 nodes ${(large.spreadMicros - large.bareMapMicros).toFixed(2)} µs`);
  row("old measurement, one clock reading per rollback (median of 2 000)", (t) => t.singleMicros);
  print(`  for scale: a shallow whole-store snapshot (the seed's approach, minus its deep copy) of 1 000 000 nodes: ${large.snapshotMs.toFixed(1)} ms`);
}
