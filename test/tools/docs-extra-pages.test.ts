import { describe, expect, it } from "vitest";
import type { VerifyReport } from "../../tools/lib/commands/verify.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";
import { plainTokens } from "../../tools/lib/docs/code-html.ts";
import { renderBookPage, sitemapXml, type BookSection } from "../../tools/lib/docs/extra-pages.ts";
import { buildModel } from "../../tools/lib/docs/model.ts";
import type { PageContext } from "../../tools/lib/docs/pages.ts";

const fence = "```";

/** The page context of a two-chapter book, `b.md` linking to `a.md`, with `texts` as its documents. */
function book(texts: ReadonlyMap<string, string>): PageContext {
  const tangled = tangle([...texts].map(([path, text]) => ({ path, text })));
  const report = { ok: true, blocks: [], documents: [], problems: [], typeCheck: { compiler: "native", milliseconds: 1 } } as unknown as VerifyReport;
  const model = buildModel({ tangle: tangled, report, xref: { symbols: [], occurrences: [], milliseconds: 0 } });
  return { model, tokenize: plainTokens, siteTitle: "T", sourcePages: new Set(), documents: new Set(texts.keys()) };
}

const chapterA = `---\ntangle: generated/a.ts\n---\n# A\n\nOne.\n\n${fence}ts\nexport const a = 1;\n${fence}\n`;
const chapterB = (word: string): string => `---\ntangle: generated/b.ts\n---\n# B\n\n${word}, after [A](a.md).\n\n${fence}ts\nexport const b = 2;\n${fence}\n`;

describe("the whole-book page", () => {
  it("is the same page with kept sections as without, renders again only a chapter whose key changed, and keeps only this build's sections", () => {
    const texts = new Map([["literate/a.md", chapterA], ["literate/b.md", chapterB("Two")]]);
    const memo = new Map<string, BookSection>();
    const first = renderBookPage(book(texts), texts, { keys: ["a1", "b1"], memo });
    expect(first.html).toBe(renderBookPage(book(texts), texts).html);
    expect(first.html).toContain('href="#a"');
    expect([...memo.keys()]).toEqual(["a1", "b1"]);

    // A's section is taken as kept (marked here to show it), B's is rendered from its new text.
    memo.set("a1", { html: "<section>kept A</section>", diagrams: false });
    const edited = new Map([...texts, ["literate/b.md", chapterB("Three")]]);
    const second = renderBookPage(book(edited), edited, { keys: ["a1", "b2"], memo });
    expect(second.html).toContain("<section>kept A</section>");
    expect(second.html).toContain("Three, after");
    expect(second.html).not.toContain("Two, after");
    expect([...memo.keys()]).toEqual(["a1", "b2"]);
  });
});

describe("the sitemap", () => {
  it("lists every page under the site's address, sorted, with a slash added to the address when it lacks one", () => {
    const xml = sitemapXml(["index.html", "chapters/b.html", "chapters/a.html"], "https://example.org/book");
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')).toBe(true);
    expect([...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1])).toEqual(["https://example.org/book/chapters/a.html", "https://example.org/book/chapters/b.html", "https://example.org/book/index.html"]);
  });

  it("lists site-relative paths when the address is not known, escaped for XML", () => {
    const xml = sitemapXml(["a&b.html"], undefined);
    expect(xml).toContain("<url><loc>a&amp;b.html</loc></url>");
  });
});
