/**
 * The pages around the chapters that readers of other generators expect: a 404 page, the whole
 * book on one page (to print), and a sitemap. Pure: the model and texts in, HTML or XML out.
 */
import { blockAnchor, escapeHtml } from "./html.ts";
import type { ChapterModel } from "./model.ts";
import { blockLabel, renderChapterBody, shell, type PageContext, type RenderedPage } from "./pages.ts";

/** Where the 404 page is: the site's root, where static hosts look for it. */
export const notFoundPath = "404.html";

/** Where the whole book is. */
const bookPath = "book.html";

/**
 * The page a static host shows for a path it does not have. Its links are relative to the site's
 * root, where hosts serve it from; a host that shows it under a deeper path shows its text and
 * search all the same.
 */
export function renderNotFoundPage(ctx: PageContext): RenderedPage {
  const body = `<article class="not-found">
<h1>This page is not in the book</h1>
<p class="lead">The address may be of an older edition, or mistyped.</p>
<p>Search above, or start from <a href="index.html">the index</a> (every chapter, definition and error), or read <a href="${escapeHtml(ctx.model.chapters[0]?.path ?? "index.html")}">the first chapter</a>.</p>
</article>`;
  return { path: notFoundPath, html: shell(ctx, { path: notFoundPath, title: "Page not found", body }), headings: [], sections: [] };
}

/**
 * Every chapter, in reading order, on one page: what "Print the whole book" prints. Code is
 * plain text here (highlighted, the page would weigh several times as much for paper that prints
 * it in grey anyway); each chapter's ids are prefixed with its name, so they stay unique and the
 * links between chapters land inside the page.
 */
export function renderBookPage(ctx: PageContext, texts: ReadonlyMap<string, string>, sections?: BookSections): RenderedPage {
  const slugOf = (chapterPath: string): string => chapterPath.replace(/^chapters\//, "").replace(/\.html$/, "");
  const inBook = new Set(ctx.model.chapters.map((c) => slugOf(c.path)));
  const kept = new Map<string, BookSection>();
  const parts = ctx.model.chapters.map((chapter, i) => {
    const key = sections?.keys[i];
    const known = key === undefined ? undefined : sections?.memo.get(key);
    const section = known ?? bookSection(ctx, chapter, texts, slugOf(chapter.path), inBook);
    if (key !== undefined) kept.set(key, section);
    return section;
  });
  if (sections !== undefined) {
    sections.memo.clear();
    for (const [key, section] of kept) sections.memo.set(key, section);
  }
  const contents = `<nav class="book-contents" aria-label="Contents of the book"><h2>Contents</h2><ol>${ctx.model.chapters.map((c) => `<li><a href="#${slugOf(c.path)}">${escapeHtml(c.title)}</a></li>`).join("")}</ol></nav>`;
  const body = `<article class="book">
<h1>${escapeHtml(ctx.siteTitle)}: the whole book</h1>
<p class="lead">Every chapter on one page, in reading order, to print or to read offline. Code is shown plain; the chapters' own pages have its types and links.</p>
${contents}
${parts.map((part) => part.html).join("\n")}
</article>`;
  return { path: bookPath, html: shell(ctx, { path: bookPath, title: "The whole book", body, diagrams: parts.some((part) => part.diagrams) }), headings: [], sections: [] };
}

/** A chapter's section of the whole-book page, and whether it draws a diagram. */
export interface BookSection {
  readonly html: string;
  readonly diagrams: boolean;
}

/**
 * The sections a long-lived process keeps between builds (`npm run dev`'s docs worker), by the
 * key of each chapter's page (`keys`, in chapter order; a section shows nothing its page's key
 * does not cover): a one-chapter edit renders one section again. `memo` keeps this call's only.
 */
export interface BookSections {
  readonly keys: readonly (string | undefined)[];
  readonly memo: Map<string, BookSection>;
}

/** One chapter's section of the whole-book page: its ids prefixed with its `slug`, its links to chapters in the book made links inside the page. */
function bookSection(ctx: PageContext, chapter: ChapterModel, texts: ReadonlyMap<string, string>, slug: string, inBook: ReadonlySet<string>): BookSection {
  const rendered = renderChapterBody(ctx, chapter, texts.get(chapter.doc) ?? "", bookPath, (b) => {
    const label = blockLabel(b);
    return `<figure class="block" id="${blockAnchor(b.block.index)}"><figcaption class="block-head"><span class="label">${escapeHtml(label)}</span></figcaption><pre class="code" tabindex="0" aria-label="code: ${escapeHtml(label)}"><code>${escapeHtml(b.block.lines.join("\n"))}</code></pre></figure>`;
  });
  const html = rendered.html
    .replace(/ id="([^"]*)"/g, (_m, id: string) => ` id="${slug}--${id}"`)
    .replace(/ href="([^"]*)"/g, (m, href: string) => {
      if (href.startsWith("#")) return ` href="#${slug}--${href.slice(1)}"`;
      const other = /^chapters\/([^/#]+)\.html(?:#(.*))?$/.exec(href);
      if (other === null || !inBook.has(other[1] ?? "")) return m;
      return ` href="#${other[1] ?? ""}${other[2] === undefined ? "" : `--${other[2]}`}"`;
    });
  return { html: `<section class="book-chapter" id="${slug}" aria-labelledby="${slug}--${rendered.headings.find((h) => h.depth === 1)?.id ?? ""}">\n${html}\n</section>`, diagrams: rendered.diagrams };
}

/**
 * The sitemap of `paths` (site paths), each under `siteUrl` when the site's address is known. The
 * sitemap protocol wants absolute URLs; without the address the entries are the site-relative
 * paths, which a crawler resolves against where it found the file.
 */
export function sitemapXml(paths: readonly string[], siteUrl: string | undefined): string {
  const base = siteUrl === undefined ? "" : siteUrl.endsWith("/") ? siteUrl : `${siteUrl}/`;
  const urls = [...paths].sort().map((p) => `<url><loc>${escapeHtml(`${base}${p}`)}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join("\n")}\n</urlset>\n`;
}
