/**
 * The page shell every page shares: header with search, sidebar with every chapter and the
 * current outline, previous/next links, and the scripts (hovers, search, diagrams). Pure.
 */
import { escapeHtml, relativeHref } from "./html.ts";

/** A link in the sidebar or the previous/next bar. */
export interface NavLink {
  readonly title: string;
  /** Site path. */
  readonly path: string;
  /** A short status shown beside the link (e.g. `✓` or `3 problems`). */
  readonly status?: { readonly ok: boolean; readonly text: string };
}

/** An outline entry of the current page. */
export interface OutlineEntry {
  readonly depth: number;
  readonly id: string;
  readonly text: string;
}

/** One page to wrap. */
export interface PageShell {
  /** Site path of this page, e.g. `chapters/loop.html`. */
  readonly path: string;
  readonly title: string;
  readonly description?: string;
  /** The sidebar's chapters; absent, the page holds `chapterListSlot` for `fillChapterList` to fill. */
  readonly chapters?: readonly NavLink[];
  readonly outline?: readonly OutlineEntry[];
  readonly body: string;
  readonly previous?: NavLink;
  readonly next?: NavLink;
  /** Hover texts used on this page, by page-local id. */
  readonly hovers?: ReadonlyMap<number, string>;
  /** Whether the page holds mermaid diagrams (loads the renderer). */
  readonly diagrams?: boolean;
  readonly siteTitle: string;
}

/** Where a page rendered without its chapter list will have it. */
export const chapterListSlot = "<!--chapter-list-->";

/** The sidebar's chapter list as the page at `path` shows it: links relative to it, its own marked current. */
function chapterListHtml(path: string, chapters: readonly NavLink[]): string {
  const href = (to: string): string => escapeHtml(relativeHref(path, to));
  return chapters
    .map((c) => {
      const current = c.path === path ? ' aria-current="page"' : "";
      const status = c.status === undefined ? "" : ` <span class="status ${c.status.ok ? "ok" : "bad"}">${escapeHtml(c.status.text)}</span>`;
      return `<li><a href="${href(c.path)}"${current}>${escapeHtml(c.title)}</a>${status}</li>`;
    })
    .join("");
}

/**
 * Fills the chapter list into a page rendered without one (its first `chapterListSlot`, which
 * the sidebar holds before any body). A page cached this way stays valid when only the chapters'
 * statuses change: filling it is a string replacement, not a render.
 */
export function fillChapterList(html: string, path: string, chapters: readonly NavLink[]): string {
  return html.replace(chapterListSlot, () => chapterListHtml(path, chapters));
}

/** Wraps a body in the shared page shell. */
export function renderPage(page: PageShell): string {
  const href = (to: string): string => escapeHtml(relativeHref(page.path, to));
  const chapterList = page.chapters === undefined ? chapterListSlot : chapterListHtml(page.path, page.chapters);
  const outline = (page.outline ?? []).filter((o) => o.depth >= 2 && o.depth <= 3 && o.id !== "");
  const outlineHtml = outline.length === 0 ? "" : `<h2>On this page</h2><ul class="outline">${outline.map((o) => `<li class="d${o.depth}"><a href="#${escapeHtml(o.id)}">${escapeHtml(o.text)}</a></li>`).join("")}</ul>`;
  const pager =
    page.previous === undefined && page.next === undefined
      ? ""
      : `<nav class="pager">${page.previous === undefined ? "<span></span>" : `<a rel="prev" href="${href(page.previous.path)}">← ${escapeHtml(page.previous.title)}</a>`}${page.next === undefined ? "<span></span>" : `<a rel="next" href="${href(page.next.path)}">${escapeHtml(page.next.title)} →</a>`}</nav>`;
  const hovers = page.hovers === undefined || page.hovers.size === 0 ? "" : `<script type="application/json" id="hover-data">${jsonForScript(Object.fromEntries(page.hovers))}</script>`;
  const diagrams = page.diagrams === true ? `<script src="${href("assets/mermaid.min.js")}" defer></script>` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · ${escapeHtml(page.siteTitle)}</title>
${page.description === undefined ? "" : `<meta name="description" content="${escapeHtml(page.description)}">\n`}<link rel="icon" href="${href("assets/favicon.svg")}" type="image/svg+xml">
<link rel="stylesheet" href="${href("assets/site.css")}">
</head>
<body data-root="${href("index.html").replace(/index\.html$/, "")}">
<header class="top">
<a class="brand" href="${href("index.html")}">${escapeHtml(page.siteTitle)}</a>
<nav class="top-links"><a href="${href("index.html")}">Index</a> <a href="${href("index.html#definitions")}">Definitions</a> <a href="${href("index.html#errors")}">Errors</a> <a href="${href("api/index.html")}">API</a></nav>
<form class="search" role="search" hidden><input type="search" id="search-input" placeholder="Search headings, prose, definitions" autocomplete="off" aria-label="Search"><ol id="search-results" class="search-results" hidden></ol></form>
</header>
<div class="layout">
<nav class="sidebar" aria-label="Chapters"><h2>Chapters</h2><ol class="chapters">${chapterList}</ol>${outlineHtml}</nav>
<main id="content">
${page.body}
${pager}
</main>
</div>
${hovers}${diagrams}<script src="${href("assets/site.js")}" defer></script>
</body>
</html>
`;
}

/** JSON safe inside a `<script>` element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}
