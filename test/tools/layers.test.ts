// The toolchain's layers, written down and enforced in folders: a module of tools/lib/FOLDER may
// import only from its own folder or the folders below it, no import cycle exists anywhere in
// tools/ (inside a folder included), the pure folders never touch the disk or the process, and
// only the judge runs a rule. The book's chapters are layers too, in reading order (at the end).
import { readFileSync, readdirSync } from "node:fs";
import { posix } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { byChapterOrder, parseLiterateDocument } from "../../tools/lib/core/document.ts";

/** The folders of tools/lib, lower first; the CLIs in tools/ stand above them all. */
const folders = ["core", "rules", "disk", "runners", "commands", "docs", "dev", "lsp"] as const;

/** Folders whose modules compute over in-memory inputs only. */
const pureFolders = ["core", "rules"];

/** The docs site's modules that compute over in-memory inputs only. */
const docsPure = ["html", "errors-index", "search", "chapter", "attribution-folder", "code-html", "layout", "highlight", "model", "pages", "extra-pages"].map((name) => `tools/lib/docs/${name}.ts`);

/** Every TypeScript file under `folder`, as repository paths. */
const filesUnder = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => posix.join(entry.parentPath.split("\\").join("/"), entry.name))
    .sort();

/** Every module an import, a re-export or a dynamic `import()` of the file names, type-only ones included. */
const modulesImportedBy = (file: string): string[] => {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  return found;
};

/** The repository paths of the toolchain's own modules the file imports. */
const localImportsOf = (file: string): string[] => modulesImportedBy(file).filter((spec) => spec.startsWith(".")).map((spec) => posix.join(posix.dirname(file), spec));

/** The folder of tools/lib a module is in (`undefined` for a CLI in tools/ or a file outside the folders). */
const folderOf = (file: string): string | undefined => /^tools\/lib\/([^/]+)\//.exec(file)?.[1];
const rank = (file: string): number => {
  const folder = folderOf(file);
  return folder === undefined ? folders.length : folders.indexOf(folder as (typeof folders)[number]);
};

/**
 * The import cycles of a graph (module → the modules it imports): each strongly connected set
 * of two or more modules, or one that imports itself, sorted, found by Tarjan's algorithm.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      members.push(member);
    } while (member !== node);
    if (members.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(members.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return cycles;
}

const cliFiles = readdirSync("tools").filter((f) => f.endsWith(".ts")).map((f) => `tools/${f}`);
const libFiles = filesUnder("tools/lib");
const toolchain = new Map([...cliFiles, ...libFiles].map((file) => [file, localImportsOf(file)]));

describe("the cycle detector the layers rely on", () => {
  it("finds the cycle in a graph that has one, and only its members", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", []],
      ["e", ["e"]],
    ]);
    expect(importCycles(graph)).toEqual([["a", "b", "c"], ["e"]]);
  });

  it("finds none in a graph whose imports all point one way", () => {
    expect(importCycles(new Map([["a", ["b", "c"]], ["b", ["c"]], ["c", []]]))).toEqual([]);
  });
});

describe("the toolchain's folders", () => {
  it("place every module of tools/lib in one of the named folders", () => {
    expect(libFiles.filter((file) => rank(file) < 0 || rank(file) === folders.length)).toEqual([]);
  });

  it("are the folders tools/lib holds, and those the README's Layout section lists, in the same order", () => {
    const holds = readdirSync("tools/lib", { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    const layout = readFileSync("README.md", "utf8").split("## Layout")[1]?.split("```")[1] ?? "";
    expect(holds.sort()).toEqual([...folders].sort());
    expect([...layout.matchAll(/^ {2}([a-z]+)\/ /gm)].map((m) => m[1])).toEqual([...folders]);
  });

  it("find no import cycle anywhere in tools/, inside a folder or across folders", () => {
    expect(importCycles(toolchain)).toEqual([]);
  });

  it.each(libFiles)("let %s import only from its own folder or the folders below it", (file) => {
    const upward = (toolchain.get(file) ?? []).filter((dep) => rank(dep) > rank(file)).map((dep) => `imports ${dep}`);
    expect(upward).toEqual([]);
  });

  it.each(libFiles.filter((file) => pureFolders.includes(folderOf(file) ?? "") || docsPure.includes(file)))("keep %s free of the disk, the process and child processes", (file) => {
    const touching = modulesImportedBy(file).filter((spec) => ["node:fs", "node:fs/promises", "node:child_process", "node:http"].includes(spec));
    expect(touching).toEqual([]);
    expect(readFileSync(file, "utf8")).not.toMatch(/\bprocess\./);
  });

  it("let only the command bodies use the CLIs' shell (commands/cli.ts): no library module does", () => {
    const body = (file: string): boolean => folderOf(file) === "commands" || file.endsWith("/command.ts");
    expect(libFiles.filter((file) => !body(file) && (toolchain.get(file) ?? []).includes("tools/lib/commands/cli.ts"))).toEqual([]);
  });
});

// The rules (tools/lib/rules/): one module per rule, each pure, each reading the core's facts and
// the shared rules/rule.ts; only the judge runs them, so no other module decides a verdict.
const ruleFiles = libFiles.filter((file) => folderOf(file) === "rules" && !["tools/lib/rules/judge.ts", "tools/lib/rules/rule.ts"].includes(file));

describe("the rules and the one judge", () => {
  it.each(ruleFiles)("let %s import only rules/rule.ts and the core", (file) => {
    const outside = (toolchain.get(file) ?? []).filter((dep) => dep !== "tools/lib/rules/rule.ts" && folderOf(dep) !== "core");
    expect(outside).toEqual([]);
  });

  it("let no module but the judge run a rule: the others import at most the shared rules/rule.ts", () => {
    const running = [...toolchain].flatMap(([file, deps]) => (file === "tools/lib/rules/judge.ts" ? [] : deps.filter((dep) => ruleFiles.includes(dep)).map((dep) => `${file} imports ${dep}`)));
    expect(running).toEqual([]);
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
