/**
 * `npm run lsp`: the book's language server, speaking the Language Server Protocol over stdin and
 * stdout, for an editor to start. A thin CLI over `tools/lib/lsp/server.ts`; see the README,
 * "Editing with the language server".
 */
import { setFlagsFromString } from "node:v8";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { createConnection } from "vscode-languageserver/node";
import { serveJudge, type JudgeReply, type JudgeRequest, type WorkerChannel } from "./lib/lsp/judge-worker.ts";
import { startServer } from "./lib/lsp/server.ts";
import { parseCommandLine } from "./lib/commands/cli.ts";

const usage = `usage: lsp [--root DIR] [--stdio]

  --root   the project root (default: the editor's workspace folder, or the current folder)
  --stdio  speak over stdin and stdout (the only transport; editors pass it)`;

/**
 * This very file, compiled: the judge's worker runs it too. Written as `import.meta["url"]`
 * because the build replaces `import.meta.url` with the URL of the TypeScript source.
 */
const self = new URL(import.meta["url"]);

/** Starts the judge's worker (this file again, in a worker thread) for the project at `root`. */
function startJudge(root: string): WorkerChannel<JudgeReply, JudgeRequest> {
  const worker = new Worker(self, { workerData: { role: "judge", root }, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
  worker.on("error", (caught) => process.stderr.write(`lsp: the judge's worker failed: ${caught.stack ?? caught.message}\n`));
  return worker;
}

// An editor keeps the server for hours beside everything else: a young generation of 2 MB
// semi-spaces (8 MB in the judge's worker) costs the requests little and saves ~70 MB. And the
// old generation grows only 10% past what the last full collection kept before the next one
// (V8's own factor, up to 4, let it reach twice the live size: each edit leaves the whole type
// checker of the last program behind as garbage): ~150 MB less at the peak, the latencies unchanged.
setFlagsFromString("--max-semi-space-size=2");
setFlagsFromString("--heap-growing-percent=10");
if (!isMainThread && parentPort !== null) {
  serveJudge(parentPort, (workerData as { root: string }).root);
} else {
  const values = parseCommandLine(process.argv.slice(2), { root: { type: "string" }, stdio: { type: "boolean", default: false } }, usage, process.stdout);
  if (values === undefined) process.exit(0);
  // stdout is the protocol's: anything else printed there would corrupt it.
  const connection = createConnection(process.stdin, process.stdout);
  startServer(connection, { ...(values.root === undefined ? {} : { root: values.root }), startJudge });
}
