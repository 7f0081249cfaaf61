// The project model: each document is parsed once per text, an update re-parses only the
// document it changes, and whatever the model computes after updates is what a fresh model over
// the same texts computes.
import { describe, expect, it } from "vitest";
import { parseLiterateDocument } from "../../tools/lib/core/document.ts";
import { definitionAnalyses, targetTrees } from "../../tools/lib/core/project-code.ts";
import { ProjectModel, type DocumentParser } from "../../tools/lib/core/project.ts";
import type { TangleInput } from "../../tools/lib/core/tangle.ts";

/** A chapter writing `generated/NAME.ts`, defining `NAME` and splicing `<<NAME-part>>` from `part.md`. */
function chapter(name: string, body = "return 1;"): string {
  return ["---", `tangle: generated/${name}.ts`, "---", "", `# ${name}`, "", `**${name}** returns one.`, "", "```ts", `export function ${name}(): number {`, `  <<${name}-part>>`, `  ${body}`, "}", "```", ""].join("\n");
}

/** The document holding every chapter's spliced part. */
function parts(names: readonly string[], extra = ""): string {
  return ["# Parts", "", ...names.flatMap((name) => [`The part of ${name}.`, "", `\`\`\`ts #${name}-part`, `const ${name}Part = 0;${extra}`, "```", ""])].join("\n");
}

const inputs = (): TangleInput[] => [
  { path: "literate/a.md", text: chapter("a") },
  { path: "literate/b.md", text: chapter("b") },
  { path: "literate/part.md", text: parts(["a", "b"]) },
];

/** A model whose parses are recorded, path by path. */
function counted(from: readonly TangleInput[] = inputs()): { model: ProjectModel; parsed: string[] } {
  const parsed: string[] = [];
  const parse: DocumentParser = (path, text, scan) => {
    parsed.push(path);
    return parseLiterateDocument(path, text, scan);
  };
  return { model: ProjectModel.of(from, { parse }), parsed };
}

describe("the project model", () => {
  it("parses each document once, however often its tangle and hashes are read", () => {
    const { model, parsed } = counted();
    expect(model.tangle().ok).toBe(true);
    model.tangle();
    model.hashes();
    expect(parsed.sort()).toEqual(["literate/a.md", "literate/b.md", "literate/part.md"]);
    expect(model.counts.tangles).toBe(1);
  });

  it("re-parses only the document an update changes", () => {
    const { model, parsed } = counted();
    model.tangle();
    parsed.length = 0;
    expect(model.update("literate/b.md", chapter("b", "return 2;"))).toBe(true);
    const result = model.tangle();
    expect(parsed).toEqual(["literate/b.md"]);
    expect(result.files.get("generated/b.ts")).toContain("return 2;");
    expect(model.counts.tangles).toBe(2);
  });

  it("reuses everything when an update brings the text it already holds", () => {
    const { model, parsed } = counted();
    const result = model.tangle();
    const hashes = model.hashes();
    const trees = model.derived(targetTrees);
    parsed.length = 0;
    expect(model.update("literate/a.md", chapter("a"))).toBe(false);
    expect(model.sync(inputs())).toEqual([]);
    expect(model.tangle()).toBe(result);
    expect(model.hashes()).toBe(hashes);
    expect(model.derived(targetTrees)).toBe(trees);
    expect(parsed).toEqual([]);
    expect(model.counts.derivations["target trees"]).toBe(1);
  });

  it("tangles, after updates, exactly what a fresh model tangles from the same texts", () => {
    const { model } = counted();
    model.tangle();
    model.update("literate/part.md", parts(["a", "b"], " // changed"));
    model.update("literate/a.md", chapter("a", "return 3;"));
    const fresh = ProjectModel.of([
      { path: "literate/part.md", text: parts(["a", "b"], " // changed") },
      { path: "literate/b.md", text: chapter("b") },
      { path: "literate/a.md", text: chapter("a", "return 3;") },
    ]);
    expect(model.tangle()).toEqual(fresh.tangle());
    expect(model.hashes()).toEqual(fresh.hashes());
    expect(model.derived(definitionAnalyses)).toEqual(fresh.derived(definitionAnalyses));
  });

  it("keeps the syntax tree of a target whose text an update did not change", () => {
    const { model } = counted();
    const before = model.derived(targetTrees);
    model.update("literate/b.md", chapter("b", "return 2;"));
    const after = model.derived(targetTrees);
    expect(after.get("generated/a.ts")).toBe(before.get("generated/a.ts"));
    expect(after.get("generated/b.ts")).not.toBe(before.get("generated/b.ts"));
    expect(after.get("generated/b.ts")?.text).toContain("return 2;");
  });

  it("drops a removed document's blocks and targets", () => {
    const { model } = counted();
    const before = model.tangle();
    expect(model.remove("literate/b.md")).toBe(true);
    model.update("literate/part.md", parts(["a"]));
    const after = model.tangle();
    expect(after.ok).toBe(true);
    expect(after.blocks.map((b) => b.doc)).toEqual(["literate/a.md", "literate/part.md"]);
    expect([...after.files.keys()]).toEqual(["generated/a.ts"]);
    expect(before.files.has("generated/b.ts")).toBe(true);
    expect(model.paths).toEqual(["literate/a.md", "literate/part.md"]);
    expect(model.remove("literate/b.md")).toBe(false);
  });

  it("scans with remark when asked, so blocks carry whether prose stands before them", () => {
    const auto = ProjectModel.of(inputs());
    const remark = ProjectModel.of(inputs(), { scan: "remark" });
    expect(auto.tangle().blocks[0]?.proseBefore).toBeUndefined();
    expect(remark.tangle().blocks[0]?.proseBefore).toBe(true);
    expect(remark.tangle().files).toEqual(auto.tangle().files);
  });
});
