// The rendered docs site, in a real browser: the site is built from this project's chapters into
// a temporary folder, served on 127.0.0.1, and loaded in Debian's chromium (never a downloaded
// browser). Nothing here is skipped: without chromium the suite fails and says how to install it.
//
// Where the time goes, and why the suite is shaped as it is (measured on a cold build, two busy
// cores): the build was a fifth of it (cross-references and rendering; typedoc a few seconds),
// which `npm test` now pays beside its first test phase (`docs --warm` fills the build's caches,
// so this build re-renders the pages from the new report in seconds), and the rest was one
// browser crawl of all ~480 pages and files. Most of the crawl's time was
// the chapters (62): each is judged for its colours in light and dark and by axe on its visit,
// which is the check of every chapter and stays. The ~350 source and API pages were a quarter of
// the crawl, loaded only to read their links and ids, which are in the HTML the build writes: so
// every link, anchor and load of every page is checked from the files (`staticLinks`, parse5), in
// seconds, and the browser loads every chapter and the top pages but only a sample of the source
// and API pages, each kind of page among them (`browserSample` argues which).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { HtmlValidate } from "html-validate";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocs, type DocsResult } from "../../tools/lib/docs/build.ts";
import { pageLinks, siteLinkProblems, siteTarget, type PageLinks } from "./site-links.ts";
import { serveStatic } from "../../tools/lib/docs/static.ts";
import { mulberry32 } from "../../tools/lib/core/seeded.ts";

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
  // Generous waits: the browser phase runs beside the other test files on a shared machine.
  context.setDefaultTimeout(90_000);
  ({ server, url: base } = await serveStatic(result.out, 0, { cacheAssets: true }));
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
// link can land on and every link, as the page's scripts left them, and any script, style sheet
// or image from outside the site.
const inventory = `({
  ids: [...document.querySelectorAll("[id], a[name]")].map((e) => e.id || e.getAttribute("name") || ""),
  links: [...document.querySelectorAll("a[href]")].map((a) => a.href),
  foreign: [...document.querySelectorAll("script[src], link[href], img[src]")].map((e) => e.src || e.href).filter((u) => !u.startsWith(location.origin)),
  diagrams: document.querySelectorAll("figure.diagram").length,
  drawn: document.querySelectorAll("figure.diagram svg").length,
  diagramErrors: [...document.querySelectorAll(".diagram-error")].map((e) => e.textContent),
  width: document.documentElement.scrollWidth,
})`;

/** How many tabs load the sample at once: pages wait on the network and on chromium's processes, so a few keep two cores busy. */
const crawlTabs = 4;

/** A chapter page that holds a mermaid diagram and a cross-reference, the conventions chapter. */
const chapter = "chapters/conventions.html";

/** axe-core's browser build, injected into a page by playwright (axe is not this project's). */
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** One axe-core finding, as a line a failing test prints. */
interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly unknown[]; readonly failureSummary?: string }[];
}

/**
 * Runs axe-core (WCAG 2.1 A and AA, and its best practices) on the page as it is and returns its
 * serious and critical violations as lines: `path: rule (impact) ×nodes: first node — summary`.
 */
async function seriousViolations(page: Page, path: string): Promise<string[]> {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.addScriptTag({ content: axeSource });
  const found = (await page.evaluate(`axe.run(document, { resultTypes: ["violations"], runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })))`)) as AxeViolation[];
  return found
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${path}: ${v.id} (${v.impact ?? "?"}) ${v.help}: ${JSON.stringify(v.nodes[0]?.target)} — ${(v.nodes[0]?.failureSummary ?? "").replace(/\s+/g, " ").slice(0, 240)}`);
}

/**
 * axe-core's serious and critical findings on the page with its colour-contrast rule left out:
 * that rule weighs every highlighted token one by one, seconds a chapter, and `lowContrast`
 * below checks the same thing once per colour (the full rule still runs on a sample of pages).
 *
 * Its link-in-text-block rule leaves out the cross-references in code that axe's own
 * `elementIsDistinct` finds styled apart from their block (the dotted underline): on such a link
 * the rule's style check passes, so it can report nothing, and finding whether the link sits in a
 * text block walked the whole code block once per link, most of axe's time on a chapter. A
 * cross-reference that is not styled apart is judged by the rule as before. The rule's selector
 * (axe's own, `a[href], [role=link]`) skips the marked links for the one run, in which every
 * other rule judges them as usual: one run of axe instead of two, whose setup (its tree of the
 * whole page) was a fixed cost of each, a few tenths of a second a chapter. The full rule still
 * runs on the pages `seriousViolations` judges, which would show it if the shortcut hid anything.
 */
async function seriousViolationsButContrast(page: Page, path: string): Promise<string[]> {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.addScriptTag({ content: axeSource });
  const found = (await page.evaluate(`(async () => {
    const blockLike = ["block", "list-item", "table", "flex", "grid", "inline-block"];
    const isBlock = (e) => { const d = getComputedStyle(e).display; return blockLike.includes(d) || d.startsWith("table-"); };
    const distinct = [...document.querySelectorAll("pre.code a.ref")].filter((a) => {
      if (isBlock(a)) return false;
      let block = a.parentElement;
      while (block !== null && !isBlock(block)) block = block.parentElement;
      return block !== null && axe.commons.color.elementIsDistinct(a, block);
    });
    for (const a of distinct) a.setAttribute("data-distinct-link", "");
    axe.configure({ rules: [{ id: "link-in-text-block", selector: "a[href]:not([data-distinct-link]), [role=link]:not([data-distinct-link])" }] });
    let found;
    try {
      found = await axe.run(document, { resultTypes: ["violations"], runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] }, rules: { "color-contrast": { enabled: false } } });
    } finally {
      axe.configure({ rules: [{ id: "link-in-text-block", selector: "a[href], [role=link]" }] });
      for (const a of distinct) a.removeAttribute("data-distinct-link");
    }
    return found.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  })()`)) as AxeViolation[];
  return found.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${path}: ${v.id} (${v.impact ?? "?"}) ${v.help}: ${JSON.stringify(v.nodes[0]?.target)}`);
}

/**
 * Every distinct colour of visible text on the page, on the background it is drawn on (the
 * nearest opaque one above it), that falls short of WCAG AA: 4.5:1, or 3:1 for large text.
 * The contrast is axe-core's own arithmetic (`axe.commons.color`), so it agrees with the rule it stands in for.
 */
async function lowContrast(page: Page, path: string): Promise<string[]> {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.addScriptTag({ content: axeSource });
  const found = (await page.evaluate(`(() => {
    const { Color, getContrast } = axe.commons.color;
    const parse = (text) => { const c = new Color(); c.parseString(text); return c; };
    const backgrounds = new Map();
    const background = (element) => {
      if (element === null) return parse("rgb(255, 255, 255)");
      const known = backgrounds.get(element);
      if (known !== undefined) return known;
      const own = parse(getComputedStyle(element).backgroundColor);
      const colour = own.alpha === 1 ? own : own.alpha === 0 ? background(element.parentElement) : axe.commons.color.flattenColors(own, background(element.parentElement));
      backgrounds.set(element, colour);
      return colour;
    };
    const seen = new Map();
    const done = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const element = node.parentElement;
      if (element === null || done.has(element) || node.textContent.trim() === "") continue;
      done.add(element);
      if (element.getClientRects().length === 0) continue;
      const style = getComputedStyle(element);
      if (style.visibility === "hidden" || Number(style.opacity) === 0) continue;
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      const bg = background(element);
      const on = "rgb(" + [bg.red, bg.green, bg.blue].map(Math.round).join(", ") + ")";
      const key = style.color + " on " + on + (large ? " large" : "");
      if (seen.has(key)) continue;
      const fg = axe.commons.color.flattenColors(parse(style.color), bg);
      seen.set(key, { ratio: getContrast(bg, fg), need: large ? 3 : 4.5, text: node.textContent.trim().slice(0, 30), colour: style.color, on });
    }
    return [...seen.values()].filter((c) => c.ratio < c.need);
  })()`)) as { ratio: number; need: number; text: string; colour: string; on: string }[];
  return found.map((c) => `${path}: ${c.colour} on ${c.on} is ${c.ratio.toFixed(2)}:1, under ${c.need}:1 (\`${c.text}\`)`);
}

/**
 * Runs `work` on each of `items` in `tabs` tabs of the one browser, each tab taking the next item;
 * the tabs are closed at the end.
 */
async function inTabs<T>(items: readonly T[], tabs: number, work: (item: T, tab: Page) => Promise<void>): Promise<void> {
  const queue = [...items];
  const pages = await Promise.all(Array.from({ length: Math.min(tabs, items.length) }, () => context.newPage()));
  await Promise.all(
    pages.map(async (tab) => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item, tab);
    }),
  );
  await Promise.all(pages.map((tab) => tab.close()));
}

/**
 * Reads `read` every 50 ms until `ok` holds of its value or `ms` pass, and returns the last value
 * (for the test to assert on; vitest's `expect.poll` needs the test's own `expect` in concurrent tests).
 */
async function poll<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A sample of the source pages: the generated entry, the heaviest tangled file, and a tool. */
const sourceSample = ["source/generated/index.ts.html", "source/generated/loop.ts.html", "source/tools/lib/docs/build.ts.html"];

/** The heaviest chapter by hovers, the one the issue measured: 1,535 type hovers. */
const loopChapter = "chapters/loop.html";

/** A phone's screen (an iPhone 12 to 15's CSS pixels). */
const phone = { width: 390, height: 844 };

/** What the browser's visits found: their errors and counts, the kinds of page they covered, and every chapter's colour and axe findings. */
interface CrawlFindings {
  readonly errors: readonly string[];
  readonly pages: number;
  readonly diagrams: number;
  /** The kinds of page (`pageKind`) the site has, and those the browser loaded. */
  readonly kinds: readonly string[];
  readonly kindsLoaded: readonly string[];
  readonly chapterFindings: readonly string[];
  readonly chaptersJudged: ReadonlySet<string>;
}

/** Whether a site path is a chapter page. */
const isChapter = (path: string): boolean => /^chapters\/[^/]+\.html$/.test(path);

/**
 * Judges a chapter as shown in `tab` on a desktop screen: every colour of its text against WCAG AA
 * in light and dark (`lowContrast`), then axe-core without its colour rule (in dark, where its
 * link-in-text-block rule still weighs colours). The tab is left desktop-sized and dark, with the
 * chapter's code tokens unwrapped: `phoneTab` makes it a phone's again before its next page.
 */
async function judgeChapter(path: string, tab: Page): Promise<string[]> {
  const found: string[] = [];
  await tab.setViewportSize({ width: 1280, height: 900 });
  found.push(...(await lowContrast(tab, path)));
  await tab.emulateMedia({ colorScheme: "dark" });
  found.push(...(await lowContrast(tab, `${path} (dark)`)));
  // The colours checked, a code token's span carries nothing else axe judges: it goes, its text stays,
  // which takes axe from seconds to a fraction on a chapter (the hovers, lines and marks are kept).
  await tab.evaluate(`for (const token of document.querySelectorAll("pre.code span:not([class]):not([tabindex])")) token.replaceWith(...token.childNodes)`);
  found.push(...(await seriousViolationsButContrast(tab, path)));
  return found;
}

/**
 * Makes `tab` a phone's screen in the light again, on an empty page: resized and recoloured on
 * the chapter it showed, the browser would lay out and restyle that whole page once more, for
 * nothing, as the tab's next page replaces it.
 */
async function phoneTab(tab: Page): Promise<void> {
  await tab.goto("about:blank");
  await tab.setViewportSize(phone);
  await tab.emulateMedia({ colorScheme: "light" });
}

/** Every file of the built site, as site paths (`chapters/loop.html`), sorted. */
function siteFiles(out: string): string[] {
  return readdirSync(out, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(out, join(entry.parentPath, entry.name)).split("\\").join("/"))
    .sort();
}

/** What the static link check read and found: every page's links, every file, and the problems. */
interface StaticLinks {
  readonly pages: ReadonlyMap<string, PageLinks>;
  readonly files: ReadonlySet<string>;
  readonly problems: readonly string[];
}

/**
 * Reads every HTML page of the built site with parse5 and checks every internal link, anchor and
 * load of every one of them (`siteLinkProblems`): no browser needed, as links and ids are in the
 * HTML the build writes. This is the link check of the whole site; the browser, which used to
 * crawl all ~480 pages and files for it (about a third of this suite's time), loads a sample
 * (`browserSample`) and checks there only the links its scripts add. Memoized: the static test and
 * the browser's visits share the one read.
 */
function staticLinks(): Promise<StaticLinks> {
  linksRead ??= (async () => {
    const files = siteFiles(result.out);
    const pages = new Map<string, PageLinks>();
    for (const path of files) {
      if (!path.endsWith(".html")) continue;
      pages.set(path, pageLinks(readFileSync(join(result.out, path), "utf8")));
      // A turn of the event loop between pages: the browser's tabs, driven from this thread, go on meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { pages, files: new Set(files), problems: siteLinkProblems(pages, new Set(files)) };
  })();
  return linksRead;
}
let linksRead: Promise<StaticLinks> | undefined;

/**
 * The kind of a page, by the template that renders it: `top` (the index, the 404 page, the book),
 * `chapter`, a source page by its folder and language (`source generated .ts`, a tangled module;
 * `source test .ts`, a tangled test; `source tools .ts`, a tool no chapter tangles; `source skills
 * .md`, …), and an API page by typedoc's folder (`api interfaces`, …; `api` for its top pages).
 */
function pageKind(path: string): string {
  const parts = path.split("/");
  if (parts.length === 1) return "top";
  if (parts[0] === "chapters") return "chapter";
  if (parts[0] === "source") return `source ${parts[1] ?? ""} .${/\.([^./]+)\.html$/.exec(path)?.[1] ?? ""}`;
  if (parts[0] === "api") return parts.length > 2 ? `api ${parts[1] ?? ""}` : "api";
  return parts[0] ?? "";
}

/** The seed of this run's random pick of pages: `DOCS_SAMPLE_SEED`, else a new one, named in any failure so the same pages can be loaded again. */
const sampleSeed = Number(process.env["DOCS_SAMPLE_SEED"] ?? Math.floor(Math.random() * 2 ** 31));

/**
 * The pages the browser loads, sorted. Every link and anchor of every page is checked without a
 * browser (`staticLinks`); what needs one (console errors, failed requests, the links scripts
 * add, diagrams, sideways scroll on a phone, colours and axe) is checked on a sample that holds
 * every kind of page (`pageKind`; the test asserts it):
 *
 * - every chapter (the slow part of a chapter's visit, its colours and axe, is a check of every
 *   chapter anyway), and the index, the 404 page and the book;
 * - of the ~350 source and API pages, which two templates render (ours from the project's files,
 *   typedoc's from its reflections), at most three of each kind. A template's breakage (a script
 *   that throws, an asset that is missing, a layout that overflows, typedoc's navigation that its
 *   script builds) shows on every page of its kind, so on any one of them. Within a kind, pages
 *   differ in size and in their names, so the three are the largest page (the most code, hovers
 *   and links for the scripts to handle), the page with the longest file name (the title a phone
 *   must wrap) and one at random, from `sampleSeed`: over many runs every page is loaded, and a
 *   failure names its seed.
 */
function browserSample(files: readonly string[], sizeOf: (path: string) => number, random: () => number): string[] {
  const byKind = new Map<string, string[]>();
  for (const path of files) if (path.endsWith(".html")) byKind.set(pageKind(path), [...(byKind.get(pageKind(path)) ?? []), path]);
  const sample = new Set<string>();
  for (const [kind, paths] of byKind) {
    if (kind === "top" || kind === "chapter" || paths.length <= 3) {
      for (const path of paths) sample.add(path);
      continue;
    }
    const nameLength = (path: string): number => (path.split("/").pop() ?? "").length;
    const largest = paths.reduce((a, b) => (sizeOf(b) > sizeOf(a) ? b : a));
    const longestName = paths.filter((p) => p !== largest).reduce((a, b) => (nameLength(b) > nameLength(a) ? b : a));
    const rest = paths.filter((p) => p !== largest && p !== longestName);
    sample.add(largest).add(longestName).add(rest[Math.floor(random() * rest.length)] ?? largest);
  }
  return [...sample].sort();
}

/**
 * Loads the sample of pages (`browserSample`) on a phone's screen, in a few tabs, each page once,
 * and judges each chapter on that same visit (`judgeChapter`): a chapter load is most of a check's
 * cost, so the visit and the every-chapter check share it. The links a page holds once its scripts
 * ran are checked against what the static check read (the files, and the ids of the page they
 * land on; on the page itself, its ids after its scripts too). Every Markdown file a page links to
 * (the edit links) is fetched: the server answers it. Memoized: both tests await the one pass.
 */
function crawlSite(): Promise<CrawlFindings> {
  crawled ??= (async () => {
    const chapterFindings: string[] = [];
    const chaptersJudged = new Set<string>();
    const domIds = new Map<string, Set<string>>();
    const wanted: { from: string; path: string; hash: string }[] = [];
    const errors: string[] = [];
    const origin = new URL(base).origin;
    let diagramCount = 0;
    const files = siteFiles(result.out);
    const sizeOf = (path: string): number => statSync(join(result.out, path)).size;
    const loaded = browserSample(files, sizeOf, mulberry32(sampleSeed));
    // The largest pages first (the heaviest chapters take seconds to judge): the tabs finish together, none left with a long one at the end.
    const queue = [...loaded].sort((a, b) => sizeOf(b) - sizeOf(a));
    // The tabs that judged a chapter, left on a desktop screen in the dark.
    const judged = new Set<Page>();
    const visit = async (path: string, tab: Page): Promise<void> => {
      if (judged.delete(tab)) await phoneTab(tab);
      // One script per page: wait for the diagrams to settle, then take the inventory.
      const { page, errors: pageErrors } = await open(path, tab, false);
      const found = (await page.evaluate(`(async () => ({ settled: ${waitsForDiagrams(path)} ? await ${settled} : true, ...${inventory} }))()`)) as { settled: boolean; ids: string[]; links: string[]; foreign: string[]; diagrams: number; drawn: number; diagramErrors: string[]; width: number };
      if (!found.settled) pageErrors.push(`${path}: diagrams never settled`);
      // The pages load on a phone: no page of the site's own scrolls sideways (code and tables scroll inside themselves).
      if (waitsForDiagrams(path) && found.width > phone.width) pageErrors.push(`${path}: ${found.width} px wide on a ${phone.width}-pixel phone`);
      errors.push(...pageErrors, ...found.foreign.map((u) => `${path}: loads \`${u}\` from outside the site`));
      // Every mermaid block on every page becomes an SVG.
      if (found.drawn < found.diagrams) errors.push(`${path}: ${found.diagrams - found.drawn} of ${found.diagrams} diagrams are not SVGs: ${found.diagramErrors.join("; ")}`);
      diagramCount += found.diagrams;
      domIds.set(path, new Set(found.ids));
      // A chapter, loaded once for the visit, is also judged here for its colours and by axe (the test
      // "passes axe-core on every chapter…" asserts on these findings), on a desktop screen.
      if (isChapter(path)) {
        judged.add(tab);
        chapterFindings.push(...pageErrors, ...(await judgeChapter(path, page)));
        chaptersJudged.add(path);
      }
      for (const link of found.links) {
        const url = new URL(link);
        if (url.origin !== origin) continue;
        wanted.push({ from: path, path: decodeURIComponent(url.pathname).replace(/^\//, "") || "index.html", hash: url.hash.length > 1 ? decodeURIComponent(url.hash.slice(1)) : "" });
      }
    };
    const tabs = await Promise.all(
      Array.from({ length: crawlTabs }, async () => {
        const tab = await context.newPage();
        await tab.setViewportSize(phone);
        return tab;
      }),
    );
    await Promise.all(
      tabs.map(async (tab) => {
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) await visit(path, tab);
      }),
    );
    await Promise.all(tabs.map((tab) => tab.close()));
    const links = await staticLinks();
    for (const w of wanted) {
      const target = w.path.endsWith("/") ? `${w.path}index.html` : w.path;
      if (!links.files.has(target)) errors.push(`${w.from}: broken link ${target}`);
      else if (w.hash !== "" && !links.pages.get(target)?.ids.has(w.hash) && !(target === w.from && domIds.get(w.from)?.has(w.hash))) errors.push(`${w.from}: broken anchor ${target}#${w.hash}`);
    }
    // A chapter's Markdown, which its edit link opens, is a file, not a page: it is checked by a
    // request. (Shown in a tab, it made the browser ask for a favicon.ico the site does not have.)
    const markdown = new Set([...links.pages].flatMap(([from, page]) => page.links.map((href) => siteTarget(from, href, page.base)?.path ?? "")).filter((path) => path.endsWith(".md")));
    for (const path of markdown) {
      const response = await fetch(new URL(path, base));
      if (!response.ok) errors.push(`${path}: HTTP ${response.status}`);
    }
    const kinds = [...new Set(files.filter((f) => f.endsWith(".html")).map(pageKind))].sort();
    const kindsLoaded = [...new Set(loaded.map(pageKind))].sort();
    return { errors, pages: loaded.length, diagrams: diagramCount, kinds, kindsLoaded, chapterFindings, chaptersJudged };
  })();
  return crawled;
}
let crawled: Promise<CrawlFindings> | undefined;

// The tests run side by side, each in its own tabs of the one browser.
describe("the docs site", { concurrent: true }, () => {
  it("builds a page per chapter, with the index and the API reference", () => {
    const pages = result.model.chapters.map((c) => c.path);
    expect(pages).toContain(chapter);
    for (const p of ["index.html", "api/index.html", ...pages]) expect(existsSync(join(result.out, p)), p).toBe(true);
  });

  it("links every page, each internal link and #anchor to a file and an id the site has, and loads nothing missing or from outside the site (read from every page's HTML)", async () => {
    const links = await staticLinks();
    expect(links.problems).toEqual([]);
    // Every page was read: the chapters, the source pages and typedoc's.
    expect(links.pages.size).toBe([...links.files].filter((f) => f.endsWith(".html")).length);
    expect(links.pages.size).toBeGreaterThan(result.model.chapters.length + 100);
    expect([...links.pages.values()].reduce((n, page) => n + page.links.length, 0)).toBeGreaterThan(1000);
  }, 600_000);

  it("loads every chapter, the index, the 404 page, the book and a sample of every other kind of page on a phone's screen without a console error, a failed request, a broken link its scripts made, or a sideways scroll", async () => {
    const crawl = await crawlSite();
    const seed = `the pages loaded at random came from DOCS_SAMPLE_SEED=${sampleSeed}`;
    expect(crawl.errors, seed).toEqual([]);
    expect(crawl.kindsLoaded, "every kind of page is loaded").toEqual(crawl.kinds);
    expect(crawl.kinds).toEqual(expect.arrayContaining(["top", "chapter", "source generated .ts", "source test .ts", "source tools .ts", "api", "api interfaces"]));
    expect(crawl.pages).toBeGreaterThan(result.model.chapters.length);
    expect(crawl.diagrams).toBeGreaterThan(0);
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
    // The snippet comes with the full index, which replaces the titles' one as soon as it arrives.
    expect(await poll(async () => (await first.locator(".snippet").count()) > 0 && ((await first.locator(".snippet").textContent()) ?? "").length > 0, (has) => has)).toBe(true);
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

  it("saves screenshots of the index and of a chapter, on a phone, in the dark and in print preview too", async () => {
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
    // The chapter as the issue asked to see it: on a phone, in the dark, and in print preview.
    const views: readonly [string, (page: Page) => Promise<void>][] = [
      ["chapter-phone.png", (page) => page.setViewportSize(phone)],
      ["chapter-dark.png", (page) => page.emulateMedia({ colorScheme: "dark" })],
      ["chapter-print.png", (page) => page.emulateMedia({ media: "print" })],
    ];
    for (const [file, setUp] of views) {
      const page = await context.newPage();
      await setUp(page);
      await open(chapter, page);
      if (file === "chapter-dark.png") {
        await page.locator("figure.block", { hasText: "export class RingBuffer" }).first().scrollIntoViewIfNeeded();
        await page.evaluate("window.scrollBy(0, -80)");
      }
      await page.screenshot({ path: join(artifacts, file), fullPage: false });
      await page.close();
    }
  });

  it("passes axe-core with no serious or critical violation on the index, the 404 page and a sample of chapters and source pages", async () => {
    // A sample, as axe takes seconds on a chapter of thousands of highlighted tokens and every
    // chapter is the one template (the book too, which html-validate checks): the index, the 404
    // page, the diagram chapters, the heaviest chapter by hovers (loop), the one that scrolled
    // sideways (config), and a source page.
    // Every chapter is checked below, by axe without its colour rule and by `lowContrast`; axe whole runs here on the other kinds of page.
    const paths = ["index.html", "404.html", chapter, loopChapter, sourceSample[0] ?? ""];
    const found: string[] = [];
    await inTabs(paths, 2, async (path, tab) => {
      const { errors } = await open(path, tab);
      found.push(...errors, ...(await seriousViolations(tab, path)));
    });
    expect(found).toEqual([]);
  }, 600_000);

  it("passes axe-core on every chapter, and every colour of its text, code tokens included, has the contrast WCAG AA asks, in light and dark", async () => {
    const chapters = readdirSync(join(result.out, "chapters")).filter((f) => f.endsWith(".html")).map((f) => `chapters/${f}`);
    expect(chapters.length).toBeGreaterThan(40);
    // Judged on the crawl's visit to each chapter (`crawlSite`, `judgeChapter`).
    const crawl = await crawlSite();
    expect(chapters.filter((path) => !crawl.chaptersJudged.has(path))).toEqual([]);
    expect(crawl.chapterFindings).toEqual([]);
    // The check sees what it is there to see: faint text added to a page is found, and only it.
    const { page } = await open("404.html");
    await page.emulateMedia({ colorScheme: "light" });
    await page.evaluate(`document.querySelector("main").insertAdjacentHTML("beforeend", '<p style="color: #bbb">faint words</p>')`);
    expect(await lowContrast(page, "404.html")).toEqual([expect.stringMatching(/^404\.html: rgb\(187, 187, 187\) on rgb\(255, 255, 255\) is 1\.9\d:1, under 4\.5:1 \(`faint words`\)$/)]);
    // And axe, in its one run, finds a link hidden in its text (link-in-text-block) and an image without a text alternative.
    await page.evaluate(`document.querySelector("main").insertAdjacentHTML("beforeend", '<p>Some words around <a href="index.html" style="color: #333; text-decoration: none">a hidden link</a> in a sentence.</p><p><img src="assets/favicon.svg"></p>')`);
    const axeFound = await seriousViolationsButContrast(page, "404.html");
    expect(axeFound.map((line) => line.split(" ")[1]).sort()).toEqual(["image-alt", "link-in-text-block"]);
    await page.close();
  }, 900_000);

  it("passes axe-core in dark mode too (colours of text, links, badges and code), on a sample of the site's pages", async () => {
    const found: string[] = [];
    await inTabs(["index.html", chapter, "404.html", sourceSample[0] ?? ""], 2, async (path, tab) => {
      await tab.emulateMedia({ colorScheme: "dark" });
      const { errors } = await open(path, tab);
      expect(await tab.evaluate("getComputedStyle(document.body).backgroundColor")).toBe("rgb(13, 17, 23)");
      found.push(...errors, ...(await seriousViolations(tab, path)));
    });
    expect(found).toEqual([]);
  }, 300_000);

  it("passes axe-core on a sample of typedoc's API pages (its theme mended where a page can be)", async () => {
    const nested = readdirSync(join(result.out, "api", "interfaces")).filter((f) => f.endsWith(".html")).slice(0, 1).map((f) => `api/interfaces/${f}`);
    const found: string[] = [];
    await inTabs(["api/index.html", ...nested], 2, async (path, tab) => {
      await open(path, tab);
      found.push(...(await seriousViolations(tab, path)));
    });
    expect(found).toEqual([]);
  }, 120_000);

  it("is valid HTML by html-validate's recommended rules (less four argued ones) on the index, the extra pages, chapters and source pages", async () => {
    // A sample, as html-validate takes seconds on a half-megabyte chapter: the index, the 404 page,
    // the two diagram chapters and the heaviest one, the whole book and the source sample. Every
    // chapter shares one template with these.
    const validator = new HtmlValidate({
      extends: ["html-validate:recommended"],
      rules: {
        // `<!doctype html>` in lower case is the HTML standard's own spelling; the rule is a house style.
        "doctype-style": "off",
        // Code colours come from the highlighter per token, inline: a class per colour would need a
        // style sheet generated from two themes, for the same pixels.
        "no-inline-style": "off",
        // A raw `>` in text is valid HTML; the Markdown renderer's serializer leaves it, as browsers expect.
        "no-raw-characters": "off",
        // The book repeats chapters' headings (e.g. two "Tests" sections): ids stay unique, text may repeat.
        "unique-landmark": "off",
      },
    });
    const found: string[] = [];
    for (const path of ["index.html", "404.html", chapter, loopChapter, "chapters/reason.html", "book.html", ...sourceSample]) {
      const report = await validator.validateString(readFileSync(join(result.out, path), "utf8"), path);
      for (const r of report.results) for (const m of r.messages) found.push(`${path}:${m.line}:${m.column} ${m.ruleId}: ${m.message}`);
    }
    expect(found).toEqual([]);
  }, 300_000);

  it("lays a chapter out for a phone: title near the top, the chapter list a menu, a skip link first, code at one font shrink", async () => {
    const page = await context.newPage();
    await page.setViewportSize(phone);
    await open(loopChapter, page);
    const h1 = await page.locator("main h1").boundingBox();
    expect(h1 !== null && h1.y < 250, `title at ${JSON.stringify(h1)}`).toBe(true);
    expect(await page.locator("nav.sidebar").isVisible()).toBe(false);
    await page.locator("header a.menu").click();
    expect(await page.locator("nav.sidebar").isVisible()).toBe(true);
    expect(await page.locator("header a.menu").getAttribute("aria-expanded")).toBe("true");
    expect(await page.evaluate("document.activeElement.closest('nav.sidebar') !== null")).toBe(true);
    await page.locator("header a.menu").click();
    expect(await page.locator("nav.sidebar").isVisible()).toBe(false);
    // On a fresh page, the first Tab reaches the skip link, which takes the keyboard to the text.
    await open(loopChapter, page);
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement.className")).toBe("skip-link");
    await page.keyboard.press("Enter");
    expect(await page.evaluate("document.activeElement.id")).toBe("content");
    // 16 px × 0.88 once (the issue found 0.88 twice: 12.4 px).
    expect(await page.evaluate("getComputedStyle(document.querySelector('pre.code code')).fontSize")).toBe("14.08px");
    await page.close();
  });

  it("keeps \"On this page\" in view beside a long chapter on a desktop screen, after scrolling too", async () => {
    const { page } = await open(loopChapter);
    const toc = page.locator("nav.toc");
    const inView = async (): Promise<boolean> => {
      const box = await toc.boundingBox();
      return box !== null && box.y >= 0 && box.y < 900 && box.x + box.width <= 1280;
    };
    expect(await inView()).toBe(true);
    await page.evaluate("window.scrollTo(0, document.body.scrollHeight / 2)");
    expect(await inView()).toBe(true);
    await page.close();
  });

  it("goes dark with the reader's system, code included, in the light theme's contrast", async () => {
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: "dark" });
    await open(chapter, page);
    const colours = (await page.evaluate(`(() => { const t = document.querySelector('pre.code span[style*="--d:"]'); return { shown: getComputedStyle(t).color, dark: t.style.getPropertyValue("--d"), bg: getComputedStyle(document.querySelector("pre.code")).backgroundColor }; })()`)) as { shown: string; dark: string; bg: string };
    const hex = (rgb: string): string => `#${(rgb.match(/\d+/g) ?? []).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, "0")).join("")}`;
    expect(hex(colours.shown)).toBe(colours.dark.trim());
    expect(colours.bg).toBe("rgb(13, 17, 23)");
    await page.close();
  });

  it("prints the chapter, not the navigation, with every code line wrapped inside the page", async () => {
    const page = await context.newPage();
    await open(loopChapter, page);
    await page.emulateMedia({ media: "print" });
    for (const hidden of ["header.top", "nav.sidebar", "nav.toc", "nav.pager"]) expect(await page.locator(hidden).first().isVisible(), hidden).toBe(false);
    const first = (await page.evaluate("(() => { const r = document.querySelector('main h1').getBoundingClientRect(); return r.top + window.scrollY; })()")) as number;
    expect(first).toBeLessThan(100);
    const cut = (await page.evaluate("[...document.querySelectorAll('pre.code')].filter((p) => p.scrollWidth > p.clientWidth + 1).length")) as number;
    expect(cut).toBe(0);
    expect(await page.evaluate("getComputedStyle(document.querySelector('pre.code')).whiteSpace")).toBe("pre-wrap");
    await page.close();
  });

  it("searches from the keyboard alone: arrows through the hits, Escape back, closes when focus leaves, and says how many it found", async () => {
    const { page } = await open(chapter);
    await page.locator("#search-input").focus();
    await page.keyboard.type("loop");
    // Titles first: the chapter called "The metabolic loop" is found, and every hit whose title
    // says "loop" comes before any that only mentions loops (polled: each key typed renders the
    // hits of the query so far, "lo" among them).
    const titles = async (): Promise<string[]> => page.locator("#search-results li a .title").allTextContents();
    expect(await poll(titles, (shown) => shown.includes("The metabolic loop"))).toContain("The metabolic loop");
    const saysLoop = (await titles()).map((t) => /loop/i.test(t));
    expect(saysLoop.indexOf(false) === -1 || saysLoop.lastIndexOf(true) < saysLoop.indexOf(false), JSON.stringify(await titles())).toBe(true);
    expect(await page.locator("#search-status").textContent()).toMatch(/^\d+ results?/);
    const hrefs = await page.locator("#search-results li a").evaluateAll((links) => links.map((a) => (a as unknown as { href: string }).href));
    expect(new Set(hrefs).size).toBe(hrefs.length);
    await page.keyboard.press("ArrowDown");
    expect(await page.evaluate("document.activeElement === document.querySelector('#search-results a')")).toBe(true);
    await page.keyboard.press("ArrowDown");
    expect(await page.evaluate("document.activeElement === document.querySelectorAll('#search-results a')[1]")).toBe(true);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    expect(await page.evaluate("document.activeElement.id")).toBe("search-input");
    await page.keyboard.press("Escape");
    expect(await page.locator("#search-results").isVisible()).toBe(false);
    expect(await page.evaluate("document.activeElement.id")).toBe("search-input");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    expect(await page.locator("#search-results").isVisible()).toBe(true);
    // Tab past the last hit: focus leaves the search, the list closes.
    const count = hrefs.length;
    for (let i = 0; i < count; i++) await page.keyboard.press("Tab");
    expect(await page.evaluate("document.querySelector('form.search').contains(document.activeElement)")).toBe(false);
    expect(await page.locator("#search-results").isVisible()).toBe(false);
    await page.close();
  });

  it("finds error messages and API pages, not only chapters and definitions", async () => {
    const { page } = await open("index.html");
    const hitKinds = async (query: string): Promise<string[]> => {
      await page.locator("#search-input").fill("");
      await page.locator("#search-input").fill(query);
      await page.locator("#search-results li").first().waitFor({ state: "visible" });
      return page.locator("#search-results li a .kind").allTextContents();
    };
    const message = result.model.chapters.length > 0 ? (readFileSync(join(result.out, "index.html"), "utf8").match(/<td class="msg">([A-Za-z][^<…&]{20,60})/)?.[1] ?? "") : "";
    expect(message).not.toBe("");
    expect(await hitKinds(message.split(" ").slice(0, 5).join(" "))).toContain("err");
    const exported = result.model.definitions.find((d) => result.model.blocks[d.block]?.apiHref !== undefined);
    expect(exported, "a definition with an API page").toBeDefined();
    expect(await hitKinds(exported?.name ?? "")).toContain("api");
    await page.close();
  });

  it("shows a type from the keyboard, and keeps it while the pointer moves onto it, with no raw {@link} in any hover", async () => {
    const { page } = await open(loopChapter);
    const name = page.locator("pre.code span.sym[data-h]").first();
    await name.focus();
    const tip = page.locator("#hover-tip");
    await tip.waitFor({ state: "visible" });
    expect(((await tip.textContent()) ?? "").length).toBeGreaterThan(0);
    await page.keyboard.press("Escape");
    expect(await tip.isVisible()).toBe(false);
    // Pointer: onto the name, then onto the tip itself (to read or select it).
    await name.hover();
    await tip.waitFor({ state: "visible" });
    const box = await tip.boundingBox();
    if (box === null) throw new Error("the tip has no box");
    const from = await name.boundingBox();
    if (from === null) throw new Error("the name has no box");
    // Straight down from the name into the tip, which opens just under it.
    await page.mouse.move(from.x + from.width / 2, box.y + Math.min(8, box.height / 2), { steps: 4 });
    await page.waitForTimeout(500);
    expect(await tip.isVisible()).toBe(true);
    const hoverData = (await page.evaluate("document.getElementById('hover-data').textContent")) as string;
    expect(hoverData).not.toContain("{@link");
    await page.close();
  });

  it("makes search usable before the diagram library arrives, which only diagram pages fetch", async () => {
    const page = await context.newPage();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let mermaidAsked = false;
    await page.route("**/assets/mermaid.min.js", async (route) => {
      mermaidAsked = true;
      await held;
      await route.continue();
    });
    await open(chapter, page, false);
    await page.locator("#search-input").fill("RingBuffer");
    await page.locator("#search-results li a").first().waitFor({ state: "visible" });
    expect(await page.evaluate("document.documentElement.dataset.diagrams ?? 'pending'")).toBe("pending");
    release();
    expect(await page.evaluate(settled)).toBe(true);
    expect(mermaidAsked).toBe(true);
    // A page without diagrams never asks for the library.
    mermaidAsked = false;
    await open("index.html", page);
    expect(mermaidAsked).toBe(false);
    await page.close();
  });

  it("copies a block's code with its button", async () => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(base).origin });
    const { page } = await open(chapter);
    const block = page.locator("figure.block", { hasText: "export class RingBuffer" }).first();
    await block.locator("button.copy").click();
    expect(await poll(async () => block.locator("button.copy").textContent(), (text) => text === "Copied")).toBe("Copied");
    const copied = (await page.evaluate("navigator.clipboard.readText()")) as string;
    expect(copied).toBe((await block.locator("pre.code").textContent()) ?? "");
    expect(copied).toContain("export class RingBuffer");
    await page.close();
  });

  it("has a 404 page, a sitemap of every page, an edit link to each chapter's Markdown, and the whole book on one page", async () => {
    const { page, errors } = await open("404.html");
    expect(await page.locator("main a[href='index.html']").count()).toBeGreaterThan(0);
    const sitemap = readFileSync(join(result.out, "sitemap.xml"), "utf8");
    for (const c of result.model.chapters) expect(sitemap).toContain(`<loc>${c.path}</loc>`);
    expect(sitemap).not.toContain("404.html");
    await open(chapter, page);
    const edit = page.locator("p.edit-link a");
    expect(await edit.getAttribute("href")).toBe("../literate/conventions.md");
    await edit.click();
    await page.waitForURL("**/literate/conventions.md");
    expect(await page.locator("body").textContent()).toBe(readFileSync(join(process.cwd(), "literate/conventions.md"), "utf8"));
    const book = readFileSync(join(result.out, "book.html"), "utf8");
    const at = result.model.chapters.map((c) => book.indexOf(`id="${c.path.replace(/^chapters\//, "").replace(/\.html$/, "")}"`));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("documents every export of the public entry (typedoc's validation)", () => {
    expect(result.problems.map((p) => `${p.file}:${p.line} ${p.message}`)).toEqual([]);
  });
});
