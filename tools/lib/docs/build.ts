/**
 * `npm run docs`: the whole build, from the documents on disk to a static site.
 *
 * Order of work (`buildDocs`, one named step each): read and tangle the documents in memory, once,
 * into a project model; take verify's report (run in-process over that model, from the cache,
 * or read from `verify --json` output); resolve every identifier with one language service;
 * attribute tests to blocks; build the API reference with typedoc (a cold build highlights the
 * code on a second thread meanwhile); render chapters, source
 * pages and the index (one progress line per document); write the search index and assets.
 * The site is written into a fresh folder beside `out` and swapped in at the end, so a server
 * never shows half a site.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Root as MdastRoot } from "mdast";
import ts from "typescript";
import { LiterateError, error, type Diagnostic } from "../core/diagnostics.ts";
import type { LiterateBlock, ScanMode } from "../core/document.ts";
import { pushAt, valueAt } from "../core/maps.ts";
import { isTypeScriptPath } from "../core/paths.ts";
import { ProjectModel } from "../core/project.ts";
import type { TangleResult } from "../core/tangle.ts";
import { verifyProject, type VerifyReport } from "../commands/verify.ts";
import { listDocuments, readDocument, readIfExists, writeAtomically } from "../disk/io.ts";
import { apiFolder, buildApi, type ApiResult } from "./api.ts";
import { writeAssets, writeSearchIndex } from "./assets.ts";
import { attributeTests, loadAttribution, type AttributionMemory } from "./attribution.ts";
import { cachedPath, hashParts, linkTree, mapCache, pruneCache, readCachedJson, replaceCachedJson, storeCachedFolder, throughCache, treeFingerprint, writeCached, type MapCache } from "./cache.ts";
import { plainTokens, type CodeToken } from "./code-html.ts";
import { findErrorSites, type ErrorSite } from "./errors-index.ts";
import { notFoundPath, renderBookPage, renderNotFoundPage, sitemapXml, type BookSection } from "./extra-pages.ts";
import { codeTheme, createTokenizer, highlightOnWorker, type CodeToHighlight, type Tokenize } from "./highlight.ts";
import { lineAnchor, sourcePath } from "./html.ts";
import { fillChapterList } from "./layout.ts";
import { buildModel, type DocsModel } from "./model.ts";
import { chapterLinks, renderChapterPage, renderIndexPage, renderSourcePage, sourceLanguage, withoutInlineSourceMap, type IndexedError, type PageContext, type RenderedPage } from "./pages.ts";
import { buildSearchIndexes, type SearchEntry } from "./search.ts";
import { crossReference, crossReferenceChanged, readCompilerOptions, xrefMemory, type XrefMemory, type XrefResult } from "./xref.ts";

/** Options of a build. */
export interface DocsOptions {
  readonly root: string;
  /** The site folder (default `site` under the root). */
  readonly out?: string;
  /** Read verify's report from this JSON file (`npm run verify -- --json > FILE`) instead of verifying in-process. */
  readonly verifyJson?: string;
  /** The judge's report as the caller already holds it (`npm run dev` sends it to its docs worker): neither read nor computed. */
  readonly verifyReport?: VerifyReport;
  /** Every document's text as the caller holds it (path → text): none is read from disk. */
  readonly documents?: ReadonlyMap<string, string>;
  /** API entry points (project-relative); default: `generated/index.ts`, else every tangled `generated/*.ts`. */
  readonly apiEntryPoints?: readonly string[];
  /** Skip the API reference (faster; for previews and benchmarks of the rest). */
  readonly api?: boolean;
  /** One line per step and per document. */
  readonly progress?: (line: string) => void;
  /** Use and fill the content-hash caches under `.cache/docs/` (default true; false for a cold build). */
  readonly cache?: boolean;
  /** What a process that builds more than once keeps between its builds (`docsMemory()`); same root and options each time. */
  readonly memory?: DocsMemory;
  /**
   * With `memory` holding a previous build: resolve identifiers again only in the tangled files
   * that changed since (`crossReferenceChanged`, approximate elsewhere), for a preview within
   * seconds; such cross-references are never written to the cache. Default false: all of them.
   */
  readonly quick?: boolean;
  /**
   * Where each chapter's "Edit this page" points: this prefix and the document's
   * repository-relative path (`https://github.com/OWNER/REPO/edit/main/` + `literate/loop.md`).
   * Absent, it points at the copy of the Markdown the site keeps at that same path.
   */
  readonly editBase?: string;
  /** The address the site is published at, for the sitemap's absolute URLs; absent, `sitemap.xml` lists site-relative paths. */
  readonly siteUrl?: string;
}

/**
 * The state a long-lived builder (`npm run dev`'s docs worker) keeps in memory between builds:
 * the last TypeScript program, so cross-references reparse only the changed files, and the
 * loaded highlighter. Neither is worth keeping in a one-shot build.
 */
export interface DocsMemory {
  readonly xref: XrefMemory;
  /** The last cross-references, the key and text of the sources they are of, and whether they are exact (not `quick`). */
  last?: { readonly key: string; readonly xref: XrefResult; readonly files: ReadonlyMap<string, string>; readonly exact: boolean };
  tokenizer?: Promise<Tokenize>;
  /** The highlight cache as the last build left it, instead of reading its file again. */
  highlighted?: Record<string, CodeToken[][]>;
  /** The project as the last build (or `prepareDocs`) read it: a build parses again only the documents that changed. */
  project?: ProjectModel;
  /** The syntax trees the error index was found in, by file: a build parses again only the files that changed. */
  readonly errorTrees?: Map<string, ts.SourceFile>;
  /** The function lines of each tangled file the test attribution read, by its text: a build parses again only the files that changed. */
  readonly attribution?: AttributionMemory;
  /** The whole-book page's chapter sections, by their chapter page's key: a build renders again only the changed chapters' sections. */
  readonly bookSections?: Map<string, BookSection>;
  /** The site folder the last build wrote, with the key of each file's content and the search index's name: the next build writes only what changed. */
  site?: { readonly out: string; readonly keys: ReadonlyMap<string, string>; readonly searchName: string };
}

/** Empty memory for the first of several builds. */
export function docsMemory(): DocsMemory {
  return { xref: xrefMemory(), errorTrees: new Map(), attribution: new Map(), bookSections: new Map() };
}

/**
 * Computes the cross-references of the documents as they are on disk into `memory`, ahead of the
 * build that will need them: `npm run dev` asks for it on a save, while its own cycle judges the
 * save, so the build after the verdict finds the slowest step done. Does nothing when the
 * documents do not tangle (the build will say why).
 */
export function prepareDocs(options: Pick<DocsOptions, "root" | "cache" | "quick" | "documents"> & { readonly memory: DocsMemory }): void {
  const { root, memory } = options;
  const { tangled } = readProjectStep(root, memory.project?.scan ?? "auto", memory, options.documents);
  if (tangled.ok) crossReferenceStep(root, typeScriptFiles(tangled), options.cache !== false, docsCodeVersion(), memory, options.quick === true);
}

/** The tangled TypeScript files by path, without their inline source maps. */
function typeScriptFiles(tangled: TangleResult): Map<string, string> {
  return new Map(tangled.targets.filter((t) => isTypeScriptPath(t.path)).map((t) => [t.path, withoutInlineSourceMap(t.content).code]));
}

/**
 * Step 3: the cross-references of `tsFiles`, keyed by everything they depend on: from `memory` when it
 * holds this key's (exact ones, unless `quick`), else from the cache, else (`quick`, with a
 * previous build in memory) for the changed files only, else from one program (then cached).
 * Kept in memory when there is one.
 */
function crossReferenceStep(root: string, tsFiles: ReadonlyMap<string, string>, useCache: boolean, codeVersion: string, memory: DocsMemory | undefined, quick: boolean): { xref: XrefResult; sourcesKey: string; from: "memory" | "cache" | "program" | "changed files" } {
  const compilerOptions = readCompilerOptions(root);
  const sourcesKey = hashParts([ts.version, codeVersion, JSON.stringify(compilerOptions), lockStamp(root), ...[...tsFiles].flat()]);
  const last = memory?.last;
  if (last?.key === sourcesKey && (last.exact || quick)) return { xref: last.xref, sourcesKey, from: "memory" };
  const xrefName = `xref-${sourcesKey}.json`;
  const cachedXref = useCache ? readCachedJson<Pick<XrefResult, "symbols" | "occurrences">>(root, xrefName) : undefined;
  let xref: XrefResult;
  let from: "cache" | "program" | "changed files" = "cache";
  if (cachedXref !== undefined) xref = { symbols: cachedXref.symbols, occurrences: cachedXref.occurrences, milliseconds: 0 };
  else if (quick && memory !== undefined && last !== undefined) {
    from = "changed files";
    xref = crossReferenceChanged(root, tsFiles, compilerOptions, memory.xref, last.xref, last.files);
  } else {
    from = "program";
    xref = crossReference(root, tsFiles, compilerOptions, memory?.xref);
    if (useCache) replaceCachedJson(root, "xref", xrefName, { symbols: xref.symbols, occurrences: xref.occurrences });
  }
  if (memory !== undefined) memory.last = { key: sourcesKey, xref, files: tsFiles, exact: from !== "changed files" };
  return { xref, sourcesKey, from };
}

/** What a build did, with the time each step took. */
export interface DocsResult {
  readonly ok: boolean;
  readonly out: string;
  readonly pages: number;
  readonly problems: readonly Diagnostic[];
  readonly api?: Pick<ApiResult, "entryPoints" | "strict" | "problems">;
  readonly timings: Readonly<Record<"tangle" | "verify" | "xref" | "api" | "render" | "write" | "total", number>>;
  /** The steps whose result came from the cache (`verify`, `xref`, `api`) and the share of highlighted blocks that did. */
  readonly cached: { readonly steps: readonly string[]; readonly highlighted: number; readonly highlightedFromCache: number; readonly pages: number };
  /** How many of the code texts not in the cache were highlighted ahead, on a second thread (a cold build's). */
  readonly highlightedAhead: number;
  /** The site paths of the pages this build rendered (not copied from the page cache): the pages that may have changed. */
  readonly rendered: readonly string[];
  readonly model: DocsModel;
}

const description = "An AI-agent harness written as a literate program: every chapter below is prose and verified code, cross-referenced by one TypeScript program.";

/**
 * Builds the site. Throws `LiterateError` when the documents do not tangle or verify cannot run.
 * A sequence of named steps, each a function below with its inputs, outputs and cache explicit;
 * the project is read and tangled once, by the first, and every later step reads that model.
 */
export async function buildDocs(options: DocsOptions): Promise<DocsResult> {
  const started = performance.now();
  const progress = options.progress ?? (() => {});
  const { root, memory } = options;
  const out = options.out ?? join(root, "site");
  const siteTitle = "Passepartout";
  const useCache = options.cache !== false;
  const codeVersion = docsCodeVersion();
  const cachedSteps: string[] = [];
  const timed = async <T>(step: () => T | Promise<T>): Promise<{ value: T; ms: number }> => {
    const t0 = performance.now();
    const value = await step();
    return { value, ms: performance.now() - t0 };
  };

  // Which verify report the build takes decides how the documents are scanned: running verify needs remark's prose facts.
  const known = await timed(() => knownReport(root, options, useCache));
  const read = await timed(() => readProjectStep(root, known.value.report === undefined ? "remark" : "auto", memory, options.documents));
  const { model: project, texts, tangled } = read.value;
  if (!tangled.ok) throw new LiterateError(tangled.diagnostics);
  progress(`docs: ${texts.size} documents, ${tangled.blocks.length} blocks, ${tangled.targets.length} tangled files`);

  const early = earlyHighlightStep(root, tangled, codeVersion, memory, useCache);

  // Step 2: verify's report. A run is verify in-process over the build's own model (`npm run
  // verify` is the same function, so the cached report is exactly what it would print), then cached.
  const verified = await timed(() => known.value.report ?? verifyProject({ root, model: project }));
  const report = verified.value;
  if (known.value.cacheName !== undefined) replaceCachedJson(root, "verify", known.value.cacheName, report);
  if (known.value.cached) cachedSteps.push("verify");
  const tVerify = known.ms + verified.ms;
  progress(`docs: verify ${report.ok ? "PASS" : `FAIL (${report.problems.length} problems)`} in ${Math.round(tVerify)} ms${known.value.cached ? " (cached report of this tree)" : ""}`);

  // The inline source map on a target's last line is for machines: no program, highlighter or page reads it.
  const tsFiles = typeScriptFiles(tangled);
  const referenced = await timed(() => crossReferenceStep(root, tsFiles, useCache, codeVersion, memory, options.quick === true));
  const { xref, sourcesKey, from } = referenced.value;
  if (from === "memory" || from === "cache") cachedSteps.push("xref");
  progress(`docs: cross-references: ${xref.occurrences.length} identifiers, ${xref.symbols.length} symbols, one program, ${Math.round(referenced.ms)} ms${from === "program" ? "" : from === "changed files" ? " (the changed files only)" : ` (${from === "memory" ? "prepared" : "cached"} for these sources)`}`);

  const staging = `${out}.tmp-build-${process.pid}`;
  const apiStarted = performance.now();
  const tests = attributeTests(root, tangled, loadAttribution(root), memory?.attribution);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  let api: ApiResult | undefined;
  if (options.api !== false) {
    const built = await apiStep(root, staging, tangled, xref, sourcesKey, useCache, options.apiEntryPoints);
    api = built.api;
    if (built.cached) cachedSteps.push("api");
    progress(`docs: API reference: ${api.entryPoints.length} entry point(s), ${api.pages.size} blocks linked, ${api.problems.length} warning(s)${api.strict ? "" : " (not fatal without generated/index.ts)"}, ${Math.round(api.milliseconds)} ms`);
  }
  const problems: Diagnostic[] = api === undefined ? [] : apiProblemsOf(api, tangled);
  const tApi = performance.now() - apiStarted;

  const copied = new Map<string, string>();
  const rendering = await timed(async () => {
    const model = buildModel({ tangle: tangled, report, xref, tests, ...(api === undefined ? {} : { api }), texts });
    const errorSites = errorSitesStep(root, tangled, tsFiles, codeVersion, useCache, memory);
    // The files with a source page: every tangled file, and every other file an error is raised in (tangled ones from memory).
    const sourceFiles = new Set([...tangled.targets.map((t) => t.path), ...errorSites.filter((s) => !tsFiles.has(s.file)).map((s) => s.file)]);
    const sources = new Map([...sourceFiles].map((file) => [file, tangled.files.get(file) ?? readIfExists(join(root, file)) ?? ""]));
    const paths = [...texts.keys()];
    const keys = useCache ? pageKeys(model, codeVersion, { siteTitle, sourceFiles, paths, texts, api: api !== undefined, editBase: options.editBase ?? "" }) : undefined;
    const jobs = pageJobs(root, model, texts, sources, keys, copied);
    const highlighting = await highlightStep(root, jobs, codeVersion, memory, useCache, early);
    const trees = mapCache<MdastRoot>(root, markdownCacheName, useCache);
    const parsed = { get: (markdown: string) => trees.get(hashParts([markdown])), set: (markdown: string, tree: MdastRoot) => trees.set(hashParts([markdown]), tree) };
    const ctx: PageContext = { model, tokenize: highlighting.tokenize, siteTitle, sourcePages: sourceFiles, documents: new Set(paths), parsed, deferChapterList: true, ...(options.editBase === undefined ? {} : { editBase: options.editBase }) };
    const { pages, fresh } = renderStep(ctx, jobs, highlighting.unpredicted, progress);
    const errors = indexErrors(model, tangled, errorSites);
    pages.push(renderIndexPage(ctx, { errors, globalProblems: report.problems.filter((p) => !report.blocks.some((b) => b.problems.includes(p)) && p.line === 0), apiProblems: (api?.problems ?? []).map((p) => p.message), apiStrict: api?.strict ?? false, generatedFiles: [...sourceFiles].sort(), description }));
    const bookSections = memory?.bookSections;
    pages.push(renderNotFoundPage(ctx), renderBookPage(ctx, texts, bookSections === undefined ? undefined : { keys: jobs.slice(0, model.chapters.length).map((job) => job.key), memo: bookSections }));
    if (memory !== undefined && highlighting.rendered > 0) memory.highlighted = Object.fromEntries(highlighting.cache.used);
    if (useCache) storeRenderCachesStep(root, jobs, fresh, { highlighted: highlighting.cache, trees }, options.quick === true);
    return { model, pages, sources, highlighting, errors };
  });
  const { model, pages, sources, highlighting, errors } = rendering.value;
  progress(`docs: rendered ${pages.length} pages (${model.chapters.length} chapters, ${sources.size} source files, index) in ${Math.round(rendering.ms)} ms; ${copied.size} pages and ${highlighting.rendered - highlighting.misses} of ${highlighting.rendered} highlighted code texts from the cache${highlighting.ahead > 0 ? `, ${highlighting.ahead} highlighted ahead on a second thread` : ""}`);

  const written = await timed(() => writeSiteStep(root, { model, pages, errors, texts, copied, siteUrl: options.siteUrl }, { staging, out, inPlace: api === undefined }, useCache, memory));

  const total = performance.now() - started;
  progress(`docs: wrote ${out} in ${Math.round(total)} ms${problems.length > 0 ? `; ${problems.length} problem(s)` : ""}`);
  return {
    ok: problems.length === 0,
    out,
    pages: pages.length,
    problems,
    ...(api === undefined ? {} : { api }),
    timings: { tangle: read.ms, verify: tVerify, xref: referenced.ms, api: tApi, render: rendering.ms, write: written.ms, total },
    cached: { steps: cachedSteps, highlighted: highlighting.rendered, highlightedFromCache: highlighting.rendered - highlighting.misses, pages: copied.size },
    highlightedAhead: highlighting.ahead,
    rendered: pages.filter((page) => !copied.has(page.path)).map((page) => page.path),
    model,
  };
}

/**
 * Step 1: the documents, read as tangle reads them (a document that is not UTF-8 is an error at
 * its byte, not U+FFFD on a page), into the model `memory` keeps between builds when its scan
 * fits (only the documents that changed are parsed again), and tangled once (its errors are the
 * caller's to report).
 */
function readProjectStep(root: string, scan: ScanMode, memory: DocsMemory | undefined, documents: ReadonlyMap<string, string> | undefined): { model: ProjectModel; texts: Map<string, string>; tangled: TangleResult } {
  const model = memory?.project !== undefined && memory.project.scan === scan ? memory.project : new ProjectModel({ scan });
  // The documents as given (`DocsOptions.documents`), else as read from disk.
  model.sync(documents === undefined ? listDocuments(root).map((path) => ({ path, text: readDocument(root, path) })) : [...documents].map(([path, text]) => ({ path, text })));
  if (memory !== undefined) memory.project = model;
  return { model, texts: model.texts(), tangled: model.tangle() };
}

/**
 * Verify's report of the tree as it is when it needs no run: the caller's, `--verify-json`'s, or
 * the cache's when the tree's fingerprint (every source, document and evidence file's size and
 * time) matches one verify already judged; else none, with the cache entry a run is to fill.
 */
function knownReport(root: string, options: DocsOptions, useCache: boolean): { report?: VerifyReport; cached: boolean; cacheName?: string } {
  if (options.verifyReport !== undefined) return { report: options.verifyReport, cached: false };
  if (options.verifyJson !== undefined) {
    const text = readIfExists(options.verifyJson);
    if (text === undefined) throw new LiterateError([error({ file: options.verifyJson, line: 0, column: 0 }, "docs", `no verify report at \`${options.verifyJson}\``, "write one with `npm run verify -- --json > FILE`, or leave out `--verify-json`")]);
    return { report: JSON.parse(text) as VerifyReport, cached: false };
  }
  if (!useCache) return { cached: false };
  const cacheName = `verify-${treeFingerprint(root)}.json`;
  const report = readCachedJson<VerifyReport>(root, cacheName);
  return report === undefined ? { cached: false, cacheName } : { report, cached: true };
}

/**
 * Step 4: the API reference, written into `staging`: from the cache when its key (the sources,
 * the entry and where each line's block is) was built before, else by typedoc (then cached).
 */
async function apiStep(root: string, staging: string, tangled: TangleResult, xref: XrefResult, sourcesKey: string, useCache: boolean, entryPoints: readonly string[] | undefined): Promise<{ api: ApiResult; cached: boolean }> {
  const key = hashParts([sourcesKey, typedocVersion, JSON.stringify(entryPoints ?? null), JSON.stringify(tangled.blocks.map((b) => [b.doc, b.index])), ...tangled.targets.map((t) => t.lineBlock.join(","))]);
  const restored = useCache ? restoreApi(root, key, staging) : undefined;
  if (restored !== undefined) return { api: restored, cached: true };
  const api = await buildApi(root, staging, entryPoints, tangled, xref.program);
  if (useCache) storeApi(root, key, staging, api);
  return { api, cached: false };
}

/** The build's problems from the API reference: an undocumented export fails the build only when the entry is strict. */
function apiProblemsOf(api: ApiResult, tangled: TangleResult): Diagnostic[] {
  if (!api.strict) return [];
  return api.problems.map((p) => {
    const block = p.block === undefined ? undefined : tangled.blocks[p.block];
    const at = block === undefined ? { file: api.entryPoints.join(", "), line: 0, column: 0 } : { file: block.doc, line: block.line, column: block.column };
    return error(at, "api", p.message, "give the export a doc comment in its block: typedoc documents the public entry `generated/index.ts`");
  });
}

/** Step 6: the error sites of the harness's and the tools' own sources (tests raise errors on purpose and are left out), cached by their texts. */
function errorSitesStep(root: string, tangled: TangleResult, tsFiles: ReadonlyMap<string, string>, codeVersion: string, useCache: boolean, memory: DocsMemory | undefined): ErrorSite[] {
  const toolFiles = listDocuments(root, "tools", ".ts");
  const errorInputs = [...tangled.targets.filter((t) => tsFiles.has(t.path) && !isTestFile(t.path)).map((t) => ({ file: t.path, text: tsFiles.get(t.path) ?? "" })), ...toolFiles.map((f) => ({ file: f, text: readIfExists(join(root, f)) ?? "" }))];
  return throughCache(root, "errors", hashParts([codeVersion, ...errorInputs.flatMap((f) => [f.file, f.text])]), useCache, () => findErrorSites(errorInputs, memory?.errorTrees)).value;
}

/** A chapter or source page: its cache key, the code it shows (known from the model before rendering), and how to render it. */
interface PageJob {
  readonly key: string | undefined;
  /** The page the cache holds under `key`: its HTML file is copied into the site unread, its headings and sections are for search. */
  readonly cached: RenderedPage | undefined;
  readonly codes: readonly CodeToHighlight[];
  readonly render: (ctx: PageContext) => RenderedPage;
}

/**
 * Step 7: every chapter page, then every source page, with its key (see `pageKeys`) and what
 * the page cache holds under it (each cached page's site path → HTML file into `copied`).
 */
function pageJobs(root: string, model: DocsModel, texts: ReadonlyMap<string, string>, sources: ReadonlyMap<string, string>, keys: ReturnType<typeof pageKeys> | undefined, copied: Map<string, string>): PageJob[] {
  const fromCache = (key: string | undefined): RenderedPage | undefined => {
    if (key === undefined) return undefined;
    const meta = readCachedJson<Omit<RenderedPage, "html">>(root, `${pagesFolder}/${key}.json`);
    const html = cachedPath(root, `${pagesFolder}/${key}.html`);
    if (meta === undefined || statSync(html, { throwIfNoEntry: false }) === undefined) return undefined;
    copied.set(meta.path, html);
    return { ...meta, html: "" };
  };
  const blockCodes = (globals: Iterable<number>): CodeToHighlight[] => [...globals].flatMap((global) => model.blocks[global]?.block ?? []).map(blockCode);
  const targets = new Map(model.targets.map((t) => [t.path, t]));
  const chapters = model.chapters.map((chapter, i): PageJob => {
    const key = keys?.chapters[i];
    return { key, cached: fromCache(key), codes: blockCodes(chapter.blocks), render: (ctx) => renderChapterPage(ctx, chapter, texts.get(chapter.doc) ?? "", i) };
  });
  return chapters.concat(
    [...sources].map(([file, content]): PageJob => {
      const key = keys?.source(file, content);
      const target = targets.get(file);
      // A tangled TypeScript file's page shows its blocks' tokens (`targetTokens`), not its own.
      const codes = target !== undefined && sourceLanguage(file) === "ts" ? blockCodes(new Set(target.lineBlock)) : [sourceCode(file, content)];
      return { key, cached: fromCache(key), codes, render: (ctx) => renderSourcePage(ctx, file, content) };
    }),
  );
}

/**
 * Step 8: highlighted code, cached per (language, code). The code each page shows is known from
 * the model before rendering: the highlighter is loaded once, only when code of a page to render
 * is missing from the cache, and every page is rendered once. The cache keeps exactly the code
 * of this build's pages; it is not read at all when every page comes from the page cache.
 * Hands on the cache, how many code texts the pages to render show, how many of them were not in
 * the cache and how many of those the early thread highlighted, and the pages' `tokenize`, which
 * counts the times a page asked for code the model did not predict (such a page is not cached).
 */
async function highlightStep(root: string, jobs: readonly PageJob[], codeVersion: string, memory: DocsMemory | undefined, useCache: boolean, early: EarlyHighlights | undefined): Promise<{ cache: MapCache<CodeToken[][]>; rendered: number; misses: number; ahead: number; tokenize: Tokenize; unpredicted: () => number }> {
  const tokenKey = (code: string, lang: string): string => highlightKey(codeVersion, code, lang);
  const everyCode = new Set<string>();
  const toRender = new Map<string, CodeToHighlight>();
  for (const job of jobs) {
    for (const piece of job.codes) {
      everyCode.add(tokenKey(piece.code, piece.lang));
      if (job.cached === undefined) toRender.set(tokenKey(piece.code, piece.lang), piece);
    }
  }
  const cache = mapCache<CodeToken[][]>(root, highlightCacheName, useCache, memory?.highlighted);
  let misses = 0;
  let ahead = 0;
  if (toRender.size > 0) {
    for (const key of everyCode) cache.get(key);
    const lacking = [...toRender].filter(([key]) => !cache.used.has(key));
    misses = lacking.length;
    const prepared = lacking.length > 0 && early !== undefined ? await early : undefined;
    const left = lacking.filter(([key]) => {
      const tokens = prepared?.get(key);
      if (tokens !== undefined) cache.set(key, tokens);
      return tokens === undefined;
    });
    ahead = lacking.length - left.length;
    if (left.length > 0) {
      const highlight = await (memory === undefined ? createTokenizer() : (memory.tokenizer ??= createTokenizer()));
      for (const [key, { code, lang }] of left) cache.set(key, highlight(code, lang));
    }
  }
  // A page asking for code the model did not predict gets plain text and is not cached.
  let unpredicted = 0;
  const tokenize = (code: string, lang: string): CodeToken[][] => {
    const tokens = cache.used.get(tokenKey(code, lang));
    if (tokens !== undefined) return tokens;
    unpredicted++;
    return plainTokens(code);
  };
  return { cache, rendered: toRender.size, misses, ahead, tokenize, unpredicted: () => unpredicted };
}

/**
 * Step 9: every chapter and source page, from the page cache or rendered (one progress line
 * per chapter). A rendered page is kept for the page cache (`fresh`, by key) unless it showed unpredicted code.
 */
function renderStep(ctx: PageContext, jobs: readonly PageJob[], unpredicted: () => number, progress: (line: string) => void): { pages: RenderedPage[]; fresh: Map<string, RenderedPage> } {
  const fresh = new Map<string, RenderedPage>();
  const pages = jobs.map((job, i) => {
    const t0 = performance.now();
    const before = unpredicted();
    const page = job.cached ?? job.render(ctx);
    if (job.cached === undefined && job.key !== undefined && unpredicted() === before) fresh.set(job.key, page);
    const chapter = ctx.model.chapters[i];
    const s = chapter?.summary;
    if (chapter !== undefined) progress(`docs: [${i + 1}/${ctx.model.chapters.length}] ${chapter.doc} → ${page.path} (${chapter.blocks.length} blocks${s === undefined ? "" : `, ${s.tested}/${s.definitions - s.typeOnly} tested, ${s.problems} problem(s)`}) ${Math.round(performance.now() - t0)} ms`);
    return page;
  });
  return { pages, fresh };
}

/**
 * Step 10: what rendering leaves in the caches. Each cache keeps only what this build used: the
 * code of every page, the Markdown trees parsed or read, the pages whose keys are live.
 */
function storeRenderCachesStep(root: string, jobs: readonly PageJob[], fresh: ReadonlyMap<string, RenderedPage>, maps: { readonly highlighted: MapCache<CodeToken[][]>; readonly trees: MapCache<MdastRoot> }, quick: boolean): void {
  // A quick build leaves the highlight file (megabytes of JSON) to the exact build after it.
  if (!quick && maps.highlighted.changed()) writeCached(root, highlightCacheName, Object.fromEntries(maps.highlighted.used));
  if (maps.trees.changed()) writeCached(root, markdownCacheName, Object.fromEntries(maps.trees.used));
  for (const [key, page] of fresh) {
    writeCached(root, `${pagesFolder}/${key}.html`, page.html);
    writeCached(root, `${pagesFolder}/${key}.json`, { path: page.path, headings: page.headings, sections: page.sections });
  }
  const live = new Set(jobs.flatMap((job) => (job.key === undefined ? [] : [`${job.key}.json`, `${job.key}.html`])));
  pruneCache(root, (name) => !live.has(name), pagesFolder);
}

/** The key a highlighted piece of code is cached under. */
const highlightKey = (codeVersion: string, code: string, lang: string): string => hashParts([codeVersion, codeTheme, lang, code]);

/** The code of a block, as its chapter shows it. */
const blockCode = (block: LiterateBlock): CodeToHighlight => ({ code: block.lines.join("\n"), lang: block.lang });

/** The code a source page shows of a file: without its inline source map and its last newline. */
function sourceCode(file: string, content: string): CodeToHighlight {
  const code = withoutInlineSourceMap(content).code;
  return { code: code.endsWith("\n") ? code.slice(0, -1) : code, lang: sourceLanguage(file) };
}

/** Tokens highlighted ahead of the highlighting step, by `highlightKey`; `undefined` if the thread failed. */
type EarlyHighlights = Promise<ReadonlyMap<string, CodeToken[][]> | undefined>;

/**
 * Step 2b, on a cold build only (no highlight cache, no earlier build in memory), when every
 * block is to be highlighted: highlighting starts now on a worker thread, the pieces predicted
 * from the tangle (each block, each tangled file that is not TypeScript), while this thread
 * resolves identifiers and builds the API. The highlighting step takes what it finds there and
 * highlights anything else itself. A thread that fails leaves its work to that step, which
 * reports any real error itself.
 */
function earlyHighlightStep(root: string, tangled: TangleResult, codeVersion: string, memory: DocsMemory | undefined, useCache: boolean): EarlyHighlights | undefined {
  if (memory?.highlighted !== undefined || memory?.tokenizer !== undefined) return undefined;
  if (useCache && statSync(cachedPath(root, highlightCacheName), { throwIfNoEntry: false }) !== undefined) return undefined;
  const predicted = [...tangled.blocks.map(blockCode), ...tangled.targets.filter((t) => sourceLanguage(t.path) !== "ts").map((t) => sourceCode(t.path, t.content))];
  const pieces = new Map(predicted.map((piece) => [highlightKey(codeVersion, piece.code, piece.lang), piece]));
  const keys = [...pieces.keys()];
  return highlightOnWorker([...pieces.values()]).then(
    (tokens) => new Map(keys.map((key, i) => [key, tokens[i] ?? []])),
    () => undefined,
  );
}

/**
 * Step 11: the site, written into `staging` (pages, the search index, cached by its entries, and
 * the assets) and swapped in: the old site is renamed aside and removed in the background, so
 * the swap itself is two renames. A build that keeps `memory` and builds no API reference (`npm
 * run dev`'s worker) writes the folder the last build left in place instead, only the files
 * whose content the last build made from other inputs (each by a rename, so a file is never
 * served half-written): a one-block edit rewrote every page of the site, 27 MB, about 0.45 s.
 */
function writeSiteStep(root: string, site: { readonly model: DocsModel; readonly pages: readonly RenderedPage[]; readonly errors: readonly IndexedError[]; readonly texts: ReadonlyMap<string, string>; readonly copied: ReadonlyMap<string, string>; readonly siteUrl: string | undefined }, target: { readonly staging: string; readonly out: string; readonly inPlace: boolean }, useCache: boolean, memory: DocsMemory | undefined): void {
  const { model, pages } = site;
  const { staging, out } = target;
  // Pages are rendered and cached without the sidebar's chapter list, whose statuses change with
  // any chapter's verdict: it is filled in here, so a status change re-renders no page.
  const links = chapterLinks(model);
  const linksKey = hashParts([JSON.stringify(links)]);
  /** Each file of the site but the assets: the key of what it is made from, and how to make it. */
  const files = new Map<string, { readonly key: string; readonly content: () => string }>();
  for (const page of pages) {
    const from = site.copied.get(page.path);
    files.set(page.path, { key: `${from ?? hashParts([page.html])} ${linksKey}`, content: () => fillChapterList(from === undefined ? page.html : readFileSync(from, "utf8"), page.path, links) });
  }
  // The Markdown each chapter is written in, at its repository-relative path: "Edit this page" without an edit URL.
  for (const [doc, text] of site.texts) files.set(doc, { key: hashParts([text]), content: () => text });
  const sitemap = sitemapXml(pages.map((p) => p.path).filter((p) => p !== notFoundPath), site.siteUrl);
  files.set("sitemap.xml", { key: hashParts([sitemap]), content: () => sitemap });
  const entries = searchEntries(model, pages, site.errors);
  const searchName = hashParts([JSON.stringify(entries)]);
  const searchIndex = throughCache(root, "search", searchName, useCache, () => buildSearchIndexes(entries)).value;
  const keys = new Map([...files].map(([path, file]) => [path, file.key]));
  const last = memory?.site;
  if (target.inPlace && last !== undefined && last.out === out && statSync(out, { throwIfNoEntry: false })?.isDirectory() === true) {
    rmSync(staging, { recursive: true, force: true });
    for (const [path, file] of files) {
      if (last.keys.get(path) !== file.key) writeAtomically(join(out, path), file.content(), () => {});
    }
    for (const path of last.keys.keys()) if (!files.has(path)) rmSync(join(out, path), { force: true });
    if (last.searchName !== searchName) writeSearchIndex(out, searchIndex);
  } else {
    for (const [path, file] of files) {
      mkdirSync(dirname(join(staging, path)), { recursive: true });
      writeFileSync(join(staging, path), file.content());
    }
    writeAssets(staging, searchIndex);
    swapIn(staging, out);
  }
  if (memory !== undefined) memory.site = { out, keys, searchName };
}

/** Puts the site built in `staging` at `out`: the old one renamed aside and removed. */
function swapIn(staging: string, out: string): void {
  const old = `${out}.tmp-old-${process.pid}-${Date.now()}`;
  try {
    renameSync(out, old);
  } catch {
    // No previous site.
  }
  renameSync(staging, out);
  // Removed before returning: a removal left running when the CLI exits left the old site behind,
  // one copy per build. An old site a killed build left is removed too.
  for (const name of readdirSync(dirname(out))) {
    if (name.startsWith(`${basename(out)}.tmp-old-`)) rmSync(join(dirname(out), name), { recursive: true, force: true });
  }
}

/** Links each error site: inside tangled code to its block, elsewhere to its source line. */
function indexErrors(model: DocsModel, tangled: TangleResult, sites: readonly ErrorSite[]): IndexedError[] {
  const targets = new Map(tangled.targets.map((t) => [t.path, t]));
  const indexed = sites.map((site): IndexedError => {
    const target = targets.get(site.file);
    const block = target?.lineBlock[site.line - 1] ?? -1;
    const b = model.blocks[block];
    if (target !== undefined && b !== undefined) {
      return { ...site, href: b.href, where: `${b.block.doc}:${target.lineSource[site.line - 1] ?? b.block.line}` };
    }
    return { ...site, href: `${sourcePath(site.file)}#${lineAnchor(site.line)}`, where: `${site.file}:${site.line}` };
  });
  return indexed.sort((a, b) => a.label.localeCompare(b.label, "en", { sensitivity: "base" }) || a.message.localeCompare(b.message, "en", { sensitivity: "base" }) || a.where.localeCompare(b.where));
}

/**
 * Search entries, one per thing a reader looks for and never two for one place: each chapter
 * (its title, with the prose before its first section), each section (its heading with the prose
 * under it), each definition, each error message the code can raise, and each API page.
 */
function searchEntries(model: DocsModel, pages: readonly RenderedPage[], errors: readonly IndexedError[]): SearchEntry[] {
  const entries: SearchEntry[] = [];
  const add = (entry: Omit<SearchEntry, "id">): void => {
    entries.push({ id: entries.length, ...entry });
  };
  for (const page of pages) {
    const chapter = model.chapters.find((c) => c.path === page.path);
    if (chapter === undefined) continue;
    const title = page.headings.find((h) => h.depth === 1);
    const textOf = (id: string): string => page.sections.filter((s) => s.id === id).map((s) => s.text).join(" ");
    const intro = [textOf(""), title === undefined ? "" : textOf(title.id)].join(" ").trim() || (chapter.description ?? "");
    add({ kind: "chapter", title: chapter.title, text: intro, href: page.path, chapter: chapter.title, snippet: snippetOf(chapter.description ?? intro) });
    for (const h of page.headings) {
      if (h.depth === 1 || h.id === "") continue;
      const text = textOf(h.id);
      add({ kind: "section", title: h.text, text, href: `${page.path}#${h.id}`, chapter: chapter.title, ...(text === "" ? {} : { snippet: snippetOf(text) }) });
    }
  }
  for (const d of model.definitions) {
    const b = model.blocks[d.block];
    const chapter = model.chapters.find((c) => c.doc === b?.block.doc);
    if (b === undefined || chapter === undefined) continue;
    const first = b.block.lines.find((l) => l.trim() !== "" && !/^\s*(\/\/|\/\*|\*)/.test(l))?.trim() ?? "";
    add({ kind: "definition", title: d.name, text: b.block.attrs.name ?? "", href: b.href, chapter: chapter.title, snippet: snippetOf(first) });
    if (b.apiHref !== undefined) add({ kind: "api", title: d.name, text: "", href: b.apiHref, chapter: "API reference", snippet: `the API page of ${d.name}` });
  }
  for (const e of errors) add({ kind: "error", title: e.message, text: e.label, href: e.href ?? "index.html#errors", chapter: e.label, snippet: e.where });
  return entries;
}

const highlightCacheName = "highlight.json";
const markdownCacheName = "markdown.json";
const pagesFolder = "pages";

/**
 * The cache key of every chapter and source page: a hash of everything the page shows. Shared by
 * all pages: the sidebar (chapter titles, order and status), the site title, which files have
 * source pages, whether there is an API, and this library's code. Per page: its Markdown or
 * source text, its blocks (code, verify's report, tests, identifiers with their symbol numbers and
 * hover text, API links) and what it says about the blocks it links to (label, chapter, line).
 * Conservative by design: a change that might show on a page changes its key.
 */
function pageKeys(model: DocsModel, codeVersion: string, input: { siteTitle: string; sourceFiles: ReadonlySet<string>; paths: readonly string[]; texts: ReadonlyMap<string, string>; api: boolean; editBase: string }): { chapters: string[]; source: (file: string, content: string) => string } {
  const shared = hashParts([codeVersion, input.siteTitle, String(input.api), input.editBase, JSON.stringify(chapterLinks(model).map((link) => [link.title, link.path])), JSON.stringify(model.chapters.map((c) => [c.doc, c.title, c.description ?? ""])), JSON.stringify([...input.sourceFiles]), JSON.stringify(input.paths)]);
  const symbols = model.xref.symbols;
  // What pages say of other blocks and of symbols is hashed once per page that shows it (a block
  // much used is linked from most of a chapter's blocks), and each is made once per build.
  const abouts = new Map<number, string>();
  const about = (g: number): string =>
    valueAt(abouts, g, () => {
      const r = model.blocks[g];
      return r === undefined ? "" : JSON.stringify([r.href, r.block.doc, r.block.line, r.block.attrs, r.block.lang, r.report?.names ?? [], r.report?.kind ?? "", r.tests]);
    });
  const symbolTexts = new Map<number, string>();
  const symbolText = (i: number): string => valueAt(symbolTexts, i, () => JSON.stringify([i, symbols[i] ?? null]));
  /** A block's own facts, its identifiers compact; the blocks it links to and the symbols it names go into `linked` and `named`. */
  const blockFacts = (g: number, linked: Set<number>, named: Set<number>): string => {
    const b = model.blocks[g];
    if (b === undefined) return "";
    for (const l of [...b.usedBy, ...b.splicedInto, ...b.chunkRefs.flatMap((c) => c.blocks)]) linked.add(l);
    for (const i of b.identifiers) {
      named.add(i.symbol);
      if (i.definedIn !== undefined) linked.add(i.definedIn);
    }
    const identifiers = b.identifiers.map((i) => [i.line, i.column, i.length, i.symbol, i.isDefinition ? 1 : 0, i.definedIn ?? -1]);
    return JSON.stringify({ ...b, block: shownBlock(b.block), identifiers });
  };
  // A chapter's summary shows on its own page only (the sidebar's statuses are filled in at write time).
  const chapters = model.chapters.map((c, i) => {
    const linked = new Set<number>();
    const named = new Set<number>();
    const facts = c.blocks.map((g) => blockFacts(g, linked, named));
    const linkedFacts = [...linked].sort((a, b) => a - b).map((g) => `${g} ${about(g)}`);
    const hovers = [...named].sort((a, b) => a - b).map((s) => `${s} ${symbols[s]?.hover ?? ""}`);
    return hashParts([shared, "chapter", String(i), JSON.stringify(c.summary ?? null), input.texts.get(c.doc) ?? "", ...facts, ...linkedFacts, ...hovers]);
  });
  const occurrencesByFile = new Map<string, XrefResult["occurrences"][number][]>();
  for (const o of model.xref.occurrences) pushAt(occurrencesByFile, o.file, o);
  const targets = new Map(model.targets.map((t) => [t.path, t]));
  const source = (file: string, content: string): string => {
    const target = targets.get(file);
    if (target === undefined) return hashParts([shared, "source", file, content]);
    const occurrences = occurrencesByFile.get(file) ?? [];
    const compact = occurrences.map((o) => [o.line, o.character, o.length, o.symbol, o.isDefinition ? 1 : 0]);
    const used = [...new Set(occurrences.map((o) => o.symbol))].map(symbolText);
    const blocks = [...new Set(target.lineBlock)].map(about);
    return hashParts([shared, "source", file, content, JSON.stringify(compact), JSON.stringify([target.lineBlock, target.lineSource, target.sources]), ...used, ...blocks]);
  };
  return { chapters, source };
}

/**
 * A block as its page shows it, for a page key: without what only one of the two scanners
 * records (the fast scanner's `verbatim` text, remark's prose facts), so a page's key is the same
 * whether the build scanned with remark (to run verify) or not.
 */
function shownBlock(block: LiterateBlock): Omit<LiterateBlock, "verbatim" | "proseBefore" | "prose"> {
  const { verbatim: _verbatim, proseBefore: _proseBefore, prose: _prose, ...shown } = block;
  return shown;
}

const typedocVersion = (createRequire(import.meta.url)("typedoc/package.json") as { version: string }).version;

/** A hash of the docs library's own code: a change to how a step computes invalidates its cache. */
function docsCodeVersion(): string {
  const dir = dirname(fileURLToPath(import.meta.url));
  const files = readdirSync(dir).filter((f) => f.endsWith(".ts")).sort();
  return hashParts(files.flatMap((f) => [f, readIfExists(join(dir, f)) ?? ""]));
}

/** The stat of the lock file: a dependency upgrade changes library types, hence hovers and API pages. */
function lockStamp(root: string): string {
  const stat = statSync(join(root, "package-lock.json"), { throwIfNoEntry: false });
  return stat === undefined ? "" : `${stat.size}:${stat.mtimeMs}`;
}

/** An API result as its cache entry keeps it: the pages by block as a list of pairs. */
type CachedApi = Pick<ApiResult, "entryPoints" | "strict" | "problems"> & { readonly pages: readonly (readonly [number, string])[] };

/** The API pages and result cached under `key`, linked into the staging site. */
function restoreApi(root: string, key: string, staging: string): ApiResult | undefined {
  const started = performance.now();
  const meta = readCachedJson<CachedApi>(root, `api-${key}.json`);
  const folder = cachedPath(root, `api-${key}`);
  const stored = statSync(folder, { throwIfNoEntry: false })?.isDirectory() === true;
  if (meta === undefined || (!stored && meta.pages.length > 0)) return undefined;
  if (stored) linkTree(folder, join(staging, apiFolder));
  return { entryPoints: meta.entryPoints, strict: meta.strict, problems: meta.problems, pages: new Map(meta.pages), milliseconds: performance.now() - started };
}

function storeApi(root: string, key: string, staging: string, api: ApiResult): void {
  pruneCache(root, (n) => n.startsWith("api-") && n !== `api-${key}`);
  storeCachedFolder(root, `api-${key}`, join(staging, apiFolder));
  writeCached(root, `api-${key}.json`, { entryPoints: api.entryPoints, strict: api.strict, problems: api.problems, pages: [...api.pages] } satisfies CachedApi);
}

/** The first words of a text, for a search hit. */
function snippetOf(text: string, max = 140): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).replace(/\s\S*$/, "")}…`;
}

/** Test files: tangled test blocks and anything under `test/`. */
const isTestFile = (path: string): boolean => path.startsWith("test/") || /\.(test|spec)\.(c|m)?tsx?$/.test(path);

