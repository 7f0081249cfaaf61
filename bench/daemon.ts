// Daemon benchmark (issue 4): requests per second for GET /health and POST /signal with the
// scripted demo backend, against an in-process daemon on 127.0.0.1, and the heap after 10k, 50k
// and 100k signals, which must stay flat. Run with `node --expose-gc --import tsx` for heap after GC.
// The 100k signals go through `converse`, the function POST /signal calls, without the HTTP round
// trip: on a loaded two-core machine HTTP alone runs at a few hundred requests per second, and
// the raw node:http baseline printed first says how much of the daemon's rate is the machine's.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureToken, startDaemon } from "../generated/daemon.ts";
import { createServer } from "node:http";
import { bootAgent, converse, shutdownAgent } from "../generated/main.ts";

const CONCURRENCY = 16;

/** Sends `total` requests with `CONCURRENCY` in flight, stopping early after `maxMs`; returns count and ms. */
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

function heapMb(): string {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  return `${(process.memoryUsage().heapUsed / 1024 / 1024).toFixed(1)} MB${gc === undefined ? " (no GC: run with --expose-gc)" : " after GC"}`;
}

export async function benchDaemon(print: (line: string) => void): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "pp-bench-daemon-"));
  const agent = await bootAgent({ env: { HOME: home, PROVIDER_CASCADE: "scripted", MEMORY_SAVE_ON_EXIT: "false" }, heartbeat: false });
  const { token } = ensureToken(agent.config.paths.tokenFile);
  const daemon = await startDaemon(agent, { port: 0, token, bodyLimitBytes: 65536, rateLimit: 0 });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const body = JSON.stringify({ type: "event", payload: { sensor: "user-input", text: "ping" } });
  const health = async (): Promise<void> => {
    const response = await fetch(`${daemon.url}/health`, { headers });
    if (response.status !== 200) throw new Error(`GET /health answered ${response.status}`);
    await response.arrayBuffer();
  };
  const signal = async (): Promise<void> => {
    const response = await fetch(`${daemon.url}/signal`, { method: "POST", headers, body });
    if (response.status !== 200) throw new Error(`POST /signal answered ${response.status}`);
    await response.arrayBuffer();
  };
  const raw = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"health":"healthy"}'));
  await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
  const rawUrl = `http://127.0.0.1:${(raw.address() as { port: number }).port}/health`;
  try {
    const base = await hammer(20_000, 5_000, async () => void (await (await fetch(rawUrl)).arrayBuffer()));
    print(`baseline: bare node:http server, same client: ${Math.round((base.done / base.ms) * 1000)} req/s`);
    raw.closeAllConnections();
    raw.close();
    await hammer(500, 5_000, health);
    const h = await hammer(20_000, 10_000, health);
    print(`daemon GET /health: ${Math.round((h.done / h.ms) * 1000)} req/s (${h.done} requests, ${CONCURRENCY} in flight)`);
    const s = await hammer(10_000, 10_000, signal);
    print(`daemon POST /signal (scripted backend): ${Math.round((s.done / s.ms) * 1000)} req/s (${s.done} requests, ${CONCURRENCY} in flight)`);
    print(`daemon heap at start: ${heapMb()}`);
    let processed = 0;
    const stimulus = JSON.parse(body) as unknown;
    const direct = async (): Promise<void> => {
      const exchange = await converse(agent, stimulus);
      if (!exchange.accepted || exchange.replies.length !== 1) throw new Error("a signal was not answered");
    };
    const started = performance.now();
    for (const mark of [10_000, 50_000, 100_000]) {
      const batch = await hammer(mark - processed, 600_000, direct);
      processed += batch.done;
      print(`daemon heap after ${processed} signals: ${heapMb()}`);
    }
    print(`daemon: ${processed} signals through converse (POST /signal's path) at ${Math.round((processed / (performance.now() - started)) * 1000)} signals/s`);
    print(`daemon memory nodes ${agent.h.memory.nodes.size}, log buffer ${agent.h.logs.buffer.recent().entries.length} lines, actuators ${agent.h.actuators.size}`);
  } finally {
    await daemon.close();
    await shutdownAgent(agent);
    rmSync(home, { recursive: true, force: true });
  }
}
