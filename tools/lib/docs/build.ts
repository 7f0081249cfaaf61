/**
 * `npm run docs`: the whole build, from the documents on disk to a static site.
 *
 * Order of work: read and tangle the documents in memory; take verify's report (run in-process,
 * or read from `verify --json` output); resolve every identifier with one language service;
 * attribute tests to blocks; build the API reference with typedoc; render chapters, source
 * pages and the index (one progress line per document); write the search index and assets.
 * The site is written into a fresh folder beside `out` and swapped in at the end, so a server
 * never shows half a site.
 */
import { mkdirSync, readdirSync, rmSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { LiterateError, error, type Diagnostic } from "../diagnostics.ts";
import { listDocuments, readIfExists } from "../io.ts";
import { tangle, type TangleResult } from "../tangle.ts";
import { verifyProject, type VerifyReport } from "../verify.ts";
import { buildApi, type ApiResult } from "./api.ts";
import { writeAssets } from "./assets.ts";
import { attributeTests, loadAttribution } from "./attribution.ts";
import { findErrorSites, type ErrorSite } from "./errors-index.ts";
import type { CodeToken } from "./code-html.ts";
import { createTokenizer } from "./highlight.ts";
import { lineAnchor, sourcePath } from "./html.ts";
import { buildModel, type DocsModel } from "./model.ts";
import { renderChapterPage, renderIndexPage, renderSourcePage, type IndexedError, type PageContext, type RenderedPage } from "./pages.ts";
import { buildSearchIndex, type SearchEntry } from "./search.ts";
import { crossReference, readCompilerOptions } from "./xref.ts";

/** Options of a build. */
export interface DocsOptions {
  readonly root: string;
  /** The site folder (default `site` under the root). */
  readonly out?: string;
  /** Read verify's report from this JSON file (`npm run verify -- --json > FILE`) instead of verifying in-process. */
  readonly verifyJson?: string;
  /** API entry points (project-relative); default: `generated/index.ts`, else every tangled `generated/*.ts`. */
  readonly apiEntryPoints?: readonly string[];
  /** Whether undocumented exports fail the build; default: when the entry is the public `generated/index.ts`. */
  readonly apiStrict?: boolean;
  /** Skip the API reference (faster; for previews and benchmarks of the rest). */
  readonly api?: boolean;
  /** One line per step and per document. */
  readonly progress?: (line: string) => void;
  readonly siteTitle?: string;
}

/** What a build did, with the time each step took. */
export interface DocsResult {
  readonly ok: boolean;
  readonly out: string;
  readonly pages: number;
  readonly problems: readonly Diagnostic[];
  readonly api?: Pick<ApiResult, "entryPoints" | "strict" | "problems">;
  readonly timings: Readonly<Record<"tangle" | "verify" | "xref" | "api" | "render" | "write" | "total", number>>;
  readonly model: DocsModel;
}

const description = "An AI-agent harness written as a literate program: every chapter below is prose and verified code, cross-referenced by one TypeScript program.";

/** Builds the site. Throws `LiterateError` when the documents do not tangle or verify cannot run. */
export async function buildDocs(options: DocsOptions): Promise<DocsResult> {
  const started = performance.now();
  const progress = options.progress ?? (() => {});
  const { root } = options;
  const out = options.out ?? join(root, "site");
  const siteTitle = options.siteTitle ?? "Passepartout";
  const lap = (() => {
    let last = performance.now();
    return (): number => {
      const now = performance.now();
      const ms = now - last;
      last = now;
      return ms;
    };
  })();

  const paths = listDocuments(root);
  const texts = new Map(paths.map((p) => [p, readIfExists(join(root, p)) ?? ""]));
  // The fast scanner where it is sure: blocks are the same, and verify judges prose itself.
  const tangled = tangle([...texts].map(([path, text]) => ({ path, text })));
  if (!tangled.ok) throw new LiterateError(tangled.diagnostics);
  const tTangle = lap();
  progress(`docs: ${paths.length} documents, ${tangled.blocks.length} blocks, ${tangled.targets.length} tangled files`);

  const report = options.verifyJson === undefined ? verifyProject({ root }) : readReport(options.verifyJson);
  const tVerify = lap();
  progress(`docs: verify ${report.ok ? "PASS" : `FAIL (${report.problems.length} problems)`} in ${Math.round(tVerify)} ms`);

  const tsFiles = new Map(tangled.targets.filter((t) => /\.(c|m)?tsx?$/.test(t.path)).map((t) => [t.path, t.content]));
  const xref = crossReference(root, tsFiles, readCompilerOptions(root));
  const tXref = lap();
  progress(`docs: cross-references: ${xref.occurrences.length} identifiers, ${xref.symbols.length} symbols, one program, ${Math.round(tXref)} ms`);

  const tests = attributeTests(root, tangled, loadAttribution(root));

  const staging = `${out}.tmp-build-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const problems: Diagnostic[] = [];
  let api: ApiResult | undefined;
  if (options.api !== false) {
    api = await buildApi({ root, site: staging, ...(options.apiEntryPoints === undefined ? {} : { entryPoints: options.apiEntryPoints }), ...(options.apiStrict === undefined ? {} : { strict: options.apiStrict }) }, tangled, xref.program);
    progress(`docs: API reference: ${api.entryPoints.length} entry point(s), ${api.pages.size} blocks linked, ${api.problems.length} warning(s)${api.strict ? "" : " (not fatal without generated/index.ts)"}, ${Math.round(api.milliseconds)} ms`);
    if (api.strict) {
      for (const p of api.problems) {
        const block = p.block === undefined ? undefined : tangled.blocks[p.block];
        const at = block === undefined ? { file: api.entryPoints.join(", "), line: 0, column: 0 } : { file: block.doc, line: block.line, column: block.column };
        problems.push(error(at, "api", p.message, "give the export a doc comment in its block: typedoc documents the public entry `generated/index.ts`"));
      }
    }
  }
  const tApi = lap();

  const headings = new Map<string, string>();
  for (const [path, text] of texts) {
    const first = firstHeading(text);
    if (first !== undefined) headings.set(path, first);
  }
  const apiProblems = new Map<number, string[]>();
  for (const p of api?.problems ?? []) if (p.block !== undefined) apiProblems.set(p.block, [...(apiProblems.get(p.block) ?? []), p.message]);
  const model = buildModel({ tangle: tangled, report, xref, tests, ...(api === undefined ? {} : { api: api.pages }), apiProblems, headings });
  const toolFiles = listTools(root);
  const errorSites = [...tangled.targets.filter((t) => tsFiles.has(t.path)).flatMap((t) => findErrorSites(t.path, t.content)), ...toolFiles.flatMap((f) => findErrorSites(f, readIfExists(join(root, f)) ?? ""))];
  const sourceFiles = new Set([...tangled.targets.map((t) => t.path), ...new Set(errorSites.filter((s) => !tsFiles.has(s.file)).map((s) => s.file))]);
  const highlight = await createTokenizer();
  const tokenCache = new Map<string, CodeToken[][]>();
  const tokenize = (code: string, lang: string): CodeToken[][] => {
    const key = `${lang}\0${code}`;
    let tokens = tokenCache.get(key);
    if (tokens === undefined) {
      tokens = highlight(code, lang);
      tokenCache.set(key, tokens);
    }
    return tokens;
  };
  const ctx: PageContext = { model, tokenize, siteTitle, sourcePages: sourceFiles, documents: new Set(paths) };

  const pages: RenderedPage[] = [];
  model.chapters.forEach((chapter, i) => {
    const t0 = performance.now();
    const page = renderChapterPage(ctx, chapter, texts.get(chapter.doc) ?? "", i);
    pages.push(page);
    const s = chapter.summary;
    progress(`docs: [${i + 1}/${model.chapters.length}] ${chapter.doc} → ${page.path} (${chapter.blocks.length} blocks${s === undefined ? "" : `, ${s.tested}/${s.definitions - s.typeOnly} tested, ${s.problems} problem(s)`}) ${Math.round(performance.now() - t0)} ms`);
  });
  for (const file of sourceFiles) {
    const content = tangled.files.get(file) ?? readIfExists(join(root, file)) ?? "";
    pages.push(renderSourcePage(ctx, file, content));
  }
  const indexed = indexErrors(model, tangled, errorSites);
  pages.push(renderIndexPage(ctx, { errors: indexed, globalProblems: report.problems.filter((p) => !report.blocks.some((b) => b.problems.includes(p)) && p.line === 0), apiProblems: (api?.problems ?? []).map((p) => p.message), apiStrict: api?.strict ?? false, generatedFiles: [...sourceFiles].sort(), description }));
  const tRender = lap();
  progress(`docs: rendered ${pages.length} pages (${model.chapters.length} chapters, ${sourceFiles.size} source files, index) in ${Math.round(tRender)} ms`);

  for (const page of pages) {
    const path = join(staging, page.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, page.html);
  }
  writeAssets(staging, buildSearchIndex(searchEntries(model, pages)));
  rmSync(out, { recursive: true, force: true });
  renameSync(staging, out);
  const tWrite = lap();

  const total = performance.now() - started;
  progress(`docs: wrote ${out} in ${Math.round(total)} ms${problems.length > 0 ? `; ${problems.length} problem(s)` : ""}`);
  return {
    ok: problems.length === 0,
    out,
    pages: pages.length,
    problems,
    ...(api === undefined ? {} : { api: { entryPoints: api.entryPoints, strict: api.strict, problems: api.problems } }),
    timings: { tangle: tTangle, verify: tVerify, xref: tXref, api: tApi, render: tRender, write: tWrite, total },
    model,
  };
}

/** A chapter's title when its front matter has none: its first `# ` heading outside code fences. */
function firstHeading(text: string): string | undefined {
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (f !== undefined) {
      if (fence === undefined) fence = f;
      else if (f[0] === fence[0] && f.length >= fence.length) fence = undefined;
      continue;
    }
    const h = fence === undefined ? /^ {0,3}# +(.+?)(?: +#+)? *$/.exec(line) : null;
    if (h !== null) return (h[1] ?? "").replace(/[`*_]/g, "");
  }
  return undefined;
}

function readReport(path: string): VerifyReport {
  const text = readIfExists(path);
  if (text === undefined) throw new LiterateError([error({ file: path, line: 0, column: 0 }, "docs", `no verify report at \`${path}\``, "write one with `npm run verify -- --json > FILE`, or leave out `--verify-json`")]);
  return JSON.parse(text) as VerifyReport;
}

/** Every `.ts` file under `tools/`, project-relative, sorted. */
function listTools(root: string): string[] {
  try {
    return readdirSync(join(root, "tools"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => `tools/${f.split("\\").join("/")}`)
      .sort();
  } catch {
    return [];
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
  return indexed.sort((a, b) => a.message.localeCompare(b.message, "en", { sensitivity: "base" }) || a.where.localeCompare(b.where));
}

/** Search entries: definitions, headings and the prose under each heading. */
function searchEntries(model: DocsModel, pages: readonly RenderedPage[]): SearchEntry[] {
  const entries: SearchEntry[] = [];
  for (const d of model.definitions) {
    const b = model.blocks[d.block];
    const chapter = model.chapters.find((c) => c.doc === b?.block.doc);
    if (b === undefined || chapter === undefined) continue;
    entries.push({ id: entries.length, kind: "definition", title: d.name, text: b.block.attrs.name ?? "", href: b.href, chapter: chapter.title });
  }
  for (const page of pages) {
    const chapter = model.chapters.find((c) => c.path === page.path);
    if (chapter === undefined) continue;
    for (const h of page.headings) entries.push({ id: entries.length, kind: "heading", title: h.text, text: "", href: `${page.path}#${h.id}`, chapter: chapter.title });
    for (const s of page.sections) entries.push({ id: entries.length, kind: "prose", title: s.heading === "" ? chapter.title : s.heading, text: s.text, href: s.id === "" ? page.path : `${page.path}#${s.id}`, chapter: chapter.title });
  }
  return entries;
}
