// The whole docs build on a small project in a temporary folder under bench/.corpus (so that
// `node_modules` resolves from this project): the failure paths a reader of the site relies on.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocs, docsMemory, type DocsResult } from "../../tools/lib/docs/build.ts";
import { firstHeading } from "../../tools/lib/docs/model.ts";
import { createTokenizer, highlightOnWorker } from "../../tools/lib/docs/highlight.ts";
import { runTangle } from "../../tools/lib/commands/tangle-run.ts";

const fence = "```";
const root = join(process.cwd(), "bench", ".corpus", `docs-build-test-${process.pid}`);
const doc = `---\ntangle: generated/index.ts\n---\n# Index\n\nThe public entry.\n\n${fence}ts\n/** A documented constant. */\nexport const documented = 1;\n${fence}\n\nAn export nobody documented.\n\n${fence}ts\nexport function undocumented(): number {\n  return documented;\n}\n${fence}\n`;
let result: DocsResult;
let cold: DocsResult;
let coldPage: string;
/** Whether the served site still had its API pages while the warm build was rendering. */
const apiWhileBuilding: boolean[] = [];

beforeAll(async () => {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, "literate"), { recursive: true });
  const project = JSON.parse(readFileSync("tsconfig.json", "utf8")) as { compilerOptions: Record<string, unknown> };
  writeFileSync(join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...project.compilerOptions, types: [] }, include: ["generated"] }));
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "docs-build-test", private: true, type: "module" }));
  writeFileSync(join(root, "literate", "index.md"), doc);
  runTangle({ root });
  cold = await buildDocs({ root, out: join(root, "site"), cache: false });
  coldPage = readFileSync(join(root, "site", "chapters", "index.html"), "utf8");
  await buildDocs({ root, out: join(root, "site") });
  const progress = (line: string): void => {
    if (line.startsWith("docs: API reference") || line.startsWith("docs: rendered")) apiWhileBuilding.push(existsSync(join(root, "site", "api", "index.html")));
  };
  result = await buildDocs({ root, out: join(root, "site"), progress });
}, 180_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the docs build", () => {
  it("fails on an undocumented export of the public entry, at the chapter's block", () => {
    expect(cold.ok).toBe(false);
    const problem = cold.problems.find((p) => p.rule === "api");
    expect(problem?.message).toContain("undocumented");
    expect([problem?.file, problem?.line]).toEqual(["literate/index.md", 15]);
  });

  it("leaves no old site beside the new one, and removes one a killed build left", async () => {
    expect(readdirSync(root).filter((name) => name.includes(".tmp-"))).toEqual([]);
    mkdirSync(join(root, "site.tmp-old-1-2", "chapters"), { recursive: true });
    await buildDocs({ root, out: join(root, "site") });
    expect([readdirSync(root).filter((name) => name.includes(".tmp-")), existsSync(join(root, "site", "chapters", "index.html"))]).toEqual([[], true]);
  });

  it("gives the same verdict and pages from its caches, reading them instead of recomputing", () => {
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual(cold.problems);
    expect(result.cached.steps).toEqual(["verify", "xref", "api"]);
    expect(result.cached.highlightedFromCache).toBe(result.cached.highlighted);
    expect(result.cached.pages).toBe(result.pages - 3); // all but the index, the 404 page and the whole book, which are always rendered
    expect(readFileSync(join(root, "site", "chapters", "index.html"), "utf8")).toBe(coldPage);
  });

  it("highlights code on a cold build, in the pages it writes, all of it ahead on a second thread", () => {
    expect(cold.cached.highlighted).toBeGreaterThan(0);
    expect(cold.cached.highlightedFromCache).toBe(0);
    expect(cold.highlightedAhead).toBe(cold.cached.highlighted);
    expect(result.highlightedAhead).toBe(0);
    expect(coldPage).toMatch(/<span style="color:#[0-9A-Fa-f]{6}/);
  });

  it("highlights on a second thread exactly as on its own, a language it does not know as plain text", async () => {
    const pieces = [
      { code: "export const x: number = 1; // one\nconst s = `a${x}`;", lang: "ts" },
      { code: '{ "a": [1, true] }', lang: "json" },
      { code: "npm run tangle && npm test", lang: "sh" },
      { code: "graph TD\n  A --> B", lang: "mermaid" },
      { code: "", lang: "ts" },
    ];
    const here = await createTokenizer();
    const there = await highlightOnWorker(pieces);
    expect(there).toEqual(pieces.map((p) => here(p.code, p.lang)));
    expect(there[3]).toEqual([[{ content: "graph TD", column: 0 }], [{ content: "  A --> B", column: 0 }]]);
    expect(there[0]?.[0]?.some((t) => t.color !== undefined)).toBe(true);
  });

  it("keeps serving the previous site's API pages while a build restores them from the cache", () => {
    expect(result.cached.steps).toContain("api");
    expect(apiWhileBuilding).toEqual([true, true]);
  });

  it("shows a generated file without the inline source map on its last line, which no cache holds", () => {
    const page = readFileSync(join(root, "site", "source", "generated", "index.ts.html"), "utf8");
    const lines = readFileSync(join(root, "generated", "index.ts"), "utf8").split("\n");
    const mapLine = lines.length - 1;
    expect(lines[mapLine - 1]).toMatch(/^\/\/# sourceMappingURL=data:/);
    expect(page).toContain(`<p class="source-map" id="L${mapLine}">Line ${mapLine}, not shown`);
    expect(page).toContain(`<a class="ln" href="#L${mapLine - 1}">`);
    expect(page).not.toContain("base64,");
    for (const cache of ["highlight.json", "markdown.json"]) expect(readFileSync(join(root, ".cache", "docs", cache), "utf8"), cache).not.toContain("sourceMappingURL");
  });

  it("keeps in its highlight and Markdown caches only what the current build shows", async () => {
    const cache = join(root, ".cache", "docs");
    expect(readFileSync(join(cache, "highlight.json"), "utf8")).toContain("undocumented");
    expect(readFileSync(join(cache, "markdown.json"), "utf8")).toContain("An export nobody documented.");
    writeFileSync(join(root, "literate", "index.md"), doc.replaceAll("undocumented", "unexplained").replace("An export nobody documented.", "An export without words."));
    runTangle({ root });
    const edited = await buildDocs({ root, out: join(root, "site") });
    expect(edited.pages).toBe(result.pages);
    const highlight = readFileSync(join(cache, "highlight.json"), "utf8");
    expect(highlight).toContain("unexplained");
    expect(highlight).not.toContain("undocumented");
    expect(Object.keys(JSON.parse(highlight) as object)).toHaveLength(edited.cached.highlighted);
    const markdown = readFileSync(join(cache, "markdown.json"), "utf8");
    expect(markdown).toContain("An export without words.");
    expect(markdown).not.toContain("An export nobody documented.");
  }, 120_000);
});

/** A fresh project folder `name` under bench/.corpus with a strict tsconfig over `generated/` and a package.json, and its `literate/` made. */
function scratchProject(name: string): string {
  const dir = join(process.cwd(), "bench", ".corpus", `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "literate"), { recursive: true });
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, module: "NodeNext", moduleResolution: "NodeNext", allowImportingTsExtensions: true, noEmit: true, types: [] }, include: ["generated"] }));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  return dir;
}

describe("the docs build reads the project once", () => {
  it("tangles the documents once per build, verify included, and a build kept in memory parses again only the changed document", async () => {
    const twice = scratchProject("docs-build-once");
    try {
      const other = (said: string): string => `---\ntangle: generated/other.ts\n---\n# Other\n\n${said}\n\n${fence}ts\nexport const other = 2;\n${fence}\n`;
      writeFileSync(join(twice, "literate", "index.md"), doc);
      writeFileSync(join(twice, "literate", "other.md"), other("Another constant."));
      runTangle({ root: twice });
      const memory = docsMemory();
      const first = await buildDocs({ root: twice, out: join(twice, "site"), cache: false, api: false, memory });
      expect(first.model.chapters.map((c) => c.doc)).toEqual(["literate/index.md", "literate/other.md"]);
      expect(memory.project?.scan).toBe("remark");
      expect(memory.project?.counts.tangles).toBe(1);
      expect(memory.project?.counts.parses).toBe(2);
      writeFileSync(join(twice, "literate", "other.md"), other("Another constant, said differently."));
      const second = await buildDocs({ root: twice, out: join(twice, "site"), cache: false, api: false, memory });
      expect(readFileSync(join(twice, "site", "chapters", "other.html"), "utf8")).toContain("said differently");
      expect(second.pages).toBe(first.pages);
      expect(memory.project?.counts.tangles).toBe(2);
      expect(memory.project?.counts.parses).toBe(3);
    } finally {
      rmSync(twice, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("a build kept in memory", () => {
  it("writes in place only the files whose content changed, and removes the page of a removed chapter", async () => {
    const dir = scratchProject("docs-build-in-place");
    try {
      const chapter = (name: string, said: string): string => `---\ntangle: generated/${name}.ts\n---\n# ${name}\n\n${said}\n\n${fence}ts\nexport const ${name} = 1;\n${fence}\n`;
      for (const name of ["alpha", "beta", "gamma"]) writeFileSync(join(dir, "literate", `${name}.md`), chapter(name, `A constant named ${name}.`));
      runTangle({ root: dir });
      const memory = docsMemory();
      const out = join(dir, "site");
      await buildDocs({ root: dir, out, cache: false, api: false, memory });
      const identity = (path: string): string => {
        const stat = statSync(join(out, path));
        return `${stat.ino} ${stat.mtimeMs}`;
      };
      const before = Object.fromEntries(["chapters/alpha.html", "chapters/beta.html", "literate/alpha.md", "assets/site.css", "sitemap.xml"].map((path) => [path, identity(path)]));
      writeFileSync(join(dir, "literate", "beta.md"), chapter("beta", "A constant named beta, said differently."));
      await buildDocs({ root: dir, out, cache: false, api: false, memory });
      expect(readFileSync(join(out, "chapters", "beta.html"), "utf8")).toContain("said differently");
      expect(identity("chapters/beta.html")).not.toBe(before["chapters/beta.html"]);
      for (const path of ["chapters/alpha.html", "literate/alpha.md", "assets/site.css", "sitemap.xml"]) expect({ path, identity: identity(path) }).toEqual({ path, identity: before[path] });
      rmSync(join(dir, "literate", "gamma.md"));
      runTangle({ root: dir });
      await buildDocs({ root: dir, out, cache: false, api: false, memory });
      expect(existsSync(join(out, "chapters", "gamma.html"))).toBe(false);
      expect(readFileSync(join(out, "chapters", "alpha.html"), "utf8")).not.toContain("gamma.html");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("the sidebar's statuses", () => {
  it("re-renders only the page of a chapter whose verdict changed, and shows the new status in every page's sidebar", async () => {
    const dir = scratchProject("docs-build-status");
    try {
      const chapter = (name: string): string => `---\ntangle: generated/${name}.ts\n---\n# ${name}\n\nA constant named ${name}.\n\n${fence}ts\nexport const ${name} = 1;\n${fence}\n`;
      for (const name of ["alpha", "beta", "gamma"]) writeFileSync(join(dir, "literate", `${name}.md`), chapter(name));
      runTangle({ root: dir });
      const first = await buildDocs({ root: dir, out: join(dir, "site"), api: false });
      const report = { ...first.model.report, documents: first.model.report.documents.map((d) => (d.path === "literate/beta.md" ? { ...d, problems: 3 } : d)) };
      const verifyJson = join(dir, "report.json");
      writeFileSync(verifyJson, JSON.stringify(report));
      const second = await buildDocs({ root: dir, out: join(dir, "site"), api: false, verifyJson });
      expect(second.rendered.filter((path) => path.startsWith("chapters/"))).toEqual(["chapters/beta.html"]);
      for (const name of ["alpha", "beta", "gamma"]) {
        const page = readFileSync(join(dir, "site", "chapters", `${name}.html`), "utf8");
        expect(page).toMatch(/beta <span class="status bad">3 ✗<\/span><\/a>/);
        expect(page).toMatch(new RegExp(`aria-current="page">${name}( <span class="status [a-z]+">[^<]*</span>)?</a>`));
        expect(page).not.toContain("<!--chapter-list-->");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("the page cache", () => {
  it("renders again a chapter whose page shows what changed in another (a hover, a linked block's place), and not a chapter that shows none of it", async () => {
    const dir = scratchProject("docs-build-keys");
    try {
      const alpha = (comment: string, above = ""): string => `---\ntangle: generated/alpha.ts\n---\n# alpha\n\n${above}A constant.\n\n${fence}ts\n/** ${comment} */\nexport const alpha = 1;\n${fence}\n`;
      const beta = `---\ntangle: generated/beta.ts\n---\n# beta\n\nOne more than alpha.\n\n${fence}ts\nimport { alpha } from "./alpha.ts";\nexport const beta = alpha + 1;\n${fence}\n`;
      const gamma = `---\ntangle: generated/gamma.ts\n---\n# gamma\n\nA constant of its own.\n\n${fence}ts\nexport const gamma = 3;\n${fence}\n`;
      const write = (files: Readonly<Record<string, string>>): void => {
        for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, "literate", `${name}.md`), text);
        runTangle({ root: dir });
      };
      const chaptersRendered = async (): Promise<string[]> => (await buildDocs({ root: dir, out: join(dir, "site"), api: false })).rendered.filter((path) => path.startsWith("chapters/")).sort();
      write({ alpha: alpha("The first."), beta, gamma });
      expect(await chaptersRendered()).toEqual(["chapters/alpha.html", "chapters/beta.html", "chapters/gamma.html"]);
      expect(await chaptersRendered()).toEqual([]);
      // alpha's hover changes: beta shows it on its use of alpha.
      write({ alpha: alpha("The very first.") });
      expect(await chaptersRendered()).toEqual(["chapters/alpha.html", "chapters/beta.html"]);
      expect(readFileSync(join(dir, "site", "chapters", "beta.html"), "utf8")).toContain("The very first.");
      // alpha's block moves down a line: beta links to it.
      write({ alpha: alpha("The very first.", "A word first.\n\n") });
      expect(await chaptersRendered()).toEqual(["chapters/alpha.html", "chapters/beta.html"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("the docs build reads documents as tangle does", () => {
  it("refuses a document that is not UTF-8 at its first bad byte, building nothing", async () => {
    const bad = join(process.cwd(), "bench", ".corpus", `docs-build-utf8-${process.pid}`);
    rmSync(bad, { recursive: true, force: true });
    mkdirSync(join(bad, "literate"), { recursive: true });
    try {
      writeFileSync(join(bad, "literate", "a.md"), Buffer.concat([Buffer.from("# A\n\nna"), Buffer.from([0xef, 0xbf]), Buffer.from("ve\n")]));
      await expect(buildDocs({ root: bad, out: join(bad, "site"), cache: false })).rejects.toThrow(
        "literate/a.md:3:3 encoding: the document is not valid UTF-8: the bytes 0xEF 0xBF 0x76 0x65 start no character",
      );
      expect(existsSync(join(bad, "site"))).toBe(false);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});

describe("a chapter's title from its first heading", () => {
  it("skips front matter comments and headings inside code fences", () => {
    const text = `---\n# a YAML comment, not a heading\ntangle: generated/x.ts\n---\n\n${fence}md\n# inside a fence\n${fence}\n\n~~~\n${fence}\n# still inside the tilde fence\n~~~\n\n# The *real* title\n`;
    expect(firstHeading(text)).toBe("The real title");
    expect(firstHeading("No heading at all.\n")).toBeUndefined();
  });
});
