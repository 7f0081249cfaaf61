/**
 * The pages: chapters (prose with verified, cross-referenced blocks), source pages for the
 * generated files, and the index (chapters, definitions, errors). Pure: model in, HTML out.
 */
import { posix } from "node:path";
import type { Code } from "mdast";
import { formatLocation, type Diagnostic } from "../core/diagnostics.ts";
import { inlineSourceMapLine } from "../core/sourcemap.ts";
import { renderChapter, type ChapterOptions, type RenderedChapter } from "./chapter.ts";
import { renderCode, type CodeOverlay, type CodeToken } from "./code-html.ts";
import type { ErrorSite } from "./errors-index.ts";
import type { Tokenize } from "./highlight.ts";
import { blockAnchor, chapterPath, escapeHtml, lineAnchor, relativeHref, sourcePath } from "./html.ts";
import { renderPage, type NavLink, type PageShell } from "./layout.ts";
import { definitionSortKey, type BlockModel, type ChapterModel, type DocsModel } from "./model.ts";
import { isTypeScriptPath } from "../core/paths.ts";
import { describeBookScore } from "../rules/judge.ts";
import { pushAt, valueAt } from "../core/maps.ts";

/** A rendered page: its site path, its HTML, and what search should know of it. */
export type RenderedPage = RenderedChapter & { readonly path: string };

/** What every page needs besides the model. */
export interface PageContext {
  readonly model: DocsModel;
  readonly tokenize: Tokenize;
  readonly siteTitle: string;
  /** Files that have a source page (project-relative). */
  readonly sourcePages: ReadonlySet<string>;
  /** Documents' paths, to rewrite `.md` links between chapters. */
  readonly documents: ReadonlySet<string>;
  /** Parsed Markdown by text, kept across builds by the caller (see `ChapterOptions.parsed`). */
  readonly parsed?: ChapterOptions["parsed"];
  /** Render pages without the sidebar's chapter list, for the build to fill in when it writes them (`fillChapterList`). */
  readonly deferChapterList?: boolean;
  /**
   * Where "Edit this page" points: this prefix and the document's repository-relative path
   * (`https://github.com/OWNER/REPO/edit/main/`); absent, the copy of the Markdown the site
   * keeps at that same path (`site/literate/loop.md`).
   */
  readonly editBase?: string;
}

/** The sidebar's chapter links, each with its verify status. */
export function chapterLinks(model: DocsModel): NavLink[] {
  return model.chapters.map((c) => ({ title: c.title, path: c.path, ...(c.summary === undefined ? {} : { status: chapterStatus(c) }) }));
}

/** ✓ only when verify found no problem and every runtime block is tested (no evidence is not a pass). */
function chapterStatus(c: ChapterModel): { ok: boolean; text: string } {
  const s = c.summary;
  const problems = s?.problems ?? 0;
  const runtime = s === undefined ? 0 : s.definitions - s.typeOnly;
  if (problems > 0) return { ok: false, text: `${problems} ✗` };
  if (s !== undefined && s.tested < runtime) return { ok: false, text: `${s.tested}/${runtime} tested` };
  return { ok: true, text: "✓" };
}

/** A page of the site: `page` in the layout, with the chapter list (unless deferred) and the site's title. */
export function shell(ctx: PageContext, page: Omit<PageShell, "chapters" | "siteTitle">): string {
  return renderPage({ ...page, ...(ctx.deferChapterList === true ? {} : { chapters: chapterLinks(ctx.model) }), siteTitle: ctx.siteTitle });
}

/** A short human name for a block: what it defines, its `#name`, or its role. */
export function blockLabel(b: BlockModel): string {
  const names = b.report?.names ?? [];
  const own = names.length > 0 ? names.join(", ") : undefined;
  const name = b.block.attrs.name === undefined ? undefined : `‹${b.block.attrs.name}›`;
  if (b.block.attrs.test) return "test";
  if (b.block.attrs.noTangle) return `${b.block.lang} illustration`;
  if (own !== undefined) return name === undefined ? own : `${own} ${name}`;
  if (name !== undefined) return name;
  if (b.report?.kind === "preamble") return "imports";
  return b.block.lang === "" ? "code" : b.block.lang;
}

function badge(ok: boolean | "warn", text: string, title: string): string {
  return `<span class="badge ${ok === true ? "ok" : ok === false ? "bad" : "warn"}" title="${escapeHtml(title)}">${escapeHtml(text)}</span>`;
}

/** The badges of a block, from verify's checks. */
function blockBadges(b: BlockModel): string {
  const r = b.report;
  if (r === undefined || !(r.kind === "definition" || r.kind === "fragment" || r.kind === "preamble")) return "";
  const out: string[] = [];
  out.push(r.checks.compiles ? badge(true, "compiles ✓", "no diagnostic of the one type-check falls on its lines") : badge(false, "compiles ✗", "the type-check reports an error on its lines"));
  const tested = r.checks.tested;
  if (tested === "tested") out.push(badge(true, "tested ✓", `a passing test executed it and its stamp tested=${r.stamp ?? ""} is current`));
  else if (tested === "untested") out.push(badge(false, "tested ✗", "no passing test executed this block"));
  else if (tested === "stale") out.push(badge("warn", "stale", `its stamp tested=${r.stamp ?? ""} no longer matches its code (${r.hash})`));
  else if (tested === "unstamped") out.push(badge("warn", "unstamped", "tests execute it but it carries no tested= stamp"));
  else if (r.typeOnly) out.push(badge(true, "type-only", "nothing to execute: type-checking is its test"));
  const m = r.mutation;
  if (m !== undefined && m.score !== undefined) {
    const title = `${m.killed} of ${m.killed + m.survived} mutants killed by the chapter's tests${m.equivalent > 0 ? `, ${m.equivalent} declared equivalent${m.assumed > 0 ? ` (${m.assumed} under an assumption)` : ""}` : ""} (npm run mutate)`;
    out.push(badge(m.score >= 80 ? (m.survived === 0 ? true : "warn") : false, `mutants ${m.score.toFixed(0)}%`, title));
  }
  if (r.checks.pinned === false && m?.score === undefined) out.push(badge(false, "pinned ✗", "its chapter's mutation record has no current record of this block (npm run mutate)"));
  if (!r.checks.oneDefinition) out.push(badge(false, "one definition ✗", "the block must declare exactly one definition"));
  if (!r.checks.prose) out.push(badge(false, "prose ✗", "no prose stands before this block"));
  if (r.checks.order === false) out.push(badge(false, "order ✗", "it imports from a chapter that comes later in the book"));
  if (r.checks.docComment === false) out.push(badge("warn", "doc comment ⚠", "the doc comment does not state the contract beyond what the prose says"));
  if (b.apiProblems.length > 0) out.push(badge("warn", "API docs ✗", "typedoc's validation complains about what this block exports"));
  return `<span class="badges">${out.join("")}</span>`;
}

function problemList(b: BlockModel, anchor: string): string {
  const problems = b.report?.problems ?? [];
  const api = b.apiProblems.map((message) => `<li class="problem warning"><strong>api</strong>: ${escapeHtml(message)}</li>`);
  if (problems.length === 0 && api.length === 0) return "";
  const items = problems.map((p) => {
    const k = p.line - b.block.line - 1;
    const where = k >= 0 && k < b.block.lines.length ? `<a href="#${anchor}-L${k + 1}">${escapeHtml(formatLocation(p))}</a>` : escapeHtml(formatLocation(p));
    return `<li class="problem ${p.severity}">${where} <strong>${escapeHtml(p.rule)}</strong>: ${escapeHtml(p.message)}${p.hint === undefined ? "" : `<br><span class="hint">hint: ${escapeHtml(p.hint)}</span>`}</li>`;
  });
  return `<ul class="problems">${items.join("")}${api.join("")}</ul>`;
}

function marksOf(b: BlockModel): Map<number, string[]> {
  const marks = new Map<number, string[]>();
  for (const p of b.report?.problems ?? []) {
    const k = p.line - b.block.line - 1;
    if (k < 0 || k >= b.block.lines.length) continue;
    pushAt(marks, k, `${p.rule}: ${p.message}`);
  }
  return marks;
}

/** Overlays of a block's identifiers, with links relative to `page`; records the hovers used. */
function overlaysOf(ctx: PageContext, page: string, b: BlockModel, hovers: Map<number, string>): Map<number, CodeOverlay[]> {
  const overlays = new Map<number, CodeOverlay[]>();
  for (const id of b.identifiers) {
    const symbol = ctx.model.xref.symbols[id.symbol];
    const hover = symbol !== undefined && symbol.hover !== "" ? id.symbol : undefined;
    if (hover !== undefined && symbol !== undefined) hovers.set(hover, symbol.hover);
    const target = id.definedIn === undefined || id.definedIn === b.global ? undefined : ctx.model.blocks[id.definedIn];
    const list = valueAt(overlays, id.line, () => []);
    const last = list[list.length - 1];
    if (last !== undefined && last.column + last.length > id.column) continue;
    list.push({ column: id.column, length: id.length, isDefinition: id.isDefinition, ...(hover === undefined ? {} : { hover }), ...(target === undefined ? {} : { href: relativeHref(page, target.href) }) });
  }
  return overlays;
}

/** The figure of one block: head (label, badges, links), code, problems, tests, uses. */
export function renderBlock(ctx: PageContext, page: string, b: BlockModel, hovers: Map<number, string>): string {
  const anchor = blockAnchor(b.block.index);
  const code = b.block.lines.join("\n");
  const overlays = overlaysOf(ctx, page, b, hovers);
  // Each `<<name>>` line links to the block it splices in (the first, when several share the name).
  for (const ref of b.chunkRefs) {
    const target = ctx.model.blocks[ref.blocks[0] ?? -1];
    const column = b.block.lines[ref.line]?.indexOf("<<") ?? -1;
    if (target === undefined || column < 0) continue;
    overlays.set(ref.line, [{ column, length: ref.name.length + 4, isDefinition: false, href: relativeHref(page, target.href) }]);
  }
  const view = { id: anchor, lang: b.block.lang, lines: ctx.tokenize(code, b.block.lang), overlays, marks: marksOf(b), label: `code: ${blockLabel(b)}` };
  const generated = b.report?.generated;
  const links: string[] = [];
  if (generated !== undefined && ctx.sourcePages.has(generated.target)) {
    const range = generated.first === generated.last ? `${generated.first}` : `${generated.first}–${generated.last}`;
    links.push(`<a class="gen" href="${escapeHtml(relativeHref(page, `${sourcePath(generated.target)}#${lineAnchor(generated.first)}`))}" title="the lines tangle wrote">${escapeHtml(generated.target)}:${range}</a>`);
  }
  if (b.apiHref !== undefined) links.push(`<a class="api" href="${escapeHtml(relativeHref(page, b.apiHref))}" title="the API reference of what this block exports">API</a>`);
  links.push(`<a class="md" href="#${anchor}" title="${escapeHtml(b.block.doc)}:${b.block.line}">¶</a>`);
  // Per-test names only beside verify's own verdict that the tests ran it, never against it.
  const executed = b.report?.checks.tested === "tested" || b.report?.checks.tested === "stale" || b.report?.checks.tested === "unstamped";
  // Attribution is by function: a block with no function of its own (a constant, a table of
  // values) is executed by the run but names no test; say so rather than list nothing.
  const tests = !executed
    ? ""
    : b.tests.length === 0
      ? indirectTests(ctx, b)
      : `<details class="tests"><summary>Tested by ${b.tests.length} test${b.tests.length === 1 ? "" : "s"}</summary><ul>${b.tests.map((t) => `<li>${escapeHtml(t)}</li>`).join("")}</ul></details>`;
  // A link to each of the blocks `indexes` names, with its chapter and line (`around` them: the parentheses of a list in prose).
  const linksTo = (indexes: readonly number[], around: [string, string]): string[] =>
    indexes.flatMap((i) => {
      const u = ctx.model.blocks[i];
      return u === undefined ? [] : [`<a href="${escapeHtml(relativeHref(page, u.href))}">${escapeHtml(blockLabel(u))}</a> <span class="where">${around[0]}${escapeHtml(chapterTitle(ctx.model, u.block.doc))}, line ${u.block.line}${around[1]}</span>`];
    });
  const users = linksTo(b.usedBy, ["", ""]);
  const usedBy = users.length === 0 ? "" : `<details class="used-by"><summary>Used in ${users.length} block${users.length === 1 ? "" : "s"}</summary><ul>${users.map((link) => `<li>${link}</li>`).join("")}</ul></details>`;
  const hosts = linksTo(b.splicedInto, ["(", ")"]);
  const spliced = hosts.length === 0 ? "" : `<p class="spliced-into">Spliced into ${hosts.join(", ")}</p>`;
  const kind = b.report?.kind ?? (b.block.attrs.noTangle ? "illustration" : "other");
  return `<figure class="block kind-${escapeHtml(kind)}${(b.report?.problems.length ?? 0) > 0 ? " has-problems" : ""}" id="${anchor}">
<figcaption class="block-head"><span class="label">${escapeHtml(blockLabel(b))}</span>${blockBadges(b)}<span class="links">${links.join(" ")}</span></figcaption>
${renderCode(view)}
${problemList(b, anchor)}${survivorList(b)}${spliced}${tests}${usedBy}</figure>`;
}

/** The mutants of a block no test kills, each as a one-line diff at its Markdown place. */
function survivorList(b: BlockModel): string {
  const survivors = b.report?.mutation?.survivors ?? [];
  if (survivors.length === 0) return "";
  const items = survivors
    .map((m) => `<li><span class="where">line ${m.line}:${m.column}</span> ${escapeHtml(m.mutator)}<pre class="diff"><span class="del">- ${escapeHtml(m.original)}</span>\n<span class="ins">+ ${escapeHtml(m.replacement)}</span></pre></li>`)
    .join("");
  return `<details class="survivors"><summary>${survivors.length} surviving mutant${survivors.length === 1 ? "" : "s"}</summary><ul>${items}</ul></details>`;
}

/**
 * A block without functions (a constant, a table) runs when its module is imported, before any
 * test: per-test evidence cannot name a test for it. Name instead the tests of the blocks that
 * use it, saying so, or that the run as a whole covered it.
 */
function indirectTests(ctx: PageContext, b: BlockModel): string {
  const through = new Set<string>();
  for (const u of b.usedBy) for (const t of ctx.model.blocks[u]?.tests ?? []) through.add(t);
  if (through.size === 0) return `<p class="tests none">Covered by the test run (no per-test attribution for blocks without functions).</p>`;
  const names = [...through].sort();
  return `<details class="tests indirect"><summary>Covered by the test run; used by blocks tested by ${names.length} test${names.length === 1 ? "" : "s"}</summary><ul>${names.map((t) => `<li>${escapeHtml(t)}</li>`).join("")}</ul></details>`;
}

function chapterTitle(model: DocsModel, doc: string): string {
  return model.chapters.find((c) => c.doc === doc)?.title ?? doc;
}

/** Rewrites links between documents and to tangled files, relative to the chapter `doc`. */
function hrefRewriter(ctx: PageContext, doc: string, page: string): (href: string) => string {
  return (href) => {
    if (/^[a-z][a-z0-9+.-]*:|^#|^\//i.test(href)) return href;
    const [path = "", hash] = href.split("#", 2);
    const resolved = posix.join(posix.dirname(doc), path);
    const suffix = hash === undefined ? "" : `#${hash}`;
    if (ctx.documents.has(resolved)) return relativeHref(page, chapterPath(resolved)) + suffix;
    if (ctx.sourcePages.has(resolved)) return relativeHref(page, sourcePath(resolved)) + suffix;
    return href;
  };
}

/**
 * A chapter's Markdown rendered for the page at `page`: each mermaid diagram drawn, with its
 * source as its text alternative; each other fence of a block as `block` renders it.
 */
export function renderChapterBody(ctx: PageContext, chapter: ChapterModel, markdown: string, page: string, block: (b: BlockModel) => string): RenderedChapter & { readonly diagrams: boolean } {
  const byLine = new Map(chapter.blocks.map((g) => [ctx.model.blocks[g]?.block.line ?? -1, ctx.model.blocks[g]]));
  let diagrams = false;
  const renderCodeNode = (node: Code, line: number): string | undefined => {
    const b = byLine.get(line);
    if (node.lang === "mermaid") {
      diagrams = true;
      // The diagram's text alternative is its source, under the drawing: what it says, as text.
      return `<figure class="diagram"${b === undefined ? "" : ` id="${blockAnchor(b.block.index)}"`}><pre class="mermaid">${escapeHtml(node.value)}</pre><figcaption><details><summary>The diagram as text</summary><pre class="diagram-text">${escapeHtml(node.value)}</pre></details></figcaption></figure>`;
    }
    return b === undefined ? undefined : block(b);
  };
  const rendered = renderChapter(markdown, { renderCode: renderCodeNode, rewriteHref: hrefRewriter(ctx, chapter.doc, page), ...(ctx.parsed === undefined ? {} : { parsed: ctx.parsed }) });
  return { ...rendered, diagrams };
}

/** Renders a chapter page. */
export function renderChapterPage(ctx: PageContext, chapter: ChapterModel, markdown: string, position: number): RenderedPage {
  const page = chapter.path;
  const hovers = new Map<number, string>();
  const rendered = renderChapterBody(ctx, chapter, markdown, page, (b) => renderBlock(ctx, page, b, hovers));
  const previous = ctx.model.chapters[position - 1];
  const next = ctx.model.chapters[position + 1];
  const summary = chapter.summary === undefined ? "" : `<p class="chapter-summary">${summaryText(chapter)}</p>`;
  const html = shell(ctx, {
    path: page,
    title: chapter.title,
    ...(chapter.description === undefined ? {} : { description: chapter.description }),
    outline: rendered.headings,
    body: `<article class="chapter">${rendered.html.replace(/(<\/h1>)/, `$1${summary}`)}</article>`,
    ...(previous === undefined ? {} : { previous: { title: previous.title, path: previous.path } }),
    ...(next === undefined ? {} : { next: { title: next.title, path: next.path } }),
    hovers,
    diagrams: rendered.diagrams,
    edit: { href: ctx.editBase === undefined ? relativeHref(page, chapter.doc) : `${ctx.editBase}${chapter.doc}`, source: chapter.doc },
  });
  return { path: page, html, headings: rendered.headings, sections: rendered.sections };
}

function summaryText(chapter: ChapterModel): string {
  const s = chapter.summary;
  if (s === undefined) return "";
  const runtime = s.definitions - s.typeOnly;
  const status = chapterStatus(chapter);
  const state = status.ok ? `<span class="status ok">verified</span>` : `<span class="status bad">${s.problems > 0 ? `${s.problems} problem${s.problems === 1 ? "" : "s"}` : "not all tested"}</span>`;
  return `${state} · ${s.definitions} definition blocks (${s.typeOnly} type-only) · ${s.tested}/${runtime} tested`;
}

/** The language a source page highlights `file` as: `ts`, `md`, or plain text (`""`). */
export function sourceLanguage(file: string): string {
  return isTypeScriptPath(file) ? "ts" : /\.md$/.test(file) ? "md" : "";
}

/**
 * A generated file's text without the source map its last line carries inline, and that line's
 * number (1-based) when there is one. The map is base64 for machines: a page shows a note
 * instead, neither the highlighter nor the cross-reference program reads it, and every line
 * before it keeps its number, so line N of a page is still line N of the file.
 */
export function withoutInlineSourceMap(content: string): { readonly code: string; readonly mapLine?: number } {
  const line = inlineSourceMapLine(content);
  if (line === undefined) return { code: content };
  let mapLine = 1;
  for (let nl = content.indexOf("\n"); nl !== -1 && nl < line.start; nl = content.indexOf("\n", nl + 1)) mapLine++;
  return { code: content.slice(0, line.start), mapLine };
}

/** Renders the source page of a tangled file (with provenance links and cross-references) or of a tool's file. */
export function renderSourcePage(ctx: PageContext, file: string, content: string): RenderedPage {
  const page = sourcePath(file);
  const hovers = new Map<number, string>();
  const { code: shown, mapLine } = withoutInlineSourceMap(content);
  const lines = shown.endsWith("\n") ? shown.slice(0, -1) : shown;
  const target = ctx.model.targets.find((t) => t.path === file);
  const lang = sourceLanguage(file);
  const tokens = target === undefined || lang !== "ts" ? ctx.tokenize(lines, lang) : targetTokens(ctx, target, lines);
  const overlays = new Map<number, CodeOverlay[]>();
  if (target !== undefined) {
    const occurrences = ctx.model.xref.occurrences.filter((o) => o.file === file);
    const definitionBlocks = new Map<number, number>();
    for (const o of occurrences) {
      const symbol = ctx.model.xref.symbols[o.symbol];
      if (symbol === undefined) continue;
      if (symbol.hover !== "") hovers.set(o.symbol, symbol.hover);
      const definition = symbol.definition;
      const defBlock = definition === undefined ? undefined : valueAt(definitionBlocks, o.symbol, () => ctx.model.targets.find((t) => t.path === definition.file)?.lineBlock[definition.line] ?? -1);
      const href = defBlock !== undefined && defBlock >= 0 && !o.isDefinition ? ctx.model.blocks[defBlock]?.href : undefined;
      pushAt(overlays, o.line, { column: o.character, length: o.length, isDefinition: o.isDefinition, ...(symbol.hover === "" ? {} : { hover: o.symbol }), ...(href === undefined ? {} : { href: relativeHref(page, href) }) });
    }
  }
  const gutter = tokens.map((_, i) => {
    const n = i + 1;
    const block = target?.lineBlock[i] ?? -1;
    const startsRun = block >= 0 && (target?.lineBlock[i - 1] ?? -1) !== block;
    const b = ctx.model.blocks[block];
    const from = startsRun && b !== undefined ? `<a class="from" href="${escapeHtml(relativeHref(page, b.href))}" title="the block this line came from">${escapeHtml(`${b.block.doc}:${target?.lineSource[i] ?? b.block.line}`)}</a>` : "";
    return `<a class="ln" href="#${lineAnchor(n)}">${n}</a>${from}`;
  });
  const code = renderCode({ id: "src", lang: "ts", label: `code: ${file}`, lines: tokens, overlays: new Map([...overlays].map(([k, v]) => [k, v.sort((a, b) => a.column - b.column)])), marks: new Map() })
    .replace(/<span class="line" id="src-L(\d+)">/g, (_m, n: string) => `<span class="line" id="${lineAnchor(Number(n))}"><span class="gutter">${gutter[Number(n) - 1] ?? ""}</span>`);
  const origin = target === undefined ? "" : `<p>Tangled from ${target.sources.map((s) => `<a href="${escapeHtml(relativeHref(page, chapterPath(s)))}">${escapeHtml(s)}</a>`).join(", ")}. Never edited by hand.</p>`;
  const mapNote =
    mapLine === undefined
      ? ""
      : `<p class="source-map" id="${lineAnchor(mapLine)}">Line ${mapLine}, not shown, is the source map (inline): a base64 <code>//# sourceMappingURL=data:…</code> comment that takes stack traces, tsx and coverage back to the Markdown lines.</p>`;
  const html = shell(ctx, { path: page, title: file, body: `<article class="source"><h1><code>${escapeHtml(file)}</code></h1>${origin}${code}${mapNote}</article>`, hovers });
  return { path: page, html, headings: [], sections: [] };
}

/** Comment colours of the code themes (light as overridden for contrast, dark), for the lines tangle writes itself (header, provenance). */
const commentColor = { color: "#59636e", dark: "#8b949e" } as const;

/**
 * The tokens of the `shown` lines of a tangled file (its text without the inline source map),
 * reusing each block's tokens (the highlighter is the costly part of a build): a line from a
 * block is that block's line behind its splice indentation; the lines tangle writes itself are
 * comments.
 */
function targetTokens(ctx: PageContext, target: DocsModel["targets"][number], shown: string): CodeToken[][] {
  const lines = shown.split("\n");
  const blockTokens = new Map<number, CodeToken[][]>();
  return lines.map((text, i) => {
    const global = target.lineBlock[i] ?? -1;
    const b = ctx.model.blocks[global]?.block;
    if (b === undefined) return text === "" ? [] : [{ content: text, column: 0, ...commentColor }];
    const tokens = valueAt(blockTokens, global, () => ctx.tokenize(b.lines.join("\n"), b.lang));
    const k = (target.lineSource[i] ?? 0) - b.line - 1;
    const indent = (b.columnShift[k] ?? 0) - (target.lineShift[i] ?? 0);
    const own = tokens[k] ?? [];
    const shifted = own.map((t) => ({ ...t, column: t.column + indent }));
    return indent > 0 ? [{ content: text.slice(0, indent), column: 0 }, ...shifted] : shifted;
  });
}

/** An error site with where it links to. */
export interface IndexedError extends ErrorSite {
  /** Site path (with anchor) of the block or source line that raises it. */
  readonly href?: string;
  /** Markdown location, for sites inside tangled code. */
  readonly where: string;
}

/** Renders the index page. */
export function renderIndexPage(ctx: PageContext, options: { readonly errors: readonly IndexedError[]; readonly globalProblems: readonly Diagnostic[]; readonly apiProblems: readonly string[]; readonly apiStrict: boolean; readonly generatedFiles: readonly string[]; readonly description: string }): RenderedPage {
  const page = "index.html";
  const { model } = ctx;
  const rows = model.chapters
    .map((c) => {
      const s = c.summary;
      const runtime = s === undefined ? 0 : s.definitions - s.typeOnly;
      return `<tr><td><a href="${escapeHtml(c.path)}">${escapeHtml(c.title)}</a>${c.description === undefined ? "" : `<br><span class="desc">${escapeHtml(c.description)}</span>`}</td><td class="num">${s?.definitions ?? 0}</td><td class="num">${s?.typeOnly ?? 0}</td><td class="num">${s?.tested ?? 0}/${runtime}</td><td class="num"><span class="status ${(s?.problems ?? 0) === 0 ? "ok" : "bad"}">${s?.problems ?? 0}</span></td></tr>`;
    })
    .join("\n");
  const report = model.report;
  const totalBlocks = report.documents.reduce((n, d) => n + d.definitions, 0);
  const verdict = report.ok
    ? `<p class="verdict ok">verify: PASS — ${totalBlocks} definition blocks in ${report.documents.length} documents</p>`
    : `<p class="verdict bad">verify: FAIL — ${report.problems.filter((p) => p.severity === "error").length} problems</p>`;
  const tests = report.tests === undefined ? "no test evidence" : `${report.tests.passed}/${report.tests.total} tests passed`;
  const pinned = report.mutation;
  const mutationLine =
    pinned === undefined || pinned.recorded.length === 0
      ? ""
      : `<p class="verdict mutation">mutation score: ${escapeHtml(describeBookScore(pinned))} in the ${pinned.recorded.length} chapters with a record; ${pinned.unrecorded.length} chapters not yet mutated</p>`;
  const global = options.globalProblems.length === 0 ? "" : `<h3>Problems outside any block</h3><ul class="problems">${options.globalProblems.map((p) => `<li class="problem ${p.severity}">${escapeHtml(formatLocation(p))} <strong>${escapeHtml(p.rule)}</strong>: ${escapeHtml(p.message)}</li>`).join("")}</ul>`;

  const letters = new Map<string, string[]>();
  for (const d of model.definitions) {
    const b = model.blocks[d.block];
    if (b === undefined) continue;
    const letter = (definitionSortKey(d.name)[0] ?? "?").toUpperCase();
    pushAt(letters, letter, `<li><a href="${escapeHtml(b.href)}"><code>${escapeHtml(d.name)}</code></a> <span class="where">${escapeHtml(chapterTitle(model, b.block.doc))}</span></li>`);
  }
  const definitions = [...letters].map(([letter, items]) => `<h3 id="defs-${escapeHtml(letter)}">${escapeHtml(letter)}</h3><ul class="index-list">${items.join("")}</ul>`).join("\n");

  const groups = new Map<string, IndexedError[]>();
  for (const e of options.errors) pushAt(groups, e.label, e);
  const errorRows = [...groups]
    .map(([label, errors]) => `<tbody><tr class="group"><th colspan="2" scope="rowgroup"><code>${escapeHtml(label)}</code></th></tr>${errors.map((e) => `<tr><td class="msg">${escapeHtml(e.message)}</td><td>${e.href === undefined ? escapeHtml(e.where) : `<a href="${escapeHtml(e.href)}">${escapeHtml(e.where)}</a>`}</td></tr>`).join("")}</tbody>`)
    .join("\n");
  const api = options.apiProblems.length === 0 ? "" : `<details class="api-problems"><summary>${options.apiProblems.length} API documentation warning${options.apiProblems.length === 1 ? "" : "s"}${options.apiStrict ? "" : " (not fatal: no public entry `generated/index.ts` yet)"}</summary><ul>${options.apiProblems.map((p) => `<li>${escapeHtml(p)}</li>`).join("")}</ul></details>`;
  const generated = options.generatedFiles.map((f) => `<li><a href="${escapeHtml(sourcePath(f))}"><code>${escapeHtml(f)}</code></a></li>`).join("");

  const body = `<article class="index">
<h1>${escapeHtml(ctx.siteTitle)}</h1>
<p class="lead">${escapeHtml(options.description)}</p>
<section id="chapters" aria-labelledby="chapters-h"><h2 id="chapters-h">Chapters</h2>
${verdict}${mutationLine}<p class="meta">${tests} · type-check (${escapeHtml(report.typeCheck.compiler)}) ${Math.round(report.typeCheck.milliseconds)} ms</p>
<table class="chapters-table"><thead><tr><th scope="col">Chapter</th><th scope="col">Definitions</th><th scope="col">Type-only</th><th scope="col">Tested</th><th scope="col">Problems</th></tr></thead><tbody>
${rows}
</tbody></table>${global}</section>
<section id="definitions" aria-labelledby="definitions-h"><h2 id="definitions-h">Index of definitions</h2>
<p class="meta">${model.definitions.length} names, each linked to the block that defines it.</p>
${definitions}</section>
<section id="errors" aria-labelledby="errors-h"><h2 id="errors-h">Index of errors</h2>
<p class="meta">Every message the harness and the tools can raise, found in their sources (tests left out): errors constructed (<code>new …Error(…)</code>, the message found by the class's constructor), diagnostics (<code>error(at, "rule", …)</code>), configuration and schema problems, HTTP error replies and command failures, grouped by error class, code or rule. … stands for a value filled in at run time.</p>
<table class="errors-table"><thead><tr><th scope="col">Message</th><th scope="col">Raised at</th></tr></thead>
${errorRows}
</table></section>
<section id="files" aria-labelledby="files-h"><h2 id="files-h">Generated files and API</h2>
<ul class="index-list">${generated}</ul><p><a href="api/index.html">API reference</a></p>${api}</section>
</article>`;
  const html = shell(ctx, { path: page, title: "Index", description: options.description, body, outline: [{ depth: 2, id: "chapters-h", text: "Chapters" }, { depth: 2, id: "definitions-h", text: "Index of definitions" }, { depth: 2, id: "errors-h", text: "Index of errors" }, { depth: 2, id: "files-h", text: "Generated files and API" }] });
  return { path: page, html, headings: [], sections: [] };
}
