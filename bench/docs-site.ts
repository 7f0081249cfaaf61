/**
 * The docs site as a reader on a slow phone network meets it: how long after a chapter is asked
 * for its search box answers a query. The target: usable within 2 s under Chromium's
 * "Slow 4G" throttling (1.6 Mbit/s down at 90 %, 750 kbit/s up, 562.5 ms of latency per request, as
 * DevTools' preset), on the heaviest chapter.
 *
 * The site is built from this project (caches on), served on 127.0.0.1 with gzip, as every static
 * host serves HTML, CSS and JavaScript (`npm run dev`'s preview server does not compress: it
 * serves one reader on the same machine; an information row shows the same load uncompressed).
 * Each sample is a fresh browser context (an empty cache): navigate, focus the search box as soon
 * as it is shown, type `loop`, and stop the clock when the first hit is visible.
 *
 * `npx tsx bench/run.ts --only docs-site` runs these rows alone.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type Browser } from "playwright-core";
import { buildDocs } from "../tools/lib/docs/build.ts";
import { contentTypes } from "../tools/lib/docs/static.ts";

/** A row for bench/run.ts: a median against an absolute target in milliseconds. */
export interface DocsSiteRow {
  readonly name: string;
  readonly samples: readonly number[];
  readonly limitMs?: number;
  readonly note: string;
}

/** DevTools' "Slow 4G" preset (formerly "Fast 3G"), as Chromium's network emulation takes it. */
export const slow4g = { offline: false, latency: 562.5, downloadThroughput: (1.6 * 1024 * 1024 * 0.9) / 8, uploadThroughput: (750 * 1024 * 0.9) / 8 } as const;

/** Serves `site` on 127.0.0.1 (port 0), gzip-compressing text files when `gzip` (each once, kept in memory). */
function serveSite(site: string, gzip: boolean): Promise<{ server: Server; url: string }> {
  const compressed = new Map<string, Buffer>();
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://127.0.0.1").pathname);
    let file = normalize(join(site, path));
    if (file !== site && !file.startsWith(site + sep)) return void response.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file)) return void response.writeHead(404).end();
    const type = contentTypes[extname(file)] ?? "application/octet-stream";
    const text = /^(text\/|application\/(json|xml)|image\/svg)/.test(type);
    if (gzip && text && /\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""))) {
      let body = compressed.get(file);
      if (body === undefined) {
        body = gzipSync(readFileSync(file));
        compressed.set(file, body);
      }
      return void response.writeHead(200, { "content-type": type, "content-encoding": "gzip", "cache-control": "no-store" }).end(body);
    }
    response.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    resolve({ server, url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/` });
  }));
}

/** The chapter page with the most bytes: the heaviest a reader can open. */
function heaviestChapter(site: string): string {
  const chapters = readdirSync(join(site, "chapters")).filter((f) => f.endsWith(".html"));
  const sized = chapters.map((f) => ({ f, size: statSync(join(site, "chapters", f)).size })).sort((a, b) => b.size - a.size);
  const top = sized[0];
  if (top === undefined) throw new Error("docs-site bench: the site has no chapter");
  return `chapters/${top.f}`;
}

/** Milliseconds from asking for `url` to the first search hit for `query`, throttled to slow 4G, in a fresh context. */
async function timeToSearch(browser: Browser, url: string, query: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", slow4g);
    const started = performance.now();
    await page.goto(url, { waitUntil: "commit" });
    const input = page.locator("#search-input");
    await input.waitFor({ state: "visible", timeout: 60_000 });
    await input.focus();
    await input.pressSequentially(query);
    await page.locator("#search-results li a").first().waitFor({ state: "visible", timeout: 60_000 });
    return performance.now() - started;
  } finally {
    await context.close();
  }
}

/** The rows: search usable on the heaviest chapter under slow 4G, gzip (the target) and uncompressed (information). */
export async function benchDocsSite(root: string, samples: number, print: (line: string) => void): Promise<DocsSiteRow[]> {
  const scratch = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "docs-site-bench-"));
  const browser = await chromium.launch({ executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const built = await buildDocs({ root, out: join(scratch, "site") });
    const chapter = heaviestChapter(built.out);
    const size = statSync(join(built.out, chapter)).size;
    print(`  docs-site bench: site built in ${Math.round(built.timings.total)} ms; heaviest chapter ${chapter} (${Math.round(size / 1024)} KiB, ${Math.round(gzipSync(readFileSync(join(built.out, chapter))).length / 1024)} KiB gzipped)`);
    const rows: DocsSiteRow[] = [];
    for (const gzip of [true, false]) {
      const { server, url } = await serveSite(built.out, gzip);
      try {
        const times: number[] = [];
        for (let i = 0; i < (gzip ? samples : 1); i++) times.push(await timeToSearch(browser, new URL(chapter, url).href, "loop"));
        print(`  docs-site bench: ${gzip ? "gzip" : "uncompressed"}: ${times.map((t) => Math.round(t)).join(", ")} ms`);
        rows.push(
          gzip
            ? { name: "docs site: search usable, heaviest chapter, slow 4G", samples: times, limitMs: 2000, note: `${chapter} asked for to its first hit for \`loop\` under Chromium's slow-4G emulation (562.5 ms latency, 1.44 Mbit/s), served with gzip as static hosts do; a fresh context (empty cache) per sample` }
            : { name: "docs site: search usable, slow 4G, uncompressed", samples: times, note: "the same, served without compression (as `npm run dev` does, for one reader on the same machine): information" },
        );
      } finally {
        server.close();
      }
    }
    return rows;
  } finally {
    await browser.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
