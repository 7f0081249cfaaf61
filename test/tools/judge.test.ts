// The judge over documents held as texts, as an editor holds its unsaved buffers: every rule's
// verdict comes back without a file being written, and a document that does not tangle gets its
// tangle errors instead of verdicts. The rules carry their metadata beside their logic.
import { describe, expect, it } from "vitest";
import { judge, judgeTexts, rules, factsOf } from "../../tools/lib/rules/judge.ts";
import { ProjectModel } from "../../tools/lib/core/project.ts";
import type { TestFacts } from "../../tools/lib/rules/rule.ts";
import { fence, md } from "./support.ts";

const checked = { compiler: "native" as const, diagnostics: [], milliseconds: 0 };
const noTests: TestFacts = { evidence: undefined, scope: "all", refresh: "`npm run verify -- --stamp`", absent: () => [] };
const known = { checked, inProgram: undefined, tests: noTests, records: new Map<string, string | undefined>() };

/** A chapter with two functions; the second has no prose before it. */
const unsaved = md("---", "tangle: generated/a.ts", "---", "# A", "", "One.", "", `${fence}ts`, "export function one(): number {", "  return 1;", "}", fence, "", `${fence}ts`, "export function two(): number {", "  return 2;", "}", fence, "");

describe("judgeTexts", () => {
  it("judges an editor's unsaved text: the block with no prose before it fails rule 2 at its fence", () => {
    const judged = judgeTexts([{ path: "literate/a.md", text: unsaved }], known);
    if ("tangleErrors" in judged) throw new Error("expected a judgement");
    expect(judged.blocks.map((b) => [b.line, b.checks.prose])).toEqual([
      [8, true],
      [14, false],
    ]);
    expect(judged.problems.filter((p) => p.severity === "error").map((p) => `${p.file}:${p.line} ${p.rule}`)).toEqual(["literate/a.md:14 prose"]);
  });

  it("returns a document's tangle errors when it does not tangle", () => {
    const judged = judgeTexts([{ path: "literate/a.md", text: unsaved.replace(`${fence}ts\nexport function two`, `${fence}ts file=\nexport function two`) }], known);
    expect("tangleErrors" in judged && judged.tangleErrors.map((d) => d.rule)).toEqual(["bad-attribute"]);
  });
});

describe("the rules", () => {
  it("each carry an id and a one-sentence description beside their check, ids unique", () => {
    expect(rules.map((r) => r.id)).toEqual(["one-definition", "prose", "compiles", "order", "tested", "pinned", "doc-comment"]);
    for (const rule of rules) expect(rule.description).toMatch(/^[a-z].*[^.]$/);
  });

  it("run alone when asked, the others then passing every block", () => {
    const model = ProjectModel.of([{ path: "literate/a.md", text: unsaved }], { scan: "remark" });
    const judged = judge(factsOf(model, known), { only: ["pinned"] });
    expect(judged.blocks.every((b) => b.checks.prose)).toBe(true);
    expect(judged.ok).toBe(true);
  });
});
