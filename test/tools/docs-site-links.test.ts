// The docs site's static link check (test/docs/site-links.ts, a helper of the browser suite), on small sites written here:
// the browser suite trusts it with every page's links and anchors, so it must find each kind of
// breakage, and find nothing on a sound site.
import { describe, expect, it } from "vitest";
import { pageLinks, siteLinkProblems, siteTarget } from "../docs/site-links.ts";

/** The problems of a site given as site path → HTML; every other file the site holds is in `assets`. */
function problemsOf(site: Readonly<Record<string, string>>, assets: readonly string[] = []): string[] {
  const pages = new Map(Object.entries(site).map(([path, html]) => [path, pageLinks(html)]));
  return siteLinkProblems(pages, new Set([...Object.keys(site), ...assets]));
}

const page = (body: string, head = ""): string => `<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`;

/** A sound site of three pages in two folders: every kind of link the real site has, all landing. */
const sound: Readonly<Record<string, string>> = {
  "index.html": page(`<h1 id="top">Index</h1><a href="chapters/loop.html#the-loop">loop</a><a href="chapters/">folder</a><a href="#top">top</a><a href="#">nothing</a><a href="https://example.com/x#y">away</a><a href="mailto:a@b.c">mail</a><a href="literate/loop.md">edit</a>`, `<link rel="stylesheet" href="assets/site.css"><script src="assets/site.js"></script>`),
  "chapters/index.html": page(`<a href="../index.html#top">up</a>`),
  "chapters/loop.html": page(`<h2 id="the-loop">The loop</h2><a name="old-name"></a><a href="loop.html#old-name">old</a><a href="../chapters/loop.html#the%20space">spaced</a><p id="the space"></p><img src="data:image/png;base64,AAAA" alt="">`),
};

describe("the docs site's static link check", () => {
  it("finds nothing wrong on a site whose links, anchors and loads all land", () => {
    expect(problemsOf(sound, ["assets/site.css", "assets/site.js", "literate/loop.md"])).toEqual([]);
  });

  it("finds a link to a page the site does not have", () => {
    const site = { ...sound, "chapters/index.html": page(`<a href="../index.html#top">up</a><a href="gone.html">gone</a>`) };
    expect(problemsOf(site, ["assets/site.css", "assets/site.js", "literate/loop.md"])).toEqual(["chapters/index.html: broken link gone.html"]);
  });

  it("finds an anchor that no element of its page carries, on another page and on the page itself", () => {
    const site = { ...sound, "chapters/index.html": page(`<a href="loop.html#the-lop">typo</a><a href="#nowhere">self</a>`) };
    expect(problemsOf(site, ["assets/site.css", "assets/site.js", "literate/loop.md"])).toEqual(["chapters/index.html: broken anchor chapters/loop.html#the-lop", "chapters/index.html: broken anchor chapters/index.html#nowhere"]);
  });

  it("finds an anchor into a file that is not a page", () => {
    const site = { ...sound, "chapters/index.html": page(`<a href="../literate/loop.md#intro">md</a>`) };
    expect(problemsOf(site, ["assets/site.css", "assets/site.js", "literate/loop.md"])).toEqual(["chapters/index.html: broken anchor literate/loop.md#intro"]);
  });

  it("finds a script or style sheet the site does not have, and one loaded from outside the site", () => {
    expect(problemsOf(sound, ["assets/site.js", "literate/loop.md"])).toEqual(["index.html: loads missing assets/site.css"]);
    const site = { ...sound, "chapters/index.html": page("", `<script src="https://cdn.example.com/lib.js"></script>`) };
    expect(problemsOf(site, ["assets/site.css", "assets/site.js", "literate/loop.md"])).toEqual(["chapters/index.html: loads `https://cdn.example.com/lib.js` from outside the site"]);
  });

  it("reads ids, names and links as a browser parses them: unquoted, upper case, inside tables, not inside a template", () => {
    const links = pageLinks(page(`<TABLE><TR><TD ID=cell><A HREF=x.html>x</A></TABLE><template><p id="hidden"></p></template><a name="named">n</a>`));
    expect([...links.ids].sort()).toEqual(["cell", "named"]);
    expect(links.links).toEqual(["x.html"]);
  });

  it.each([
    ["index.html", "chapters/loop.html#a%20b", { path: "chapters/loop.html", anchor: "a b" }],
    ["chapters/loop.html", "../", { path: "index.html", anchor: "" }],
    ["chapters/loop.html", "#x", { path: "chapters/loop.html", anchor: "x" }],
    ["api/interfaces/A.html", "../index.html", { path: "api/index.html", anchor: "" }],
    ["index.html", "source/tools/lib/a%2Bb.ts.html", { path: "source/tools/lib/a+b.ts.html", anchor: "" }],
    ["index.html", "https://example.com/", undefined],
    ["index.html", "javascript:void(0)", undefined],
  ] as const)("on %s, resolves %s to the site path and anchor it names", (from, address, want) => {
    expect(siteTarget(from, address)).toEqual(want);
  });

  it("resolves links against the page's <base href> when it has one", () => {
    const site = { "a/index.html": page(`<a href="b.html">b</a>`, `<base href="../">`), "b.html": page("") };
    expect(problemsOf(site)).toEqual([]);
    expect(problemsOf({ ...site, "a/index.html": page(`<a href="b.html">b</a>`) })).toEqual(["a/index.html: broken link b.html"]);
  });
});
