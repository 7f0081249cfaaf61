// Daemon benchmark (issue 4): requests per second for GET /health and POST /signal with the
// scripted demo backend, and the daemon's heap after 0, 10k, 50k and 100k signals, which must stay flat.
//
// The daemon runs in a child process of its own, started with --expose-gc, so its heap is its own:
// run inside `npm run bench` in-process, it used to share the heap with a million-node store built by
// an earlier benchmark ("heap at start 1028 MB … after 100000 signals 138 MB" measured the other
// benchmark's garbage, not the daemon). The child also serves a bare node:http baseline; the parent
// measures baseline and daemon with the same client, the same warm-up and the same duration, back to
// back and then the baseline again, so "the machine" and "the daemon" are told apart fairly.
// The 100k signals go through `converse`, the function POST /signal calls, inside the child, without
// the HTTP round trip, which on a loaded two-core machine would make the run take many minutes.
//
// Durability (issue: acknowledged memory writes lost on a crash): `buffer-update` signals, each writing one
// memory node, through `converse` on two agents in the same child, one journalling (every answer waits for its
// changes to be fdatasync'd, with group commit) and one with the journal off (`bootAgent({ journal: false })`,
// the behaviour before the journal), alternated twice, printed as signals/s and their ratio.
//
// Run alone: `npx tsx bench/daemon.ts`; only the durability rows: `npx tsx bench/daemon.ts --durability`.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { collectGarbage, heapUsed } from "./toolchain.ts";

const CONCURRENCY = 16;
const WARMUP_MS = 3_000;
const MEASURE_MS = 3_000;

/** Sends requests with `CONCURRENCY` in flight until `total` or `maxMs`; returns count and ms. */
async function hammer(total: number, maxMs: number, one: () => Promise<void>): Promise<{ readonly done: number; readonly ms: number }> {
  const started = performance.now();
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < total && performance.now() - started < maxMs) {
      next++;
      await one();
      done++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { done, ms: performance.now() - started };
}

// ---- the child: the daemon under test, plus the baseline server --------------------------------

async function child(): Promise<void> {
  if (!collectGarbage()) throw new Error("the daemon child must run with --expose-gc");
  const { ensureToken } = await import("../generated/daemon-door.ts");
  const { startDaemon } = await import("../generated/daemon.ts");
  const { bootAgent, shutdownAgent } = await import("../generated/boot.ts");
  const { converse } = await import("../generated/main.ts");
  const home = mkdtempSync(join(tmpdir(), "pp-bench-daemon-"));
  const agent = await bootAgent({ env: { HOME: home, PROVIDER_CASCADE: "scripted", MEMORY_SAVE_ON_EXIT: "false" }, heartbeat: false });
  const plainHome = mkdtempSync(join(tmpdir(), "pp-bench-nojournal-"));
  const plain = await bootAgent({ env: { HOME: plainHome, PROVIDER_CASCADE: "scripted", MEMORY_SAVE_ON_EXIT: "false" }, heartbeat: false, journal: false });
  await agent.state.checked;
  const { token } = ensureToken(agent.config.paths.tokenFile);
  const daemon = await startDaemon(agent, { port: 0, token, bodyLimitBytes: 65536, rateLimit: 0 });
  const raw = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"health":"healthy"}'));
  await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
  const reply = (value: object): void => void process.stdout.write(`${JSON.stringify(value)}\n`);
  reply({ daemon: daemon.url, raw: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`, token });
  const stimulus = { type: "event", payload: { sensor: "user-input", text: "ping" } };
  let processed = 0;
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, count] = line.split(" ");
    if (command === "signals") {
      const started = performance.now();
      const batch = await hammer(Number(count), 600_000, async () => {
        const exchange = await converse(agent, stimulus);
        if (!exchange.accepted || exchange.replies.length !== 1) throw new Error("a signal was not answered");
      });
      processed += batch.done;
      reply({ processed, heap: heapUsed(), perSecond: (batch.done / (performance.now() - started)) * 1000 });
    } else if (command === "durable") {
      // Alternate journal on and off, twice, so a change in the machine's load touches both alike.
      const rates = { on: [] as number[], off: [] as number[] };
      let n = 0;
      for (let round = 0; round < 2; round++) {
        for (const [key, target] of [["on", agent], ["off", plain]] as const) {
          const started = performance.now();
          const batch = await hammer(Number(count), 60_000, async () => {
            const exchange = await converse(target, { type: "event", payload: { sensor: "buffer-update", node: { id: `bench-${++n}`, type: "note", content: "x" } } });
            if (!exchange.accepted) throw new Error("a signal was refused");
          });
          rates[key].push((batch.done / (performance.now() - started)) * 1000);
        }
      }
      reply({ on: rates.on.reduce((a, b) => a + b, 0) / rates.on.length, off: rates.off.reduce((a, b) => a + b, 0) / rates.off.length });
    } else if (command === "heap") {
      reply({ processed, heap: heapUsed(), nodes: agent.h.memory.nodes.size, logLines: agent.h.logs.buffer.recent().entries.length, actuators: agent.h.actuators.size });
    } else break;
  }
  raw.close();
  raw.closeAllConnections();
  await daemon.close();
  await shutdownAgent(agent);
  await shutdownAgent(plain);
  rmSync(home, { recursive: true, force: true });
  rmSync(plainHome, { recursive: true, force: true });
}

// ---- the parent: the client -------------------------------------------------------------------

interface Child {
  ask(line: string): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

async function startChild(): Promise<{ readonly child: Child; readonly urls: { daemon: string; raw: string; token: string } }> {
  const proc = spawn(process.execPath, ["--expose-gc", "--import", import.meta.resolve("tsx"), fileURLToPath(import.meta.url), "--child"], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done === true) throw new Error("the daemon child exited");
    return line.value;
  };
  const urls = JSON.parse(await next()) as { daemon: string; raw: string; token: string };
  const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  return {
    urls,
    child: {
      async ask(line) {
        proc.stdin.write(`${line}\n`);
        return JSON.parse(await next()) as Record<string, number>;
      },
      async stop() {
        proc.stdin.end("quit\n");
        await exited;
      },
    },
  };
}

const mb = (bytes: number | undefined): string => `${((bytes ?? 0) / 1024 / 1024).toFixed(1)} MB`;

/** Prints signals/s of memory-writing signals with the journal on against the same run with it off. */
async function durabilityRows(daemonChild: Child, print: (line: string) => void): Promise<void> {
  const result = await daemonChild.ask("durable 3000");
  const on = result["on"] ?? 0;
  const off = result["off"] ?? 0;
  print(`daemon signals/s with durability on (buffer-update through converse, ${CONCURRENCY} in flight, each answer after its change is fdatasync'd to the journal): ${Math.round(on)} signals/s`);
  print(`daemon signals/s with durability off (same run, journal off, answers before anything is on disk): ${Math.round(off)} signals/s: with durability on, throughput is ${off > 0 ? (on / off).toFixed(2) : "?"}× that without it`);
}

/** Only the durability rows, for `npx tsx bench/daemon.ts --durability`. */
export async function benchDurability(print: (line: string) => void): Promise<void> {
  const { child: daemonChild } = await startChild();
  try {
    await durabilityRows(daemonChild, print);
  } finally {
    await daemonChild.stop();
  }
}

export async function benchDaemon(print: (line: string) => void): Promise<void> {
  const { child: daemonChild, urls } = await startChild();
  try {
    const headers = { authorization: `Bearer ${urls.token}`, "content-type": "application/json" };
    const body = JSON.stringify({ type: "event", payload: { sensor: "user-input", text: "ping" } });
    const get = (url: string, auth: boolean) => async (): Promise<void> => {
      const response = await fetch(url, auth ? { headers } : {});
      if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
      await response.arrayBuffer();
    };
    const post = async (): Promise<void> => {
      const response = await fetch(`${urls.daemon}/signal`, { method: "POST", headers, body });
      if (response.status !== 200) throw new Error(`POST /signal answered ${response.status}`);
      await response.arrayBuffer();
    };
    const rate = async (one: () => Promise<void>): Promise<number> => {
      const run = await hammer(1_000_000, MEASURE_MS, one);
      return Math.round((run.done / run.ms) * 1000);
    };
    const raw = get(`${urls.raw}/health`, false);
    const daemonHealth = get(`${urls.daemon}/health`, true);
    // Warm up the client, both servers and both paths before anything is measured: the first
    // seconds of fetch are JIT compilation, and measuring them made the baseline look slower.
    await hammer(1_000_000, WARMUP_MS, raw);
    await hammer(1_000_000, WARMUP_MS, daemonHealth);
    await hammer(1_000_000, WARMUP_MS, post);
    const rounds: { raw: number; health: number }[] = [];
    for (let i = 0; i < 2; i++) rounds.push({ raw: await rate(raw), health: await rate(daemonHealth) });
    const sum = (pick: (r: { raw: number; health: number }) => number): number => rounds.reduce((a, r) => a + pick(r), 0);
    print(`baseline: bare node:http server in the daemon's process, same client: ${rounds.map((r) => r.raw).join(", ")} req/s (${rounds.length} runs of ${MEASURE_MS / 1000} s, alternated with the daemon's)`);
    print(`daemon GET /health: ${rounds.map((r) => r.health).join(", ")} req/s (${CONCURRENCY} in flight) = ${Math.round((sum((r) => r.health) / sum((r) => r.raw)) * 100)}% of the baseline`);
    print(`daemon POST /signal (scripted backend): ${await rate(post)} req/s (${CONCURRENCY} in flight)`);
    await durabilityRows(daemonChild, print);
    const start = await daemonChild.ask("heap");
    print(`daemon heap after GC, own process (--expose-gc), after 0 signals through converse (the HTTP runs done): ${mb(start["heap"])}`);
    const marks: { processed: number; heap: number }[] = [];
    let done = 0;
    for (const mark of [10_000, 50_000, 100_000]) {
      const result = await daemonChild.ask(`signals ${mark - done}`);
      done = result["processed"] ?? mark;
      marks.push({ processed: done, heap: result["heap"] ?? 0 });
      print(`daemon heap after GC after ${done} signals through converse (${Math.round(result["perSecond"] ?? 0)} signals/s): ${mb(result["heap"])}`);
    }
    const first = marks[0];
    const last = marks.at(-1);
    if (first !== undefined && last !== undefined) {
      const per10k = ((last.heap - first.heap) / ((last.processed - first.processed) / 10_000)) / 1024;
      print(`daemon heap growth from 10k to 100k signals: ${per10k.toFixed(1)} KB per 10k signals — ${Math.abs(per10k) < 512 ? "flat" : "GROWING: a leak"}`);
    }
    const end = await daemonChild.ask("heap");
    print(`daemon state after the run: memory nodes ${end["nodes"]}, log buffer ${end["logLines"]} lines, actuators ${end["actuators"]}`);
  } finally {
    await daemonChild.stop();
  }
}

if (process.argv.includes("--child")) await child();
else if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await (process.argv.includes("--durability") ? benchDurability : benchDaemon)((line) => console.log(line));
