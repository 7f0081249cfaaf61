/**
 * `npm run dev`: one long-lived process for authors. On every save of a `literate/*.md` file it
 * tangles, type-checks, runs the tests of the changed blocks with coverage, prints a verdict per
 * changed block at its Markdown line, stamps what the run proved, and (unless `--no-docs`)
 * serves the docs site, updating the changed chapter's page in open browsers.
 * A thin CLI over `tools/lib/dev-session.ts` and `tools/lib/docs/dev-serve.ts`.
 */
import { join, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { watch } from "chokidar";
import { runCli } from "./lib/cli.ts";
import { DevSession } from "./lib/dev-session.ts";
import type { DevDocs } from "./lib/docs/dev-serve.ts";

const usage = `usage: dev [--root DIR] [--port N] [--no-docs] [--no-mutate] [--compiler native|javascript]

  --root       the project root (default: the current folder)
  --port       the port the docs are served on (default: 4173; 0 picks a free one)
  --no-docs    do not build or serve the docs site
  --no-mutate  do not run the changed blocks' mutants after their verdicts
  --compiler   type-check with the native compiler (default) or the JavaScript API`;

await runCli("dev", async () => {
  const { values } = parseArgs({
    options: {
      root: { type: "string", default: process.cwd() },
      port: { type: "string", default: "4173" },
      "no-docs": { type: "boolean", default: false },
      "no-mutate": { type: "boolean", default: false },
      compiler: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const compiler = values.compiler;
  if (compiler !== undefined && compiler !== "native" && compiler !== "javascript") {
    process.stderr.write(`dev: --compiler must be \`native\` or \`javascript\`, not \`${compiler}\`\n`);
    return 1;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`dev: --port must be a port number, not \`${values.port}\`\n`);
    return 1;
  }
  const root = resolve(values.root);
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
  let docs: DevDocs | undefined;
  const session = new DevSession({ root, log, mutate: !values["no-mutate"], onLateReport: (report) => docs?.update(report),
    // The docs worker computes the new cross-references while the cycle judges the save.
    onRead: (documents) => docs?.prepare(documents), ...(compiler === undefined ? {} : { compiler }) });
  try {
    docs = values["no-docs"] ? undefined : await (await import("./lib/docs/dev-serve.ts")).startDevDocs({ root, port, log });
  } catch (caught) {
    if ((caught as NodeJS.ErrnoException).code !== "EADDRINUSE") throw caught;
    process.stderr.write(`dev: port ${port} is in use (by \`npm run docs:serve\`, or another \`npm run dev\`?)\n  hint: pick another with \`--port N\` (0 takes a free one), or leave the docs out with \`--no-docs\`\n`);
    return 1;
  }

  let running = false;
  // The documents saved since the last cycle began: the next cycle reads these alone.
  let saved = new Set<string>();
  let first = true;
  const cycle = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      while (first || saved.size > 0) {
        const paths = first ? undefined : [...saved].sort();
        first = false;
        saved = new Set();
        try {
          const report = await session.cycle(paths);
          docs?.update(report);
        } catch (caught) {
          // A bug in a cycle is reported, and the next save tries again: the author's loop stays up.
          log(`dev: internal error (this is a bug, please report it):\n${caught instanceof Error ? (caught.stack ?? caught.message) : String(caught)}`);
        }
      }
    } finally {
      running = false;
    }
  };
  await cycle();
  const watcher = watch(join(root, "literate"), { ignoreInitial: true });
  let timer: NodeJS.Timeout | undefined;
  watcher.on("all", (_event, path) => {
    if (!path.endsWith(".md")) return;
    saved.add(relative(root, path).split(sep).join("/"));
    clearTimeout(timer);
    timer = setTimeout(() => {
      void cycle();
    }, 100);
  });
  await new Promise<void>((done) => watcher.once("ready", () => done()));
  log(`dev: watching ${join(root, "literate")}${docs === undefined ? "" : `; docs at ${docs.url}`} (Ctrl-C stops)`);
  return await new Promise<number>((done) => {
    const stop = (): void => {
      clearTimeout(timer);
      void (async () => {
        await watcher.close();
        await docs?.close();
        await session.close();
        done(0);
      })();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
});
