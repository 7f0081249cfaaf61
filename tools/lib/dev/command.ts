/**
 * The body of `npm run dev` (`tools/dev.ts`): one long-lived process for authors. On every save of a `literate/*.md` file it
 * tangles, type-checks, runs the tests of the changed blocks with coverage, prints a verdict per
 * changed block at its Markdown line, stamps what the run proved, and (unless `--no-docs`)
 * serves the docs site, updating the changed chapter's page in open browsers. With `--stitch`, a
 * save of a tangled file (`generated/*.ts`, a tangled test) is taken back into the Markdown
 * (`npm run stitch`), whose save then starts a cycle as any other. With `--docs-only`
 * (`npm run docs:serve`) it only keeps the docs site current: no test runs, no stamp is written.
 */
import { join, relative, resolve, sep } from "node:path";
import { watch } from "chokidar";
import { parseCommandLine, userProblems } from "../commands/cli.ts";
import { formatDiagnostic, sortDiagnostics } from "../core/diagnostics.ts";
import { DevSession } from "./session.ts";
import type { DevDocs } from "./site.ts";
import { editedTargets, runStitch } from "../commands/stitch-run.ts";
import { readManifest } from "../commands/tangle-run.ts";

const usage = `usage: dev [--root DIR] [--port N] [--no-docs | --docs-only] [--no-mutate] [--stitch] [--compiler native|javascript]

  --root       the project root (default: the current folder)
  --port       the port the docs are served on (default: 4173; 0 picks a free one)
  --no-docs    do not build or serve the docs site
  --docs-only  only serve the docs site, rebuilt on every save (\`npm run docs:serve\`): no tests, no stamps, no mutants
  --no-mutate  do not run the changed blocks' mutants after their verdicts
  --stitch     take a save of a tangled file (generated/, tangled tests) back into the Markdown
  --compiler   type-check with the native compiler (default) or the JavaScript API`;

/** How long after a cycle dev looks for saves of the documents it stamped that no watcher event reported (see `DevSession.unseenSaves`). */
const unseenSaveCheckMs = 300;

/**
 * Logs what a step threw: a user's or the environment's problem (a full disk, no permission) at
 * its place, and returns true; anything else as a bug (`where` names the step), and returns false.
 */
function logProblems(log: (line: string) => void, caught: unknown, where: string): boolean {
  const problems = userProblems(caught);
  if (problems === undefined) {
    log(`dev: internal error${where} (this is a bug, please report it):\n${caught instanceof Error ? (caught.stack ?? caught.message) : String(caught)}`);
    return false;
  }
  for (const d of sortDiagnostics(problems)) log(formatDiagnostic(d));
  return true;
}

/** `dev ARGS`: runs until Ctrl-C (or SIGTERM), then the exit code; its output goes to this process's streams. */
export async function devCommand(args: readonly string[]): Promise<number> {
  const values = parseCommandLine(
    args,
    {
      root: { type: "string", default: process.cwd() },
      port: { type: "string", default: "4173" },
      "no-docs": { type: "boolean", default: false },
      "docs-only": { type: "boolean", default: false },
      "no-mutate": { type: "boolean", default: false },
      stitch: { type: "boolean", default: false },
      compiler: { type: "string" },
    },
    usage,
    process.stdout,
  );
  if (values === undefined) return 0;
  const compiler = values.compiler;
  if (compiler !== undefined && compiler !== "native" && compiler !== "javascript") {
    process.stderr.write(`dev: --compiler must be \`native\` or \`javascript\`, not \`${compiler}\`\n`);
    return 1;
  }
  if (values["no-docs"] && values["docs-only"]) {
    process.stderr.write("dev: --no-docs and --docs-only leave nothing to do\n  hint: pick one of them\n");
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
  const session = new DevSession({ root, log, mutate: !values["no-mutate"], docsOnly: values["docs-only"], onLateReport: (report) => docs?.update(report),
    // The docs worker computes the new cross-references while the cycle judges the save.
    onRead: (documents) => docs?.prepare(documents), beforeMutation: async () => await docs?.idle(), ...(compiler === undefined ? {} : { compiler }) });
  try {
    docs = values["no-docs"] ? undefined : await (await import("./site.ts")).startDevDocs({ root, port, log });
  } catch (caught) {
    if ((caught as NodeJS.ErrnoException).code !== "EADDRINUSE") throw caught;
    process.stderr.write(`dev: port ${port} is in use (by another \`npm run dev\` or \`npm run docs:serve\`?)\n  hint: pick another with \`--port N\` (0 takes a free one), or leave the docs out with \`--no-docs\`\n`);
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
          // A failed cycle is reported, and the next save tries again: the author's loop stays up.
          if (logProblems(log, caught, "")) log("dev: this save could not be judged (the problem above); the next save is judged again");
        }
      }
    } finally {
      running = false;
    }
    // A save right after dev's own stamp write may reach no watcher event: once the events have
    // settled, a stamped document that changed since is taken as saved.
    clearTimeout(settled);
    settled = setTimeout(() => {
      for (const path of session.unseenSaves()) saved.add(path);
      if (saved.size > 0) void cycle();
    }, unseenSaveCheckMs);
  };
  let settled: NodeJS.Timeout | undefined;
  await cycle();
  const watcher = watch(join(root, "literate"), { ignoreInitial: true });
  let timer: NodeJS.Timeout | undefined;
  watcher.on("all", (_event, path) => {
    if (!path.endsWith(".md")) return;
    const document = relative(root, path).split(sep).join("/");
    saved.add(document);
    // A newer save stops the tests of the older one, which it makes moot, and which may never end.
    if (running) session.stopTestsFor(document);
    clearTimeout(timer);
    timer = setTimeout(() => void cycle(), 40);
  });
  await new Promise<void>((done) => watcher.once("ready", () => done()));
  const stitcher = values.stitch ? await watchTargets(root, log, () => running) : undefined;
  log(`dev: watching ${join(root, "literate")}${stitcher === undefined ? "" : " (and the tangled files, to stitch)"}${docs === undefined ? "" : `; docs at ${docs.url}`} (Ctrl-C stops)`);
  return await new Promise<number>((done) => {
    const stop = (): void => {
      clearTimeout(timer);
      clearTimeout(settled);
      void (async () => {
        await watcher.close();
        await stitcher?.close();
        await docs?.close();
        await session.close();
        done(0);
      })();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

/**
 * `--stitch`: watches the folders of the tangled files tangle's manifest lists, and when one of
 * them is saved with a text other than the one tangle wrote (dev's own tangles write the recorded
 * text, and are passed over), runs `npm run stitch`'s run in this process once no cycle is
 * running. Its Markdown writes then start a cycle through the documents' watcher.
 */
async function watchTargets(root: string, log: (line: string) => void, cycling: () => boolean): Promise<{ close(): Promise<void> }> {
  let files: Readonly<Record<string, string>> = {};
  try {
    files = readManifest(root)?.files ?? {};
  } catch {
    // No manifest to read: the first tangle writes it.
  }
  const folders = [...new Set(Object.keys(files).map((path) => path.split("/")[0] ?? path))].filter((folder) => !folder.includes("."));
  const watcher = watch(folders.map((folder) => join(root, folder)), { ignoreInitial: true });
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const run = (): void => {
    if (cycling()) {
      timer = setTimeout(run, 200);
      return;
    }
    const paths = [...pending].sort();
    pending = new Set();
    if (editedTargets(root, paths).length === 0) return;
    try {
      const report = runStitch({ root });
      log(
        report.documents.length === 0
          ? `dev: ${report.edited.join(", ")} differed from what tangle wrote only in tangle's own lines, which were written back`
          : `dev: stitched ${report.edits.length} edit(s) from ${report.edited.join(", ")} into ${report.documents.join(", ")}`,
      );
    } catch (caught) {
      if (logProblems(log, caught, " in stitch")) log("dev: stitch refused the edit(s) above; nothing was written");
    }
  };
  watcher.on("all", (_event, path) => {
    pending.add(relative(root, path).split(sep).join("/"));
    clearTimeout(timer);
    timer = setTimeout(run, 100);
  });
  await new Promise<void>((done) => watcher.once("ready", () => done()));
  return {
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
