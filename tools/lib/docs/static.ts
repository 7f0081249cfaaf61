/**
 * Serving a built site on 127.0.0.1, never outside the site's folder: as it is (the browser tests
 * crawl it), or with `npm run dev`'s live updates (`dev/site.ts`) added.
 */
import { createReadStream, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";

/** Content types of the files a built site holds, by extension. */
export const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/** The request URL's path, decoded; `undefined` once it has answered 400 for a path that is not a valid URL encoding. */
function requestPath(url: string | undefined, response: ServerResponse): string | undefined {
  try {
    return decodeURIComponent(new URL(url ?? "/", "http://127.0.0.1").pathname);
  } catch {
    response.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end("bad request: the path is not a valid URL encoding");
    return undefined;
  }
}

/** Whether `file` is `folder` or lies inside it, by path. */
function inside(folder: string, file: string): boolean {
  return file === folder || file.startsWith(folder + sep);
}

/**
 * The regular file of `site` that `path` names (a folder stands for its `index.html`); `undefined`
 * once it has answered 403 for a path outside the site — by its name or, through a symbolic link,
 * by where it really is — or 404 with `notFound` as the body for a missing file or anything that
 * is not a regular file (a FIFO would hang the response; a device has no business in a site).
 */
function siteFile(site: string, path: string, response: ServerResponse, notFound: string): string | undefined {
  let file = normalize(join(site, path));
  const forbidden = (): undefined => void response.writeHead(403).end("forbidden");
  const missing = (): undefined => void response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end(notFound);
  if (!inside(site, file)) return forbidden();
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return missing();
  }
  if (!inside(realpathSync(site), real)) return forbidden();
  return statSync(real).isFile() ? real : missing();
}

/**
 * Whether the request's `Host` names this machine's loopback on the port it came in on
 * (`127.0.0.1`, `localhost` or `[::1]`); otherwise it answers 403. A page on another site can
 * point a name it controls at 127.0.0.1 (DNS rebinding) and read what a loopback server answers;
 * the Host header is the one thing such a request cannot set to a loopback name.
 */
function loopbackHost(request: IncomingMessage, response: ServerResponse): boolean {
  const port = request.socket.localPort;
  const host = request.headers.host ?? "";
  if (["127.0.0.1", "localhost", "[::1]"].some((name) => host.toLowerCase() === `${name}:${port}`)) return true;
  response.writeHead(403, { "content-type": "text/plain; charset=utf-8" }).end("forbidden: this server answers only requests to 127.0.0.1, localhost or [::1] on its port");
  return false;
}

/** What a static server does besides serving the site's files. */
export interface StaticOptions {
  /** Let the browser keep files other than pages for an hour (a crawl of a site that does not change); otherwise it keeps nothing. */
  readonly cacheAssets?: boolean;
  /** Answers a request itself, before the site is looked at; true when it did. */
  readonly route?: (path: string, request: IncomingMessage, response: ServerResponse) => boolean;
  /** Rewrites every HTML page before it is sent. */
  readonly page?: (html: string) => string;
  /** The body of a 404, for the path asked for. */
  readonly notFound?: (path: string) => string;
}

/** Serves the files of `site` on 127.0.0.1:`port` (0 picks a free port). */
export function serveStatic(site: string, port: number, options: StaticOptions = {}): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (!loopbackHost(request, response)) return;
    const path = requestPath(request.url, response);
    if (path === undefined || options.route?.(path, request, response) === true) return;
    const file = siteFile(site, path, response, options.notFound?.(path) ?? `not found: ${path}`);
    if (file === undefined) return;
    const html = extname(file) === ".html";
    response.writeHead(200, { "content-type": contentTypes[extname(file)] ?? "application/octet-stream", "cache-control": options.cacheAssets === true && !html ? "max-age=3600" : "no-store" });
    if (html && options.page !== undefined) response.end(options.page(readFileSync(file, "utf8")));
    else createReadStream(file).pipe(response);
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
