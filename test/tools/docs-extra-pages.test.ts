import { describe, expect, it } from "vitest";
import { sitemapXml } from "../../tools/lib/docs/extra-pages.ts";

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
