/**
 * The pages around the chapters that readers of other generators expect: a 404 page, the whole
 * book on one page (to print), and a sitemap. Pure: the model and texts in, HTML or XML out.
 */
import type { Code } from "mdast";
import { renderChapter } from "./chapter.ts";
import { blockAnchor, escapeHtml } from "./html.ts";
import { blockLabel, hrefRewriter, shell, type PageContext, type RenderedPage } from "./pages.ts";

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
export function renderBookPage(ctx: PageContext, texts: ReadonlyMap<string, string>): RenderedPage {
  const slugOf = (chapterPath: string): string => chapterPath.replace(/^chapters\//, "").replace(/\.html$/, "");
  const inBook = new Set(ctx.model.chapters.map((c) => slugOf(c.path)));
  let diagrams = false;
  const parts = ctx.model.chapters.map((chapter) => {
    const slug = slugOf(chapter.path);
    const byLine = new Map(chapter.blocks.map((g) => [ctx.model.blocks[g]?.block.line ?? -1, ctx.model.blocks[g]]));
    const renderCode = (node: Code, line: number): string | undefined => {
      const b = byLine.get(line);
      if (node.lang === "mermaid") {
        diagrams = true;
        return `<figure class="diagram"><pre class="mermaid">${escapeHtml(node.value)}</pre><figcaption><details><summary>The diagram as text</summary><pre class="diagram-text">${escapeHtml(node.value)}</pre></details></figcaption></figure>`;
      }
      if (b === undefined) return undefined;
      const label = blockLabel(b);
      return `<figure class="block" id="${blockAnchor(b.block.index)}"><figcaption class="block-head"><span class="label">${escapeHtml(label)}</span></figcaption><pre class="code" tabindex="0" aria-label="code: ${escapeHtml(label)}"><code>${escapeHtml(b.block.lines.join("\n"))}</code></pre></figure>`;
    };
    const rendered = renderChapter(texts.get(chapter.doc) ?? "", { renderCode, rewriteHref: hrefRewriter(ctx, chapter.doc, bookPath), ...(ctx.parsed === undefined ? {} : { parsed: ctx.parsed }) });
    const html = rendered.html
      .replace(/ id="([^"]*)"/g, (_m, id: string) => ` id="${slug}--${id}"`)
      .replace(/ href="([^"]*)"/g, (m, href: string) => {
        if (href.startsWith("#")) return ` href="#${slug}--${href.slice(1)}"`;
        const other = /^chapters\/([^/#]+)\.html(?:#(.*))?$/.exec(href);
        if (other === null || !inBook.has(other[1] ?? "")) return m;
        return ` href="#${other[1] ?? ""}${other[2] === undefined ? "" : `--${other[2]}`}"`;
      });
    return `<section class="book-chapter" id="${slug}" aria-labelledby="${slug}--${rendered.headings.find((h) => h.depth === 1)?.id ?? ""}">\n${html}\n</section>`;
  });
  const contents = `<nav class="book-contents" aria-label="Contents of the book"><h2>Contents</h2><ol>${ctx.model.chapters.map((c) => `<li><a href="#${slugOf(c.path)}">${escapeHtml(c.title)}</a></li>`).join("")}</ol></nav>`;
  const body = `<article class="book">
<h1>${escapeHtml(ctx.siteTitle)}: the whole book</h1>
<p class="lead">Every chapter on one page, in reading order, to print or to read offline. Code is shown plain; the chapters' own pages have its types and links.</p>
${contents}
${parts.join("\n")}
</article>`;
  return { path: bookPath, html: shell(ctx, { path: bookPath, title: "The whole book", body, diagrams }), headings: [], sections: [] };
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
