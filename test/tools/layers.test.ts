// The toolchain's layer graph, written down and enforced: a module may import only from its own
// layer or the layers below it, the pure core never touches the disk or the process, and the
// CLIs in tools/ are the only importers of tools/lib/cli.ts. The book's chapters are layers too,
// in reading order (at the end).
import { readFileSync, readdirSync } from "node:fs";
import { posix } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { byChapterOrder, parseLiterateDocument } from "../../tools/lib/document.ts";

/** Lower layers first. */
const layers: readonly (readonly string[])[] = [
  ["diagnostics", "paths", "sourcemap", "seeded"],
  ["markdown", "remark", "plan"],
  ["document", "io", "cli"],
  ["tangle"],
  ["definitions", "typecheck", "evidence", "stamps", "runs", "order", "repetition", "mutation", "stitch"],
  ["project", "project-code"],
  ["judge"],
  ["tangle-run", "verify"],
  ["stitch-run"],
  ["tangle-command", "verify-command", "stitch-command"],
  ["dev", "dev-typecheck", "dev-tests"],
  ["dev-session"],
];

/** Modules that compute over in-memory inputs only. */
const pure = ["seeded", "diagnostics", "paths", "sourcemap", "markdown", "remark", "plan", "document", "tangle", "definitions", "stamps", "runs", "order", "repetition", "dev", "mutation", "project", "project-code", "judge", "stitch"];

const layerOf = (name: string): number => layers.findIndex((layer) => layer.includes(name));
const modules = readdirSync("tools/lib").filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3));
const importsOf = (file: string): string[] => [...readFileSync(file, "utf8").matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1] ?? "");

describe("the toolchain's layers", () => {
  it("place every module of tools/lib in a layer", () => {
    expect(modules.filter((m) => layerOf(m) < 0)).toEqual([]);
  });

  it.each(modules)("let %s import only from its own layer or below", (name) => {
    const upward = importsOf(`tools/lib/${name}.ts`)
      .filter((spec) => spec.startsWith("./"))
      .map((spec) => spec.slice(2, -3))
      .filter((dep) => layerOf(dep) > layerOf(name));
    expect(upward).toEqual([]);
  });

  it.each(pure)("keep %s free of the disk, the process and child processes", (name) => {
    const text = readFileSync(`tools/lib/${name}.ts`, "utf8");
    const touching = importsOf(`tools/lib/${name}.ts`).filter((spec) => ["node:fs", "node:child_process", "node:fs/promises"].includes(spec));
    expect(touching).toEqual([]);
    expect(text).not.toMatch(/process\.(exit|stdout|stderr|cwd)/);
  });
});

// The rules (tools/lib/rules/): one module per rule, each pure, each reading the facts and the
// modules of the layer of the facts' makers (definitions, evidence, runs, order, …) or below; only
// the judge runs them, so no other module decides a verdict.
const ruleModules = readdirSync("tools/lib/rules").filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3));

describe("the rules and the one judge", () => {
  it.each(ruleModules)("let rules/%s import only rules/rule.ts and the modules below the project model", (name) => {
    const specs = importsOf(`tools/lib/rules/${name}.ts`);
    const outside = specs.filter((spec) => spec.startsWith("../")).map((spec) => spec.slice(3, -3)).filter((dep) => layerOf(dep) < 0 || layerOf(dep) >= layerOf("project"));
    const siblings = specs.filter((spec) => spec.startsWith("./") && spec !== "./rule.ts");
    expect([...outside, ...siblings]).toEqual([]);
    expect(specs.filter((spec) => ["node:fs", "node:child_process", "node:fs/promises"].includes(spec))).toEqual([]);
  });

  it("let no module but the judge run a rule: the others import at most the shared rules/rule.ts", () => {
    const importers = [...modules.map((m) => `tools/lib/${m}.ts`), ...readdirSync("tools").filter((f) => f.endsWith(".ts")).map((f) => `tools/${f}`)].filter((file) => file !== "tools/lib/judge.ts");
    const running = importers.flatMap((file) => importsOf(file).filter((spec) => /rules\/(?!rule\.ts$)/.test(spec)).map((spec) => `${file} imports ${spec}`));
    expect(running).toEqual([]);
  });
});

/** The docs site's library, tools/lib/docs/, lower layers first; all of tools/lib sits below it. */
const docsLayers: readonly (readonly string[])[] = [
  ["html", "errors-index", "search", "chapter", "attribution-folder", "static"],
  ["code-html", "layout"],
  ["highlight", "xref"],
  ["model"],
  ["pages", "attribution", "api", "assets", "cache"],
  ["extra-pages"],
  ["build"],
  ["serve", "dev-serve"],
];

/** Docs modules that compute over in-memory inputs only. */
const docsPure = ["html", "errors-index", "search", "chapter", "attribution-folder", "code-html", "layout", "highlight", "model", "pages", "extra-pages"];

const docsLayerOf = (name: string): number => docsLayers.findIndex((layer) => layer.includes(name));
const docsModules = readdirSync("tools/lib/docs").filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3));

describe("the docs site's layers", () => {
  it("place every module of tools/lib/docs in a layer", () => {
    expect(docsModules.filter((m) => docsLayerOf(m) < 0)).toEqual([]);
  });

  it("keep tools/lib below tools/lib/docs: no toolchain module imports the docs", () => {
    expect(modules.filter((m) => importsOf(`tools/lib/${m}.ts`).some((spec) => spec.startsWith("./docs/")))).toEqual([]);
  });

  it.each(docsModules)("let docs/%s import only from its own layer or below, and from tools/lib", (name) => {
    const specs = importsOf(`tools/lib/docs/${name}.ts`);
    const upward = specs
      .filter((spec) => spec.startsWith("./"))
      .map((spec) => spec.slice(2, -3))
      .filter((dep) => docsLayerOf(dep) > docsLayerOf(name));
    expect(upward).toEqual([]);
    expect(specs.filter((spec) => spec.startsWith("../") && (spec.startsWith("../../") || spec === "../cli.ts"))).toEqual([]);
  });

  it.each(docsPure)("keep docs/%s free of the disk, the process and child processes", (name) => {
    const text = readFileSync(`tools/lib/docs/${name}.ts`, "utf8");
    const touching = importsOf(`tools/lib/docs/${name}.ts`).filter((spec) => ["node:fs", "node:child_process", "node:fs/promises", "node:http"].includes(spec));
    expect(touching).toEqual([]);
    expect(text).not.toMatch(/process\.(exit|stdout|stderr|cwd)/);
  });
});

// The book's own layers are its chapters: the layer order is the reading order. Each chapter's
// module may import only from modules of chapters earlier in the book (front matter `order`, then
// path, as the docs site and verify order them); type-only imports and re-exports count too.
// Read from the real `literate/` and `generated/`, independently of verify's own check.

/** The chapters of the real book that tangle a module, in reading order, with the module each writes. */
const chapters = readdirSync("literate")
  .filter((f) => f.endsWith(".md"))
  .map((f) => parseLiterateDocument(`literate/${f}`, readFileSync(`literate/${f}`, "utf8")))
  .sort(byChapterOrder)
  .flatMap((doc) => (doc.frontMatter.tangle?.startsWith("generated/") === true ? [{ doc, module: doc.frontMatter.tangle }] : []));

const chapterOf = new Map(chapters.map((c, rank) => [c.module, { ...c, rank }]));
const describeChapter = (c: { readonly doc: { readonly path: string; readonly frontMatter: { readonly order?: number } }; readonly module: string }): string =>
  `${c.module} (${c.doc.path}, ${c.doc.frontMatter.order === undefined ? "no order" : `order ${c.doc.frontMatter.order}`})`;

/** Every module an `import … from` or `export … from` of the file names, type-only ones included. */
const modulesImportedBy = (file: string): string[] =>
  ts
    .createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
    .statements.flatMap((s) => ((ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier !== undefined && ts.isStringLiteral(s.moduleSpecifier) ? [s.moduleSpecifier.text] : []));

describe("the book's layers are its reading order", () => {
  it("give every module in generated/ a chapter", () => {
    const modules = readdirSync("generated").filter((f) => f.endsWith(".ts")).map((f) => `generated/${f}`);
    expect(modules.filter((m) => !chapterOf.has(m))).toEqual([]);
  });

  it.each(chapters.map((c) => c.module))("let %s import only from chapters earlier in the book", (module) => {
    const importer = chapterOf.get(module);
    if (importer === undefined) throw new Error(`no chapter tangles \`${module}\``);
    const later = modulesImportedBy(module)
      .filter((spec) => spec.startsWith("./"))
      .flatMap((spec) => {
        const dep = chapterOf.get(posix.join("generated", spec));
        return dep !== undefined && dep.rank > importer.rank ? [`${describeChapter(importer)} imports ${describeChapter(dep)}, which comes later in the book`] : [];
      });
    expect(later).toEqual([]);
  });
});
