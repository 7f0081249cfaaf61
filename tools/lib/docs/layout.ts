/**
 * The page shell every page shares: a skip link, the header with search, the sidebar with every
 * chapter (a menu on a narrow screen), the current page's outline ("On this page"), an edit link,
 * previous/next links, and the scripts: search.js (async: search works while a long page still
 * arrives) and site.js (deferred: menu, hovers, copy buttons, then diagrams). Pure.
 */
import type { ChapterHeading } from "./chapter.ts";
import { escapeHtml, relativeHref } from "./html.ts";

/** A link in the sidebar or the previous/next bar. */
export interface NavLink {
  readonly title: string;
  /** Site path. */
  readonly path: string;
  /** A short status shown beside the link (e.g. `✓` or `3 problems`). */
  readonly status?: { readonly ok: boolean; readonly text: string };
}

/** One page to wrap. */
export interface PageShell {
  /** Site path of this page, e.g. `chapters/loop.html`. */
  readonly path: string;
  readonly title: string;
  readonly description?: string;
  /** The sidebar's chapters; absent, the page holds `chapterListSlot` for `fillChapterList` to fill. */
  readonly chapters?: readonly NavLink[];
  /** The page's headings, for its outline. */
  readonly outline?: readonly ChapterHeading[];
  readonly body: string;
  readonly previous?: NavLink;
  readonly next?: NavLink;
  /** Hover texts used on this page, by page-local id. */
  readonly hovers?: ReadonlyMap<number, string>;
  /** Whether the page holds mermaid diagrams (site.js then loads the renderer, after the page is usable). */
  readonly diagrams?: boolean;
  /** Where to edit the page's Markdown source, and that source's repository-relative path. */
  readonly edit?: { readonly href: string; readonly source: string };
  readonly siteTitle: string;
}

/** Where a page rendered without its chapter list will have it. */
const chapterListSlot = "<!--chapter-list-->";

/** The sidebar's chapter list as the page at `path` shows it: links relative to it, its own marked current. */
function chapterListHtml(path: string, chapters: readonly NavLink[]): string {
  const href = (to: string): string => escapeHtml(relativeHref(path, to));
  return chapters
    .map((c) => {
      const current = c.path === path ? ' aria-current="page"' : "";
      // The status inside the link: beside it, it made the link a link in a block of text, which
      // axe's link-in-text-block refuses unless the link is underlined (its colour alone is not
      // 3:1 from the text's in the dark theme).
      const status = c.status === undefined ? "" : ` <span class="status ${c.status.ok ? "ok" : "bad"}">${escapeHtml(c.status.text)}</span>`;
      return `<li><a href="${href(c.path)}"${current}>${escapeHtml(c.title)}${status}</a></li>`;
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
  // "On this page" is a column of its own beside the text on a wide screen, so it is in view
  // whatever the length of the chapter list; on a narrow one it follows the text.
  const outlineHtml = outline.length === 0 ? "" : `<nav class="toc" aria-labelledby="toc-h"><h2 id="toc-h">On this page</h2><ul class="outline">${outline.map((o) => `<li class="d${o.depth}"><a href="#${escapeHtml(o.id)}">${escapeHtml(o.text)}</a></li>`).join("")}</ul></nav>`;
  const pager =
    page.previous === undefined && page.next === undefined
      ? ""
      : `<nav class="pager" aria-label="Previous and next chapter">${page.previous === undefined ? "<span></span>" : `<a rel="prev" href="${href(page.previous.path)}">← ${escapeHtml(page.previous.title)}</a>`}${page.next === undefined ? "<span></span>" : `<a rel="next" href="${href(page.next.path)}">${escapeHtml(page.next.title)} →</a>`}</nav>`;
  const hovers = page.hovers === undefined || page.hovers.size === 0 ? "" : `<script type="application/json" id="hover-data">${jsonForScript(Object.fromEntries(page.hovers))}</script>`;
  // The diagram library (megabytes) is not named here: site.js loads it after the page is usable, and only where a diagram is.
  const diagrams = page.diagrams === true ? ` data-diagram-script="${href("assets/mermaid.min.js")}"` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(page.title)} · ${escapeHtml(page.siteTitle)}</title>
${page.description === undefined ? "" : `<meta name="description" content="${escapeHtml(page.description)}">\n`}<link rel="icon" href="${href("assets/favicon.svg")}" type="image/svg+xml">
<link rel="stylesheet" href="${href("assets/site.css")}">
<script src="${href("assets/search.js")}" async></script>
<script src="${href("assets/site.js")}" defer></script>
<link rel="preload" href="${href("assets/minisearch.js")}" as="script">
<link rel="preload" href="${href("assets/search-titles.js")}" as="script">
</head>
<body data-root="${href("index.html").replace(/index\.html$/, "")}"${diagrams}>
<a class="skip-link" href="#content">Skip to the text</a>
<header class="top">
<a class="brand" href="${href("index.html")}">${escapeHtml(page.siteTitle)}</a>
<a class="menu" href="#sidebar" aria-controls="sidebar">Chapters</a>
<nav class="top-links" aria-label="Site"><a href="${href("index.html")}">Index</a> <a href="${href("index.html#definitions")}">Definitions</a> <a href="${href("index.html#errors")}">Errors</a> <a href="${href("api/index.html")}">API</a> <a href="${href("book.html")}">Whole book</a></nav>
<form class="search" role="search" aria-label="Site" hidden><input type="search" id="search-input" placeholder="Search titles, prose, definitions, errors" autocomplete="off" aria-label="Search the site" aria-controls="search-results"><button type="submit" class="visually-hidden">Go to the first result</button><ol id="search-results" class="search-results" hidden></ol><p id="search-status" class="visually-hidden" role="status" aria-live="polite"></p></form>
</header>
<div class="layout${outlineHtml === "" ? "" : " with-toc"}">
<nav class="sidebar" id="sidebar" aria-labelledby="sidebar-h"><h2 id="sidebar-h">Chapters</h2><ol class="chapters">${chapterList}</ol></nav>
<main id="content" tabindex="-1">
${page.body}
${page.edit === undefined ? "" : `<p class="edit-link"><a href="${escapeHtml(page.edit.href)}" rel="nofollow">Edit this page</a> <span class="where">(${escapeHtml(page.edit.source)})</span></p>\n`}${pager}
</main>
${outlineHtml}
</div>
${hovers}
</body>
</html>
`;
}

/** JSON safe inside a `<script>` element. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}
