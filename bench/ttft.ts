// Time to first token (issue 22, item 1): how soon a person sees the start of a reply, streaming vs not.
//
// A local chat-completions server writes a reply of TOKENS pieces, one every DELAY_MS (the first after
// DELAY_MS too), as server-sent events when asked `stream: true`, or whole after TOKENS × DELAY_MS when not.
// Two agents are booted in this process against it: one whose provider streams, and one whose provider
// refused streaming once (a 400 to `stream: true`) and so asks for whole replies from then on, as the
// providers chapter remembers. Each asks the same question through `converse`, the function the chat and
// the daemon call, and the time from the question to the first `token` (streaming) or to the reply (not) is
// what a person waits before reading. The row's ratio is first token / whole reply, measured back to back.
//
// Run alone: `npx tsx bench/run.ts --only ttft` (or `npx tsx bench/ttft.ts`).
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const TOKENS = 20;
const DELAY_MS = 25;
const REPS = 7;

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** The server: streams when asked and allowed; `refuseStreaming` answers 400 to `stream: true`. */
async function delayedModel(refuseStreaming: boolean): Promise<{ readonly base: string; readonly server: Server }> {
  const words = Array.from({ length: TOKENS }, (_, i) => `w${i} `);
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (req.url === "/v1/models") return void res.end('{"data":[{"id":"tiny"}]}');
      const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
      if (stream && refuseStreaming) return void res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"stream is not supported"}}');
      const text = `{"kind":"message","text":"${words.join("")}"}`;
      if (!stream) return void setTimeout(() => res.end(JSON.stringify({ choices: [{ message: { content: text } }] })), TOKENS * DELAY_MS);
      res.writeHead(200, { "content-type": "text/event-stream" });
      const pieces = ['{"kind":"message","text":"', ...words, '"}'];
      let i = 0;
      const next = (): void => {
        const piece = pieces[i++];
        if (piece === undefined) return void res.end("data: [DONE]\n\n");
        res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
        setTimeout(next, piece.startsWith("w") || i === 1 ? DELAY_MS : 0);
      };
      setTimeout(next, 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

export async function benchTtft(print: (line: string) => void): Promise<void> {
  const { bootAgent, shutdownAgent } = await import("../generated/boot.ts");
  const { converse } = await import("../generated/main.ts");
  const homes: string[] = [];
  const servers: Server[] = [];
  const agentFor = async (refuseStreaming: boolean) => {
    const model = await delayedModel(refuseStreaming);
    servers.push(model.server);
    const home = mkdtempSync(join(tmpdir(), "pp-bench-ttft-"));
    homes.push(home);
    return bootAgent({ env: { HOME: home, PROVIDER_CASCADE: "box", BOX_BASE_URL: model.base, BOX_MODEL: "tiny", MEMORY_SAVE_ON_EXIT: "false" }, heartbeat: false });
  };
  const streaming = await agentFor(false);
  const whole = await agentFor(true);
  /** Asks once; returns ms to the first token (or to the reply when none came) and to the reply. */
  const ask = async (agent: Awaited<ReturnType<typeof agentFor>>): Promise<{ readonly first: number; readonly reply: number }> => {
    const started = performance.now();
    let first: number | undefined;
    let reply: number | undefined;
    await converse(agent, { type: "event", payload: { sensor: "user-input", text: "talk" } }, () => (reply ??= performance.now() - started), { onToken: () => void (first ??= performance.now() - started) });
    const done = reply ?? performance.now() - started;
    return { first: first ?? done, reply: done };
  };
  await ask(streaming);
  await ask(whole); // the refusal, remembered: every later question asks for whole replies
  const firsts: number[] = [];
  const streamedReplies: number[] = [];
  const wholes: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const s = await ask(streaming);
    firsts.push(s.first);
    streamedReplies.push(s.reply);
    wholes.push((await ask(whole)).first);
  }
  const ratio = median(firsts) / median(wholes);
  print(`ttft: a reply of ${TOKENS} pieces, one every ${DELAY_MS} ms, through converse (median of ${REPS}):`);
  print(`  streaming, first token: ${median(firsts).toFixed(1)} ms; the whole reply: ${median(streamedReplies).toFixed(1)} ms`);
  print(`  not streaming (the provider refused it), first text seen = the whole reply: ${median(wholes).toFixed(1)} ms`);
  print(`  time to first token, streaming vs not: ${ratio.toFixed(3)} (target < 0.25: ${ratio < 0.25 ? "met" : "MISSED"})`);
  await shutdownAgent(streaming);
  await shutdownAgent(whole);
  for (const server of servers) (server.closeAllConnections(), server.close());
  for (const home of homes) rmSync(home, { recursive: true, force: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchTtft((line) => process.stdout.write(`${line}\n`));
