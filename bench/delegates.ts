/**
 * Delegate-loop benchmark: spawn 10 000 handler-only loops in one registry on a fake clock, let
 * each run its first iteration, then shut them all down. Reports time per loop for spawning and
 * for shutting down (wall and CPU time), and retained heap per loop while they are all alive.
 *
 * Memory is heap used after spawning minus heap used before, each after a full collection.
 * `npm run bench` runs under tsx without `--expose-gc`, so when `global.gc` is missing the heap is
 * measured in a child process (`node --expose-gc --import tsx bench/delegates.ts --heap-child`),
 * which spawns the same loops on a fresh heap and prints the bytes per loop as JSON.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Registry } from "../generated/delegate-registry.ts";
import { scriptedRand, FakeClock } from "../test/helpers/fake-clock.ts";
import { collectGarbage, heapUsed } from "./toolchain.ts";

const loops = 10_000;

/** CPU time (user + system, all threads) of a `process.cpuUsage` delta, in ms: steadier than wall time on a busy machine. */
function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/** Spawns `loops` idle handler loops and returns the collected heap growth per loop, in bytes; needs `global.gc`. */
async function measureHeapPerLoop(): Promise<number> {
  const clock = new FakeClock(0);
  const registry = new Registry({ clock });
  const deps = { clock, rand: scriptedRand([]) };
  const handler = (): void => undefined;
  const before = heapUsed();
  for (let i = 0; i < loops; i++) registry.spawnLoop({ name: `bench-${i}`, handler, jitter: 0 }, deps);
  await clock.advance(0);
  const after = heapUsed();
  await registry.shutdownAll(clock.now() + 10_000);
  return (after - before) / loops;
}

/** The heap per loop from a child process with `--expose-gc`, or an explanation of why not. */
function heapPerLoopInChild(): { readonly bytes: number } | { readonly error: string } {
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), "--heap-child"], { encoding: "utf8", timeout: 120_000 });
  const line = child.stdout.trim().split("\n").at(-1) ?? "";
  try {
    const parsed = JSON.parse(line) as { bytesPerLoop?: unknown };
    if (typeof parsed.bytesPerLoop === "number") return { bytes: parsed.bytesPerLoop };
  } catch {
    // fall through to the error below
  }
  return { error: `child exited ${String(child.status)}: ${child.stderr.trim().split("\n").at(-1) ?? ""}` };
}

/** Runs the benchmark and prints one line per measurement. */
export async function benchDelegates(print: (line: string) => void): Promise<void> {
  const clock = new FakeClock(0);
  const registry = new Registry({ clock });
  // jitter 0: no draws, so an empty script is enough and the dice cost nothing.
  const deps = { clock, rand: scriptedRand([]) };
  let iterations = 0;
  const handler = (): void => {
    iterations++;
  };
  const hasGc = collectGarbage();
  const before = heapUsed();

  const spawnCpu = process.cpuUsage();
  const spawnStart = performance.now();
  for (let i = 0; i < loops; i++) registry.spawnLoop({ name: `bench-${i}`, handler, jitter: 0 }, deps);
  await clock.advance(0);
  const spawnMs = performance.now() - spawnStart;
  const spawnCpuMs = cpuMs(process.cpuUsage(spawnCpu));

  const after = heapUsed();
  if (registry.activeCount() !== loops || iterations !== loops) {
    throw new Error(`bench: expected ${loops} running loops and iterations, got ${registry.activeCount()} and ${iterations}`);
  }

  const shutdownCpu = process.cpuUsage();
  const shutdownStart = performance.now();
  const stopped = await registry.shutdownAll(clock.now() + 10_000);
  const shutdownMs = performance.now() - shutdownStart;
  const shutdownCpuMs = cpuMs(process.cpuUsage(shutdownCpu));
  if (stopped !== loops || clock.pending !== 0) throw new Error(`bench: stopped ${stopped} of ${loops}, ${clock.pending} timers left`);

  const perLoopUs = (ms: number): string => ((ms * 1000) / loops).toFixed(2);
  print(`delegates: ${loops} handler loops, fake clock`);
  print(`  spawn + first iteration: ${perLoopUs(spawnMs)} µs/loop wall, ${perLoopUs(spawnCpuMs)} µs/loop CPU (${spawnMs.toFixed(0)} ms total)`);
  print(`  shutdownAll:             ${perLoopUs(shutdownMs)} µs/loop wall, ${perLoopUs(shutdownCpuMs)} µs/loop CPU (${shutdownMs.toFixed(0)} ms total)`);
  if (hasGc) print(`  heap per live loop:      ${((after - before) / loops / 1024).toFixed(2)} KiB (collected, in this process)`);
  else {
    const child = heapPerLoopInChild();
    print(
      "bytes" in child
        ? `  heap per live loop:      ${(child.bytes / 1024).toFixed(2)} KiB (collected, child process with --expose-gc)`
        : `  heap per live loop:      ${((after - before) / loops / 1024).toFixed(2)} KiB uncollected (includes garbage; the --expose-gc child failed: ${child.error})`,
    );
  }
}

if (process.argv.includes("--heap-child")) {
  if (!collectGarbage()) throw new Error("bench: --heap-child needs node --expose-gc");
  void measureHeapPerLoop().then((bytesPerLoop) => console.log(JSON.stringify({ bytesPerLoop })));
}
