// The server's side of the judge's worker (`BackgroundJudge`) with real worker threads that stop
// as a worker out of memory does: it starts another, asks it again, and gives up after a few.
// And when the server starts its worker: after the first diagnostics (the server in this process,
// over a pair of streams, with a real protocol client).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { createConnection } from "vscode-languageserver/node";
import { createProtocolConnection, StreamMessageReader, StreamMessageWriter } from "vscode-languageserver-protocol/node";
import { BackgroundJudge, type JudgeReply, type JudgeRequest, type WorkerChannel } from "../../tools/lib/lsp/judge-worker.ts";
import { startServer } from "../../tools/lib/lsp/server.ts";
import { chapters, fixtureBook } from "./lsp-fixture.ts";

/** A worker thread that stops with exit code 3 on its first request. */
const stopping = `require("node:worker_threads").parentPort.on("message", () => process.exit(3));`;

/** A worker thread that answers each request with what it was sent. */
const answering = `const { parentPort } = require("node:worker_threads");
parentPort.on("message", (r) => parentPort.postMessage({ id: r.id, notes: ["answered", "texts " + r.texts.map((t) => t.path).join(","), "reload " + r.reloadEvidence] }));`;

const checked = { compiler: "javascript" as const, diagnostics: [], milliseconds: 0 };
const started: Worker[] = [];

/** Starts the workers of `scripts` in turn, the last one again for every later start. */
function starter(scripts: readonly string[]): { start: () => WorkerChannel<JudgeReply, JudgeRequest>; count: () => number } {
  let count = 0;
  return {
    start: () => {
      const worker = new Worker(scripts[Math.min(count, scripts.length - 1)] ?? answering, { eval: true });
      count++;
      started.push(worker);
      return worker;
    },
    count: () => count,
  };
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((worker) => worker.terminate()));
});

describe("the judge's worker, seen from the server", () => {
  it("is started again when it stops, and the new one is asked what the stopped one was judging, with every text and the evidence to read", async () => {
    const { start, count } = starter([stopping, answering]);
    const log: string[] = [];
    const judge = new BackgroundJudge(start, (line) => log.push(line));
    const reply = await new Promise<JudgeReply>((done) => judge.ask(new Map([["literate/a.md", "A"], ["literate/b.md", "B"]]), checked, done));
    expect(reply.notes).toEqual(["answered", "texts literate/a.md,literate/b.md", "reload true"]);
    expect(count()).toBe(2);
    expect(log).toEqual(["the judge's worker stopped (exit code 3); starting it again"]);
    // The new worker holds the texts now: the next ask sends only what changed.
    const next = await new Promise<JudgeReply>((done) => judge.ask(new Map([["literate/a.md", "A"], ["literate/b.md", "B2"]]), checked, done));
    expect(next.notes).toEqual(["answered", "texts literate/b.md", "reload false"]);
  });

  it("is started again at most as many times as it is allowed, and then says that the verdicts are the type errors only", async () => {
    const { start, count } = starter([stopping]);
    const log: string[] = [];
    const judge = new BackgroundJudge(start, (line) => log.push(line), 2);
    const answered: JudgeReply[] = [];
    judge.ask(new Map([["literate/a.md", "A"]]), checked, (reply) => answered.push(reply));
    await expect.poll(() => log.length, { timeout: 10_000 }).toBe(3);
    expect(log.slice(0, 2)).toEqual(["the judge's worker stopped (exit code 3); starting it again", "the judge's worker stopped (exit code 3); starting it again"]);
    expect(log[2]).toMatch(/^the judge's worker stopped \(exit code 3\) and is not started again: the verdicts are the type errors/);
    expect(count()).toBe(3);
    expect(answered).toEqual([]);
  });
});

describe("the server's start-up", () => {
  it("starts the judge's worker only once the first diagnostics of the opened chapter are sent", async () => {
    const root = fixtureBook();
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const connection = createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
    const client = createProtocolConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
    const events: string[] = [];
    const sendDiagnostics = connection.sendDiagnostics.bind(connection);
    connection.sendDiagnostics = async (params) => {
      events.push(`diagnostics ${params.uri.slice(params.uri.lastIndexOf("/") + 1)}`);
      return sendDiagnostics(params);
    };
    const { start } = starter([answering]);
    const judged = new Promise<void>((done) =>
      startServer(connection, {
        root,
        log: (line) => {
          if (line.startsWith("lsp: the judge's verdict published")) done();
        },
        startJudge: () => {
          events.push("worker started");
          return start();
        },
      }),
    );
    client.listen();
    try {
      await client.sendRequest("initialize", { processId: null, rootUri: null, capabilities: {}, workspaceFolders: null });
      await client.sendNotification("initialized", {});
      expect(events).toEqual([]);
      await client.sendNotification("textDocument/didOpen", { textDocument: { uri: pathToFileURL(join(root, "literate/report.md")).href, languageId: "markdown", version: 1, text: chapters["literate/report.md"] } });
      await judged;
      expect(events.slice(0, 2)).toEqual(["diagnostics report.md", "worker started"]);
      expect(events.filter((e) => e === "worker started")).toHaveLength(1);
    } finally {
      client.dispose();
      connection.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
