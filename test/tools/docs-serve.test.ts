import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { docsMemory } from "../../tools/lib/docs/build.ts";
import { startDevDocs } from "../../tools/lib/dev/site.ts";
import { serveDocs, serveStatic } from "../../tools/lib/docs/serve.ts";
import { runTangle } from "../../tools/lib/commands/tangle-run.ts";

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

async function site(failure?: () => readonly string[] | undefined, options: { readonly cacheAssets?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "docs-serve-"));
  mkdirSync(join(dir, "site"));
  writeFileSync(join(dir, "site", "index.html"), "<h1>previous build</h1>");
  writeFileSync(join(dir, "site", "site.css"), "body{}");
  const { server, url } = await serveStatic(join(dir, "site"), 0, failure, options);
  cleanups.push(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return url;
}

describe("docs:serve's static server", () => {
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
    const crawled = await site(undefined, { cacheAssets: true });
    expect([await cacheOf(crawled, "/"), await cacheOf(crawled, "/index.html"), await cacheOf(crawled, "/site.css")]).toEqual(["no-store", "no-store", "max-age=3600"]);
  });

  it("answers a malformed percent-encoding with 400 instead of crashing", async () => {
    const url = await site();
    expect((await get(url, "/%E0%A4%A")).status).toBe(400);
    expect((await get(url, "/")).body).toContain("previous build");
  });

  it("shows the failed rebuild's error on every page, not the previous site", async () => {
    let failed: string[] | undefined = ["literate/loop.md:3:1: error unknown-reference: no block named `x`"];
    const url = await site(() => failed);
    const page = await get(url, "/index.html");
    expect(page.status).toBe(500);
    expect(page.body).toContain("no block named `x`");
    expect(page.body).not.toContain("previous build");
    expect((await get(url, "/site.css")).status).toBe(200);
    failed = undefined;
    expect((await get(url, "/")).body).toContain("previous build");
  });
});

describe.each<[string, (root: string) => Promise<{ url: string; site: string; close: () => Promise<void> | void }>]>([
  [
    "docs:serve",
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

describe("docs:serve", () => {
  const fence = "```";
  const doc = (prose: string, code = "export const one = 1;") => `---\ntangle: generated/one.ts\n---\n# One\n\n${prose}\n\n${fence}ts\n/** One. */\n${code}\n${fence}\n`;

  /** Fetches `path` until its body satisfies `ok` (a rebuild is asynchronous). */
  let logged: string[] = [];
  async function until(url: string, path: string, ok: (body: string) => boolean): Promise<string> {
    const deadline = Date.now() + 90_000;
    let last = "";
    while (Date.now() < deadline) {
      last = (await get(url, path)).body;
      if (ok(last)) return last;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`\`${path}\` never became what was wanted; last body: ${last.slice(0, 300)}\nlog:\n${logged.join("\n")}`);
  }

  it("tangles an edited document before rebuilding, and shows a tangle error on the page", async () => {
    const root = join(process.cwd(), "bench", ".corpus", `docs-serve-test-${process.pid}`);
    rmSync(root, { recursive: true, force: true });
    mkdirSync(join(root, "literate"), { recursive: true });
    const project = JSON.parse(readFileSync("tsconfig.json", "utf8")) as { compilerOptions: Record<string, unknown> };
    writeFileSync(join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...project.compilerOptions, types: [] }, include: ["generated"] }));
    writeFileSync(join(root, "literate", "one.md"), doc("The first sentence."));
    runTangle({ root });
    const log: string[] = [];
    logged = log;
    const memory = docsMemory();
    const served = await serveDocs({ root, out: join(root, "site"), port: 0, api: false, memory, progress: (line) => log.push(line) });
    cleanups.push(() => {
      void served.close().then(() => rmSync(root, { recursive: true, force: true }));
    });
    expect((await get(served.url, "/chapters/one.html")).body).toContain("The first sentence.");

    writeFileSync(join(root, "literate", "one.md"), doc("The second sentence.", "export const one = 2;"));
    await until(served.url, "/chapters/one.html", (body) => body.includes("The second sentence."));
    expect(readFileSync(join(root, "generated", "one.ts"), "utf8")).toContain("export const one = 2;");
    // The rebuild updates the server's one model: the edit is parsed once more and tangled once more.
    expect(memory.project?.counts).toMatchObject({ parses: 2, tangles: 2 });
    // The files its own tangle wrote do not cause a second build; a tangle run by hand does cause one.
    await new Promise((r) => setTimeout(r, 2500));
    expect(log.filter((line) => line.endsWith("changed; rebuilding"))).toEqual([`docs: ${join(root, "literate", "one.md")} changed; rebuilding`]);
    writeFileSync(join(root, "generated", "one.ts"), readFileSync(join(root, "generated", "one.ts"), "utf8")); // as `npm run tangle` rewrites it
    const deadline = Date.now() + 30_000;
    while (!log.some((line) => line.includes(join("generated", "one.ts")) && line.endsWith("changed; rebuilding")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(log.filter((line) => line.endsWith("changed; rebuilding"))).toHaveLength(2);

    writeFileSync(join(root, "literate", "one.md"), doc("A broken reference.", "<<nowhere>>"));
    const page = await until(served.url, "/chapters/one.html", (body) => body.includes("build-error"));
    expect(page).toContain("nowhere");
  }, 180_000);
});
