/**
 * The tracing benchmark: what the traces chapter's spans cost a signal.
 *
 * Two harnesses, alike but for the tracer, each with an instant backend, a no-op actuator and
 * five pass-through gates (as `bench/harness.ts`'s signals-per-second row): every signal opens a
 * `signal` span, a `chat` span and ten `gate` spans (five gates, each run at the decision and at
 * the last-mile check). The traced harness exports them with the real OpenTelemetry SDK over
 * OTLP/HTTP to a collector stand-in in another process (a bare `node:http` server that counts the
 * spans it receives), so the export's serialization and HTTP posts are paid as a user pays them,
 * and the collector's own work is not.
 *
 * Batches of signals alternate ABBA between tracing off and on; the row's ratio is the median of
 * the per-pair ratios. Both yield to the event loop every 20 signals, as a daemon's loop turns
 * between requests, so the exporter's posts are made (and timed) during the batch; after each batch
 * the loop settles untimed, so the spans of the last half second go out before the next batch
 * (uncounted: at most one export of 512 spans). It reports; it does not gate.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHarness, createSignal, defineSkill, processSignal, registerActuator, registerBackend } from "../generated/index.ts";
import type { Harness } from "../generated/harness.ts";
import { openTelemetryTracer, type Tracer } from "../generated/traces.ts";
import { median } from "./toolchain.ts";

/** What {@link measureTracing} measured: milliseconds per batch, off and on, their per-pair ratios, and the spans the collector received. */
export interface TracingSamples {
  readonly offMs: readonly number[];
  readonly onMs: readonly number[];
  readonly pairRatios: readonly number[];
  readonly signalsPerBatch: number;
  readonly spansReceived: number;
  readonly spansExpected: number;
}

/** A collector stand-in in a child process: counts the spans posted to /v1/traces; GET /count answers the count. */
const collectorScript = `
const http = require("node:http");
let spans = 0;
const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    if (req.method === "GET") return res.end(String(spans));
    spans += (body.match(/"spanId":/g) || []).length;
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
`;

/** Starts the collector stand-in and resolves to its base URL and the child. */
async function startCollector(): Promise<{ readonly url: string; readonly child: ChildProcess }> {
  const child = spawn(process.execPath, ["-e", collectorScript], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once("exit", (code) => reject(new Error(`bench: the collector stand-in exited with ${String(code)}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** A harness like the harness benchmark's, traced by `tracer` when given. */
function benchHarnessWith(tracer: Tracer | undefined): Harness {
  let n = 0;
  const h = createHarness({ newId: () => `id-${++n}`, ...(tracer === undefined ? {} : { tracer }) });
  registerBackend(h, "instant", () => ({ text: '{"kind":"message","text":"ok"}', inputTokens: 3, outputTokens: 1 }));
  registerActuator(h, "cli", () => undefined);
  for (let i = 0; i < 5; i++) defineSkill(h, { name: `gate-${i}`, priority: i, gate: () => ({ verdict: "pass" }) });
  return h;
}

/** Runs `count` signals through `h` and returns the milliseconds they took. */
async function batch(h: Harness, count: number): Promise<number> {
  const signal = createSignal({ type: "event", payload: { sensor: "user-input", text: "ping" } });
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const outcome = await processSignal(h, signal);
    if (outcome.status !== "done") throw new Error(`bench: a signal ended \`${outcome.status}\``);
    // A daemon's event loop turns between requests; so does this one, every 20 signals, so the exporter's posts go out during the batch, as they would.
    if (i % 20 === 19) await new Promise((resolve) => setImmediate(resolve));
  }
  const ms = performance.now() - started;
  // Settle untimed: what the exporter still holds goes out now, not during the next batch.
  await new Promise((resolve) => setTimeout(resolve, 700));
  return ms;
}

/** Measures `pairs` ABBA pairs of batches of `signals` signals, tracing off and on. */
export async function measureTracing(pairs: number, signals: number): Promise<TracingSamples> {
  const collector = await startCollector();
  try {
    const tracer = await openTelemetryTracer(`${collector.url}/v1/traces`, new Map([["instant", "none"]]));
    const off = benchHarnessWith(undefined);
    const on = benchHarnessWith(tracer);
    await batch(off, 500);
    await batch(on, 500);
    const offMs: number[] = [];
    const onMs: number[] = [];
    const pairRatios: number[] = [];
    for (let i = 0; i < pairs; i++) {
      const first = i % 2 === 0 ? off : on;
      const a = await batch(first, signals);
      const b = await batch(first === off ? on : off, signals);
      const [offTime, onTime] = first === off ? [a, b] : [b, a];
      offMs.push(offTime);
      onMs.push(onTime);
      pairRatios.push(onTime / offTime);
    }
    await tracer.shutdown();
    const spansReceived = Number(await (await fetch(`${collector.url}/count`)).text());
    return { offMs, onMs, pairRatios, signalsPerBatch: signals, spansReceived, spansExpected: (500 + pairs * signals) * 12 };
  } finally {
    collector.child.kill();
  }
}

/** Signals per second of a batch time. */
export function perSecond(samples: TracingSamples, ms: readonly number[]): number {
  return (samples.signalsPerBatch / median(ms)) * 1000;
}
