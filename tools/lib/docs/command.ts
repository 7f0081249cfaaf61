/**
 * The body of `npm run docs` (`tools/docs.ts`): builds the rendered site into `site/` (or
 * `--out DIR`); with `--worker`, builds on each request of `npm run dev`'s docs site
 * (`dev/site.ts`), over the IPC channel, keeping the previous build's program in memory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseCommandLine, runTool } from "../commands/cli.ts";
import type { VerifyReport } from "../commands/verify.ts";
import { formatDiagnostic } from "../core/diagnostics.ts";
import { buildDocs, docsMemory, prepareDocs, type DocsOptions } from "./build.ts";

const usage = `usage: docs [--out DIR] [--root DIR] [--verify-json FILE] [--api-entry PATH]... [--no-api] [--no-cache] [--edit-base URL] [--site-url URL] [--worker] [--warm]

  --out          the site folder (default: site)
  --root         the project root (default: the current folder)
  --verify-json  read verify's report from FILE (\`npm run verify -- --json > FILE\`) instead of verifying in-process
  --api-entry    an API entry point (repeatable; default: generated/index.ts, else every tangled generated/*.ts)
  --no-api       skip the API reference
  --no-cache     neither read nor write the content-hash caches under .cache/docs (a cold build)
  --edit-base    where "Edit this page" points: URL + the document's repository-relative path
                 (default: the copy of the Markdown in the site, at that same path)
  --site-url     the address the site is published at, for sitemap.xml's absolute URLs
  --worker       build on each request from the parent process (\`npm run dev\`), keeping the previous build's program in memory
  --warm         fill the caches under .cache/docs (cross-references, API reference, highlighted code, pages) for
                 the documents as they are, writing no site: \`npm test\` runs it beside its first test phase`;

/**
 * A request to the docs worker (`docs --worker`): build the site again (with every identifier
 * resolved again when `exact`, else only those of the changed files), or (`prepare`) only compute
 * what the next build will need, unanswered.
 */
export interface WorkerRequest {
  readonly id: number;
  readonly prepare?: boolean;
  readonly exact?: boolean;
  /** Every document's text (path, text), as the session holds it; absent: the last ones sent (or the disk, before any). */
  readonly documents?: readonly (readonly [string, string])[];
  /** The judge's report to show; absent: the last one sent. */
  readonly report?: VerifyReport;
}

/** The worker's answer: the build's exit code (0 built, 1 built with problems or not built for the user's reason, 2 a bug) and its output. */
export interface WorkerReply {
  readonly id: number;
  readonly code: number;
  readonly output: string;
  /** The site paths of the pages the build rendered anew. */
  readonly rendered?: readonly string[];
}

/** `docs ARGS`: the exit code, having written the build's report to this process's streams. */
export async function docsCommand(args: readonly string[]): Promise<number> {
  const flags = {
    out: { type: "string" },
    root: { type: "string", default: process.cwd() },
    "verify-json": { type: "string" },
    "api-entry": { type: "string", multiple: true },
    "no-api": { type: "boolean", default: false },
    "no-cache": { type: "boolean", default: false },
    "edit-base": { type: "string" },
    "site-url": { type: "string" },
    worker: { type: "boolean", default: false },
    warm: { type: "boolean", default: false },
  } as const;
  const values = parseCommandLine(args, flags, usage, process.stdout);
  if (values === undefined) return 0;
  const root = resolve(values.root);
  const options: DocsOptions = {
    root,
    out: resolve(values.out ?? join(root, "site")),
    progress: (line) => process.stdout.write(`${line}\n`),
    ...(values["verify-json"] === undefined ? {} : { verifyJson: resolve(values["verify-json"]) }),
    ...(values["api-entry"] === undefined ? {} : { apiEntryPoints: values["api-entry"] }),
    ...(values["no-api"] ? { api: false } : {}),
    ...(values["no-cache"] ? { cache: false } : {}),
    ...(values["edit-base"] === undefined ? {} : { editBase: values["edit-base"] }),
    ...(values["site-url"] === undefined ? {} : { siteUrl: values["site-url"] }),
  };
  if (values.warm) {
    const clashing = (["out", "verify-json", "worker", "no-cache"] as const).filter((flag) => values[flag] !== undefined && values[flag] !== false);
    if (clashing.length > 0) {
      process.stderr.write(`docs: --warm writes no site and reads no report, so it takes no ${clashing.map((flag) => `--${flag}`).join(", ")}\n  hint: run \`npm run docs\` for a site\n`);
      return 1;
    }
    return await warmCaches(options);
  }
  if (values.worker) {
    const send = process.send?.bind(process);
    if (send === undefined) {
      process.stderr.write("docs: --worker needs a parent process that talks to it over IPC (`npm run dev` starts it)\n");
      return 1;
    }
    return await serveBuilds(options, send);
  }
  return (await buildOnce(options, { stdout: process.stdout, stderr: process.stderr })).code;
}

/**
 * The report a warming build renders with: no block judged. Its pages are thrown away; what it
 * leaves is what does not depend on the report (cross-references, API reference, highlighted
 * code), which the build after verify's report then takes from the cache.
 */
const noReport: VerifyReport = { ok: false, blocks: [], documents: [], problems: [], typeCheck: { compiler: "none", milliseconds: 0 } };

/**
 * `--warm`: a build into a temporary folder, removed after, whose one line says how long it took.
 * `npm test` runs it beside its first phase, which leaves part of two cores idle, so that the
 * site its browser tests build once verify has reported (a cold build is about 30 s) finds the
 * slow steps done. A build that fails prints its problems and exits 1 as `npm run docs` would.
 */
async function warmCaches(options: DocsOptions): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), "docs-warm-"));
  try {
    const result = await buildDocs({ ...options, out, progress: () => {}, verifyReport: noReport });
    for (const p of result.problems) process.stderr.write(`${formatDiagnostic(p)}\n`);
    process.stdout.write(`docs: caches under .cache/docs warmed in ${Math.round(result.timings.total)} ms${result.ok ? "" : `, with ${result.problems.length} problem(s)`}\n`);
    return result.ok ? 0 : 1;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** One build, its problems and a summary line written to `streams`; code 0 when it passed, 1 with problems; the pages it rendered. */
async function buildOnce(options: DocsOptions, streams: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown } }): Promise<{ code: number; rendered: readonly string[] }> {
  const result = await buildDocs(options);
  for (const p of result.problems) streams.stderr.write(`${formatDiagnostic(p)}\n`);
  const t = result.timings;
  streams.stdout.write(
    `docs: ${result.ok ? "OK" : `FAIL: ${result.problems.length} problem(s)`}: ${result.pages} pages in ${Math.round(t.total)} ms (verify ${Math.round(t.verify)}, cross-references ${Math.round(t.xref)}, API ${Math.round(t.api)}, render ${Math.round(t.render)}, write ${Math.round(t.write)}; from cache: ${[...result.cached.steps, `${result.cached.pages} pages`, `${result.cached.highlightedFromCache}/${result.cached.highlighted} highlighted`].join(", ")})\n`,
  );
  return { code: result.ok ? 0 : 1, rendered: result.rendered };
}

/**
 * The worker: builds once per request from the parent, one at a time, with the same options and
 * one `DocsMemory` (`quick` cross-references unless the request asks for an `exact` build), and
 * answers each with the build's exit code, output and rendered pages; a `prepare` request
 * computes the cross-references of the documents on disk ahead of the build (its failure is left
 * for the build to report). Ends when the parent goes away.
 */
async function serveBuilds(options: DocsOptions, send: (reply: WorkerReply) => unknown): Promise<number> {
  const memory = docsMemory();
  let queue = Promise.resolve();
  // The documents and the report as the parent last sent them: the worker reads neither from disk.
  let documents: ReadonlyMap<string, string> | undefined;
  let report: VerifyReport | undefined;
  process.on("message", (request: WorkerRequest) => {
    if (request.documents !== undefined) documents = new Map(request.documents);
    if (request.report !== undefined) report = request.report;
    const given = { ...(documents === undefined ? {} : { documents }), ...(report === undefined ? {} : { verifyReport: report }) };
    queue = queue.then(async () => {
      if (request.prepare === true) {
        try {
          prepareDocs({ ...options, ...given, memory, quick: true });
        } catch {
          // The build that follows runs the same steps and reports what failed.
        }
        return;
      }
      let output = "";
      const sink = { fd: -1, write: (text: string): boolean => ((output += text), true) };
      let rendered: readonly string[] = [];
      const build = async (): Promise<number> => {
        const done = await buildOnce({ ...options, ...given, memory, quick: request.exact !== true, progress: (line) => sink.write(`${line}\n`) }, { stdout: sink, stderr: sink });
        rendered = done.rendered;
        return done.code;
      };
      const code = await runTool("docs", build, { stdout: sink, stderr: sink });
      send({ id: request.id, code, output, rendered });
    });
  });
  return await new Promise<number>((done) => process.once("disconnect", () => done(0)));
}
