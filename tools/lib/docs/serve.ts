/**
 * `npm run docs:serve`: a static server for the site on 127.0.0.1 that rebuilds when a
 * document, a tangled file or the docs' own assets change. Rebuilds are serialized and
 * coalesced: changes during a build cause exactly one more build. A failed rebuild keeps the
 * previous site and prints why.
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { watch } from "chokidar";
import { formatDiagnostic, LiterateError } from "../diagnostics.ts";
import { buildDocs, type DocsOptions } from "./build.ts";

const types: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/** Serves the static files of `site` on 127.0.0.1:`port` (0 picks a free port). */
export function serveStatic(site: string, port: number): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://127.0.0.1").pathname);
    let file = normalize(join(site, path));
    if (file !== site && !file.startsWith(site + sep)) {
      response.writeHead(403).end("forbidden");
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file)) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end(`not found: ${path}`);
      return;
    }
    response.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
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

/** Builds, serves, and rebuilds on change until the process ends. */
export async function serveDocs(options: DocsOptions & { readonly port: number }): Promise<void> {
  const out = options.out ?? join(options.root, "site");
  const log = options.progress ?? ((line: string) => process.stdout.write(`${line}\n`));
  let building = false;
  let again = false;
  const rebuild = async (): Promise<void> => {
    if (building) {
      again = true;
      return;
    }
    building = true;
    try {
      do {
        again = false;
        try {
          const result = await buildDocs({ ...options, out });
          for (const p of result.problems) log(formatDiagnostic(p));
        } catch (caught) {
          if (caught instanceof LiterateError) for (const d of caught.diagnostics) log(formatDiagnostic(d));
          else log(`docs: rebuild failed: ${caught instanceof Error ? (caught.stack ?? caught.message) : String(caught)}`);
          log("docs: keeping the previous site");
        }
      } while (again);
    } finally {
      building = false;
    }
  };
  await rebuild();
  const { url } = await serveStatic(out, options.port);
  log(`docs: serving ${out} at ${url} (Ctrl-C stops)`);
  const watched = ["literate", "generated", "coverage/coverage-final.json", "tools/lib/docs/assets"].map((p) => join(options.root, p));
  let timer: NodeJS.Timeout | undefined;
  watch(watched, { ignoreInitial: true }).on("all", (_event, path) => {
    if (path.includes(".tmp-")) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      log(`docs: ${path} changed; rebuilding`);
      void rebuild();
    }, 150);
  });
}
