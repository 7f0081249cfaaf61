/**
 * What the two docs servers (`docs --serve` and `npm run dev`) share: answering a request with a
 * file of the built site, on 127.0.0.1, never outside the site's folder.
 */
import { existsSync, statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join, normalize, sep } from "node:path";

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
export function requestPath(url: string | undefined, response: ServerResponse): string | undefined {
  try {
    return decodeURIComponent(new URL(url ?? "/", "http://127.0.0.1").pathname);
  } catch {
    response.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end("bad request: the path is not a valid URL encoding");
    return undefined;
  }
}

/**
 * The file of `site` that `path` names (a folder stands for its `index.html`); `undefined` once it
 * has answered 403 for a path outside the site, or 404 with `notFound` as the body.
 */
export function siteFile(site: string, path: string, response: ServerResponse, notFound: string): string | undefined {
  let file = normalize(join(site, path));
  if (file !== site && !file.startsWith(site + sep)) {
    response.writeHead(403).end("forbidden");
    return undefined;
  }
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
  if (!existsSync(file)) {
    response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end(notFound);
    return undefined;
  }
  return file;
}
