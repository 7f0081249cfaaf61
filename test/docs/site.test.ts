// The rendered docs site, in a real browser: the site is built from this project's chapters into
// a temporary folder, served on 127.0.0.1, and crawled with Debian's chromium (never a
// downloaded browser). Nothing here is skipped: without chromium the suite fails and says how
// to install it.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocs, type DocsResult } from "../../tools/lib/docs/build.ts";
import { serveStatic } from "../../tools/lib/docs/serve.ts";

const chromiumPath = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

/**
 * The report `npm test`'s verify step writes (`verify --report`), when it is as new as the test
 * results and every chapter: the site then shows it instead of verifying the project a second
 * time. Otherwise (`npm run test:docs` after an edit or another test run) the build verifies.
 */
function freshVerifyReport(root: string): string | undefined {
  const report = join(root, "coverage", "verify-report.json");
  const mtime = (path: string): number => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Number.POSITIVE_INFINITY;
  const inputs = [join(root, "coverage", "vitest-results.json"), ...readdirSync(join(root, "literate")).map((f) => join(root, "literate", f))];
  const written = statSync(report, { throwIfNoEntry: false })?.mtimeMs;
  return written !== undefined && inputs.every((input) => mtime(input) <= written) ? report : undefined;
}
const artifacts = join(process.cwd(), "site-artifacts");
const scratch = mkdtempSync(join(tmpdir(), "docs-site-"));
let result: DocsResult;
let server: Server;
let base: string;
let context: BrowserContext;

beforeAll(async () => {
  if (!existsSync(chromiumPath)) {
    throw new Error(`no chromium at \`${chromiumPath}\`: install it with \`apt-get update && apt-get install -y --no-install-recommends chromium\` (.ci/run does this as root), or set CHROMIUM_PATH`);
  }
  // The browser starts while the site builds.
  const launching = chromium.launchPersistentContext(join(scratch, "profile"), {
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    viewport: { width: 1280, height: 900 },
  });
  try {
    const verifyJson = freshVerifyReport(process.cwd());
    result = await buildDocs({ root: process.cwd(), out: join(scratch, "site"), ...(verifyJson === undefined ? {} : { verifyJson }) });
  } finally {
    context = await launching;
  }
  ({ server, url: base } = await serveStatic(result.out, 0, undefined, { cacheAssets: true }));
});

afterAll(async () => {
  await context?.close();
  server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * Opens a page (in `reuse`, when given) and collects its console errors and uncaught exceptions;
 * unless `settle` is false, waits for its diagrams to settle.
 */
async function open(path: string, reuse?: Page, settle = true): Promise<{ page: Page; errors: string[] }> {
  const page = reuse ?? (await context.newPage());
  page.removeAllListeners("console");
  page.removeAllListeners("pageerror");
  page.removeAllListeners("requestfailed");
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`${path}: console: ${message.text()}`);
  });
  page.on("pageerror", (caught) => errors.push(`${path}: ${caught.message}`));
  // An aborted request is one the navigation cut off (the previous page's favicon, fetched
  // lazily), not a broken site: a missing file answers 404, which the console reports.
  page.on("requestfailed", (request) => {
    if (request.failure()?.errorText !== "net::ERR_ABORTED") errors.push(`${path}: request failed: ${request.url()} (${request.failure()?.errorText ?? "?"})`);
  });
  const response = await page.goto(new URL(path, base).href, { waitUntil: "load" });
  if (response === null || !response.ok()) errors.push(`${path}: HTTP ${response?.status() ?? "no response"}`);
  // Diagrams render after load: the page is final once site.js marks them settled.
  if (settle && waitsForDiagrams(path) && !(await page.evaluate(settled))) errors.push(`${path}: diagrams never settled`);
  return { page, errors };
}

/** Whether a page runs site.js, which marks when its diagrams are settled (typedoc's API pages do not). */
const waitsForDiagrams = (path: string): boolean => path.endsWith(".html") && !path.startsWith("api/");

/**
 * Runs in the page: resolves to whether site.js marked the diagrams settled within a minute. A
 * plain script in the page's own world, where playwright's selector engine would first have to
 * be injected into every page the crawl opens (about a sixth of its time).
 */
const settled = `new Promise((resolve) => {
  const until = Date.now() + 60000;
  const check = () => document.documentElement.hasAttribute("data-diagrams") ? resolve(true) : Date.now() > until ? resolve(false) : setTimeout(check, 10);
  check();
})`;

// Runs in the page (this project's type-check has no DOM library, so it is a string): the ids a
// link can land on, every link, and any script, style sheet or image from outside the site.
const inventory = `({
  ids: [...document.querySelectorAll("[id], a[name]")].map((e) => e.id || e.getAttribute("name") || ""),
  links: [...document.querySelectorAll("a[href]")].map((a) => a.href),
  foreign: [...document.querySelectorAll("script[src], link[href], img[src]")].map((e) => e.src || e.href).filter((u) => !u.startsWith(location.origin)),
  diagrams: document.querySelectorAll("figure.diagram").length,
  drawn: document.querySelectorAll("figure.diagram svg").length,
  diagramErrors: [...document.querySelectorAll(".diagram-error")].map((e) => e.textContent),
})`;

/** How many tabs crawl the site at once: pages wait on the network and on chromium's processes, so a few keep two cores busy. */
const crawlTabs = 4;

/** A chapter page that holds a mermaid diagram and a cross-reference, the conventions chapter. */
const chapter = "chapters/conventions.html";

// The tests run side by side, each in its own tabs of the one browser.
describe("the docs site", { concurrent: true }, () => {
  it("builds a page per chapter, with the index and the API reference", () => {
    const pages = result.model.chapters.map((c) => c.path);
    expect(pages).toContain(chapter);
    for (const p of ["index.html", "api/index.html", ...pages]) expect(existsSync(join(result.out, p)), p).toBe(true);
  });

  it("loads every page without a console error, a failed request, or a broken internal link or anchor", async () => {
    const seen = new Map<string, Set<string>>();
    const wanted: { from: string; path: string; hash: string }[] = [];
    const queued = new Set(["index.html"]);
    const queue = ["index.html"];
    const errors: string[] = [];
    const origin = new URL(base).origin;
    let diagramCount = 0;
    const visit = async (path: string, tab: Page): Promise<void> => {
      // One script per page: wait for the diagrams to settle, then take the inventory.
      const { page, errors: pageErrors } = await open(path, tab, false);
      const found = (await page.evaluate(`(async () => ({ settled: ${waitsForDiagrams(path)} ? await ${settled} : true, ...${inventory} }))()`)) as { settled: boolean; ids: string[]; links: string[]; foreign: string[]; diagrams: number; drawn: number; diagramErrors: string[] };
      if (!found.settled) pageErrors.push(`${path}: diagrams never settled`);
      errors.push(...pageErrors, ...found.foreign.map((u) => `${path}: loads \`${u}\` from outside the site`));
      // Every mermaid block on every page becomes an SVG.
      if (found.drawn < found.diagrams) errors.push(`${path}: ${found.diagrams - found.drawn} of ${found.diagrams} diagrams are not SVGs: ${found.diagramErrors.join("; ")}`);
      diagramCount += found.diagrams;
      seen.set(path, new Set(found.ids));
      for (const link of found.links) {
        const url = new URL(link);
        if (url.origin !== origin) continue;
        const target = url.pathname.replace(/^\//, "") || "index.html";
        if (url.hash.length > 1) wanted.push({ from: path, path: target, hash: decodeURIComponent(url.hash.slice(1)) });
        if (!queued.has(target)) {
          queued.add(target);
          queue.push(target);
        }
      }
    };
    // A few tabs of the one browser crawl side by side, each taking the next page off the queue;
    // a tab whose queue is empty waits while another may still find pages.
    const tabs = await Promise.all(Array.from({ length: crawlTabs }, () => context.newPage()));
    let busy = 0;
    await Promise.all(
      tabs.map(async (tab) => {
        for (;;) {
          const path = queue.shift();
          if (path === undefined) {
            if (busy === 0) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
            continue;
          }
          busy++;
          try {
            await visit(path, tab);
          } finally {
            busy--;
          }
        }
      }),
    );
    await Promise.all(tabs.map((tab) => tab.close()));
    for (const w of wanted) {
      if (!seen.get(w.path)?.has(w.hash)) errors.push(`${w.from}: broken anchor ${w.path}#${w.hash}`);
    }
    expect(errors).toEqual([]);
    expect(seen.size).toBeGreaterThan(result.model.chapters.length);
    expect(diagramCount).toBeGreaterThan(0);
  }, 600_000);

  it("shows an identifier's type when the pointer rests on it", async () => {
    const { page } = await open(chapter);
    const ref = page.locator("figure.block a.ref", { hasText: "RecentEntries" }).first();
    await ref.hover();
    const tip = page.locator("#hover-tip");
    await tip.waitFor({ state: "visible" });
    expect(await tip.textContent()).toContain("interface RecentEntries<T>");
    await page.close();
  });

  it("brings the defining block into view when a cross-reference is clicked", async () => {
    const { page } = await open(chapter);
    const ref = page.locator("figure.block a.ref", { hasText: "RecentEntries" }).first();
    const href = (await ref.getAttribute("href")) ?? "";
    expect(href).toMatch(/#block-\d+$/);
    await ref.click();
    const id = href.split("#")[1] ?? "";
    await page.waitForURL(`**#${id}`);
    const target = page.locator(`[id="${id}"]`);
    expect(await target.textContent()).toContain("export interface RecentEntries");
    const box = await target.boundingBox();
    const viewport = page.viewportSize();
    expect(box !== null && viewport !== null && box.y < viewport.height && box.y + box.height > 0).toBe(true);
    await page.close();
  });

  it("draws a mermaid diagram visibly, with its labels as text", async () => {
    const { page, errors } = await open(chapter);
    const svg = page.locator("figure.diagram svg").first();
    await svg.waitFor({ state: "visible", timeout: 30_000 });
    const box = await svg.boundingBox();
    expect(box !== null && box.width > 50 && box.height > 20, `diagram box ${JSON.stringify(box)}`).toBe(true);
    expect(((await svg.textContent()) ?? "").trim().length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("finds a definition by its name as the first search hit", async () => {
    const { page } = await open("index.html");
    await page.locator("#search-input").fill("RingBuffer");
    const first = page.locator("#search-results li a").first();
    await first.waitFor({ state: "visible" });
    expect(await first.locator(".title").textContent()).toBe("RingBuffer");
    expect(await first.locator(".kind").textContent()).toBe("def");
    expect(((await first.locator(".snippet").textContent()) ?? "").length).toBeGreaterThan(0);
    await first.click();
    await page.waitForURL(/conventions\.html#block-\d+$/);
    await page.close();
  });

  it("shows a verify badge on every definition block and never a raw stamp or front matter", async () => {
    const { page } = await open(chapter);
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).not.toMatch(/tested=[0-9a-f]{12}/);
    expect(text).not.toContain("description: How the literate chapters");
    const blocks = result.model.blocks.filter((b) => b.block.doc === "literate/conventions.md" && b.report?.kind === "definition");
    for (const b of blocks) expect(await page.locator(`#block-${b.block.index} .badge`).count(), `block ${b.block.index}`).toBeGreaterThan(0);
    await page.close();
  });

  it("fits a 420-pixel-wide screen: nothing scrolls sideways but code and tables inside themselves", async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 420, height: 800 });
    for (const path of ["index.html", chapter]) {
      await page.goto(new URL(path, base).href, { waitUntil: "load" });
      expect(await page.evaluate("document.documentElement.scrollWidth"), path).toBeLessThanOrEqual(420);
    }
    await page.close();
  });

  it("links every API page back to the chapters, the nested ones too", async () => {
    const nested = readdirSync(join(result.out, "api"), { recursive: true, encoding: "utf8" })
      .map((f) => f.split("\\").join("/"))
      .find((f) => f.includes("/") && f.endsWith(".html"));
    expect(nested, "an API page in a subfolder").toBeDefined();
    for (const path of ["api/index.html", `api/${nested ?? ""}`]) {
      const { page, errors } = await open(path);
      const links = (await page.evaluate(`[...document.querySelectorAll("a[href]")].map((a) => a.href)`)) as string[];
      expect(links, path).toContain(new URL("index.html", base).href);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it("saves screenshots of the index and of a chapter", async () => {
    mkdirSync(artifacts, { recursive: true });
    for (const [path, file] of [["index.html", "index.png"], [chapter, "chapter.png"]] as const) {
      const { page } = await open(path);
      if (path === chapter) {
        // The chapter at its class block: badges, cross-references and the methods spliced into it.
        await page.locator("figure.diagram svg").first().waitFor({ state: "attached", timeout: 30_000 });
        await page.locator("figure.block", { hasText: "export class RingBuffer" }).first().scrollIntoViewIfNeeded();
        await page.evaluate("window.scrollBy(0, -80)");
      }
      await page.screenshot({ path: join(artifacts, file), fullPage: false });
      await page.close();
    }
  });

  it("documents every export of the public entry (typedoc's validation)", () => {
    expect(result.problems.map((p) => `${p.file}:${p.line} ${p.message}`)).toEqual([]);
  });
});
