import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startDevDocs } from "../../tools/lib/dev/site.ts";
import { serveStatic } from "../../tools/lib/docs/static.ts";

/** A raw GET (fetch would normalise a malformed path before sending it), with `host` as its Host header if given. */
const get = (url: string, path: string, host?: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(new URL(url), { method: "GET", path, ...(host === undefined ? {} : { headers: { host } }) }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c: string) => (body += c)).on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject).end();
  });

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function site(options: { readonly cacheAssets?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "docs-serve-"));
  mkdirSync(join(dir, "site"));
  writeFileSync(join(dir, "site", "index.html"), "<h1>previous build</h1>");
  writeFileSync(join(dir, "site", "site.css"), "body{}");
  const { server, url } = await serveStatic(join(dir, "site"), 0, options);
  cleanups.push(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return url;
}

describe("the docs' static server", () => {
  it("serves a folder's index, refuses a path that climbs out of the site, and says what it did not find", async () => {
    const url = await site();
    expect(await get(url, "/")).toEqual({ status: 200, body: "<h1>previous build</h1>" });
    expect((await get(url, "/..%2f..%2fsite.css")).status).toBe(403);
    expect((await get(url, "/..%2F" + "x".repeat(3))).status).toBe(403);
    expect(await get(url, "/missing.html")).toEqual({ status: 404, body: "not found: /missing.html" });
  });

  it("lets a browser keep nothing by default, and with cacheAssets keeps the assets but never a page", async () => {
    const cacheOf = async (url: string, path: string): Promise<string | null> => (await fetch(new URL(path, url))).headers.get("cache-control");
    const live = await site();
    expect([await cacheOf(live, "/"), await cacheOf(live, "/site.css")]).toEqual(["no-store", "no-store"]);
    const crawled = await site({ cacheAssets: true });
    expect([await cacheOf(crawled, "/"), await cacheOf(crawled, "/index.html"), await cacheOf(crawled, "/site.css")]).toEqual(["no-store", "no-store", "max-age=3600"]);
  });

  it("answers a malformed percent-encoding with 400 instead of crashing", async () => {
    const url = await site();
    expect((await get(url, "/%E0%A4%A")).status).toBe(400);
    expect((await get(url, "/")).body).toContain("previous build");
  });
});

describe.each<[string, (root: string) => Promise<{ url: string; site: string; close: () => Promise<void> | void }>]>([
  [
    "the static server",
    async (root) => {
      const site = join(root, "site");
      mkdirSync(site);
      const { server, url } = await serveStatic(site, 0);
      return { url, site, close: () => void server.close() };
    },
  ],
  [
    "npm run dev",
    async (root) => {
      const dev = await startDevDocs({ root, port: 0, log: () => undefined });
      return { url: dev.url, site: join(root, ".cache", "dev", "site"), close: dev.close };
    },
  ],
])("%s's server", (_name, start) => {
  async function served() {
    const root = mkdtempSync(join(tmpdir(), "docs-serve-"));
    const running = await start(root);
    writeFileSync(join(running.site, "index.html"), "<h1>site</h1>");
    writeFileSync(join(root, "secret.txt"), "outside the site");
    cleanups.push(() => {
      void running.close();
      rmSync(root, { recursive: true, force: true });
    });
    return { root, ...running };
  }

  it("answers only a Host of 127.0.0.1, localhost or [::1] on its own port, so a rebound name reads nothing", async () => {
    const { url } = await served();
    const port = new URL(url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) expect((await get(url, "/", host)).status).toBe(200);
    for (const host of [`evil.example:${port}`, "127.0.0.1", `127.0.0.1:${Number(port) + 1}`, `localhost.evil.example:${port}`]) expect(await get(url, "/", host)).toEqual({ status: 403, body: "forbidden: this server answers only requests to 127.0.0.1, localhost or [::1] on its port" });
  });

  it("refuses a symbolic link that leads out of the site, and serves one that stays inside", async () => {
    const { url, root, site } = await served();
    symlinkSync(join(root, "secret.txt"), join(site, "leak.txt"));
    symlinkSync(root, join(site, "up"));
    symlinkSync(join(site, "index.html"), join(site, "home.html"));
    expect(await get(url, "/leak.txt")).toEqual({ status: 403, body: "forbidden" });
    expect(await get(url, "/up/secret.txt")).toEqual({ status: 403, body: "forbidden" });
    expect((await get(url, "/home.html")).body).toContain("<h1>site</h1>");
  });

  it("answers a FIFO in the site with 404 at once instead of hanging", async () => {
    const { url, site } = await served();
    execFileSync("mkfifo", [join(site, "pipe.html")]);
    expect((await get(url, "/pipe.html")).status).toBe(404);
  });
});
