/**
 * `npm run docs:serve`: a static server for the site on 127.0.0.1 that rebuilds when a
 * document, a tangled file or the docs' own assets change. Rebuilds are serialized and
 * coalesced: changes during a build cause exactly one more build. A change under `literate/` is
 * tangled in-process first, so the build sees the edited Markdown. When tangle or the build
 * fails, every page request answers with the error (a page that reloads itself until the
 * problem is fixed) instead of silently showing the previous site.
 */
import { createReadStream } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join } from "node:path";
import { watch } from "chokidar";
import { formatDiagnostic, LiterateError } from "../core/diagnostics.ts";
import { manifestPath } from "../core/paths.ts";
import { runTangle } from "../commands/tangle-run.ts";
import { buildDocs, docsMemory, type DocsOptions } from "./build.ts";
import { escapeHtml } from "./html.ts";
import { contentTypes, loopbackHost, requestPath, siteFile } from "./static.ts";

/** The page shown instead of the site while the last rebuild failed; it reloads every two seconds. */
export function errorPage(lines: readonly string[]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2"><title>docs: build failed</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem;color:#24292f}pre{background:#fff5f5;border:1px solid #cf222e;padding:1rem;white-space:pre-wrap;overflow-wrap:anywhere}</style></head>
<body><h1>The docs did not rebuild</h1><p>Fix the problem below and save: this page reloads itself and shows the site once a build succeeds.</p>
<pre class="build-error">${escapeHtml(lines.join("\n"))}</pre></body></html>`;
}

/**
 * Serves the static files of `site` on 127.0.0.1:`port` (0 picks a free port). While `failure()`
 * returns lines, pages (HTML and folders) are answered with `errorPage` of them, status 500.
 * Nothing may be kept by the browser (the site changes under it), except with `cacheAssets`:
 * then files other than pages may be kept for an hour, for a crawl of a site that does not change.
 */
export function serveStatic(site: string, port: number, failure: () => readonly string[] | undefined = () => undefined, options: { readonly cacheAssets?: boolean } = {}): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (!loopbackHost(request, response)) return;
    const path = requestPath(request.url, response);
    if (path === undefined) return;
    const failed = failure();
    if (failed !== undefined && (path.endsWith("/") || path.endsWith(".html"))) {
      response.writeHead(500, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(errorPage(failed));
      return;
    }
    const file = siteFile(site, path, response, `not found: ${path}`);
    if (file === undefined) return;
    const asset = options.cacheAssets === true && extname(file) !== ".html";
    response.writeHead(200, { "content-type": contentTypes[extname(file)] ?? "application/octet-stream", "cache-control": asset ? "max-age=3600" : "no-store" });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      const actual = typeof address === "object" && address !== null ? address.port : port;
      resolve({ server, url: `http://127.0.0.1:${actual}/` });
    });
  });
}

/** How long after its build an event on a file the server's tangle wrote is still taken as its own (ms). */
const ownWriteGrace = 1000;

/** A running `docs:serve`. */
export interface DocsServer {
  readonly url: string;
  /** Stops watching and serving. */
  readonly close: () => Promise<void>;
}

/** Builds, serves, and rebuilds on change until `close` is called. */
export async function serveDocs(options: DocsOptions & { readonly port: number }): Promise<DocsServer> {
  const out = options.out ?? join(options.root, "site");
  const log = options.progress ?? ((line: string) => process.stdout.write(`${line}\n`));
  // One project model and one TypeScript program for the server's life: a rebuild tangles once
  // (the server's tangle and the build read the same model) and re-parses only what changed.
  const memory = options.memory ?? docsMemory();
  let building = false;
  let again = false;
  let retangle = false;
  let failed: string[] | undefined;
  // The files the server's own tangle wrote: their watch events arrive during or just after the
  // build that follows and must not cause another. Each is ignored until shortly after that build
  // (a manual `npm run tangle` later still triggers a rebuild).
  const ownWrites = new Map<string, number>();
  const rebuild = async (tangleFirst = false): Promise<void> => {
    retangle ||= tangleFirst;
    if (building) {
      again = true;
      return;
    }
    building = true;
    try {
      do {
        again = false;
        const lines: string[] = [];
        try {
          if (retangle) {
            retangle = false;
            const tangled = runTangle({ root: options.root, ...(memory.project === undefined ? {} : { model: memory.project }) });
            for (const action of tangled.actions) ownWrites.set(join(options.root, action.path), Number.POSITIVE_INFINITY);
            ownWrites.set(join(options.root, manifestPath), Number.POSITIVE_INFINITY);
            log(`docs: tangled ${tangled.documents} documents (${tangled.actions.length} file(s) written)`);
          }
          const result = await buildDocs({ ...options, out, memory });
          for (const p of result.problems) lines.push(formatDiagnostic(p));
          failed = result.ok ? undefined : lines;
        } catch (caught) {
          if (caught instanceof LiterateError) for (const d of caught.diagnostics) lines.push(formatDiagnostic(d));
          else lines.push(`docs: rebuild failed: ${caught instanceof Error ? (caught.stack ?? caught.message) : String(caught)}`);
          failed = lines;
        }
        for (const line of lines) log(line);
        if (failed !== undefined) log("docs: the rebuild failed; pages show the error until it is fixed");
        const until = Date.now() + ownWriteGrace;
        for (const [path, expiry] of ownWrites) ownWrites.set(path, Math.min(expiry, until));
      } while (again);
    } finally {
      building = false;
    }
  };
  await rebuild();
  const { url, server } = await serveStatic(out, options.port, () => failed);
  log(`docs: serving ${out} at ${url} (Ctrl-C stops)`);
  const watched = ["literate", "generated", "coverage/coverage-final.json", "tools/lib/docs/assets"].map((p) => join(options.root, p));
  let timer: NodeJS.Timeout | undefined;
  const literateFolder = join(options.root, "literate");
  let literate = false;
  const watcher = watch(watched, { ignoreInitial: true });
  watcher.on("all", (_event, path) => {
    if (path.includes(".tmp-")) return;
    const own = ownWrites.get(path);
    if (own !== undefined) {
      if (own > Date.now()) return;
      ownWrites.delete(path);
    }
    literate ||= path.startsWith(literateFolder);
    clearTimeout(timer);
    timer = setTimeout(() => {
      log(`docs: ${path} changed; rebuilding`);
      void rebuild(literate);
      literate = false;
    }, 150);
  });
  await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  return {
    url,
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
