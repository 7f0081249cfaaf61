// The judge over documents held as texts, as an editor holds its unsaved buffers: every rule's
// verdict comes back without a file being written, and a document that does not tangle gets its
// tangle errors instead of verdicts. The rules carry their metadata beside their logic.
import { describe, expect, it } from "vitest";
import { judge, judgeAhead, rules, factsOf } from "../../tools/lib/rules/judge.ts";
import { ProjectModel } from "../../tools/lib/core/project.ts";
import type { TestFacts } from "../../tools/lib/rules/rule.ts";
import { fence, md } from "./support.ts";

const checked = { compiler: "native" as const, diagnostics: [], milliseconds: 0 };
const noTests: TestFacts = { evidence: undefined, scope: "all", refresh: "`npm run verify -- --stamp`", absent: () => [] };
const known = { checked, inProgram: undefined, tests: noTests, records: new Map<string, string | undefined>() };

/** A chapter with two functions; the second has no prose before it. */
const unsaved = md("---", "tangle: generated/a.ts", "---", "# A", "", "One.", "", `${fence}ts`, "export function one(): number {", "  return 1;", "}", fence, "", `${fence}ts`, "export function two(): number {", "  return 2;", "}", fence, "");

describe("the judge over texts in memory", () => {
  it("judges an editor's unsaved text: the block with no prose before it fails rule 2 at its fence", () => {
    const judged = judge(factsOf(ProjectModel.of([{ path: "literate/a.md", text: unsaved }], { scan: "remark" }), known));
    expect(judged.blocks.map((b) => [b.line, b.checks.prose])).toEqual([
      [8, true],
      [14, false],
    ]);
    expect(judged.problems.filter((p) => p.severity === "error").map((p) => `${p.file}:${p.line} ${p.rule}`)).toEqual(["literate/a.md:14 prose"]);
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

// `npm run dev` judges one tangle several times a save (before the tests, after each run of them,
// after its stamps): a rule runs again only when a fact it reads is new, so those judgements cost
// the tested rule's evidence alone. That is safe only if each rule reads no fact it does not declare.
describe("a rule judged again", () => {
  it("reads only the facts it declares", () => {
    const model = ProjectModel.of([{ path: "literate/a.md", text: unsaved }], { scan: "remark" });
    const facts = factsOf(model, known);
    for (const rule of rules) {
      const read = new Set<string>();
      const watched = new Proxy(facts, { get: (target, key, receiver) => (typeof key === "string" && read.add(key), Reflect.get(target, key, receiver)) });
      rule.check(watched);
      expect({ rule: rule.id, undeclared: [...read].filter((key) => !(rule.reads as readonly string[]).includes(key)) }).toEqual({ rule: rule.id, undeclared: [] });
    }
  });

  it("keeps its findings while the facts it reads are the same, and judges anew when one of them changes", () => {
    const model = ProjectModel.of([{ path: "literate/a.md", text: unsaved }], { scan: "remark" });
    const first = judge(factsOf(model, known));
    const again = judge(factsOf(model, { ...known, tests: { ...noTests } }));
    expect(again.problems).toEqual(first.problems);
    expect(again.problems.find((p) => p.rule === "prose")).toBe(first.problems.find((p) => p.rule === "prose"));
    // A new text is a new tangle: rule 2 finds the block with prose before it now.
    model.update("literate/a.md", unsaved.replace(`${fence}\n\n${fence}ts\nexport function two`, `${fence}\n\nTwo.\n\n${fence}ts\nexport function two`));
    expect(judge(factsOf(model, known)).problems.filter((p) => p.rule === "prose")).toEqual([]);
    // New records alone: rule 5 is asked again (the chapter's record is missing, then present but stale).
    const withRecord = judge(factsOf(model, { ...known, records: new Map([["literate/a.md", "{}"]]) }));
    expect(withRecord.problems.filter((p) => p.rule === "pinned")).not.toEqual(judge(factsOf(model, known)).problems.filter((p) => p.rule === "pinned"));
  });

  it("judged ahead, before the type-check and the tests, gives the same verdict, and reuses those findings in the judgement that follows", () => {
    const text = unsaved.replace("export function one(): number {", "export function one(): number {\n  const unused: number = 'x';");
    const model = ProjectModel.of([{ path: "literate/a.md", text }], { scan: "remark" });
    const aheadModel = ProjectModel.of([{ path: "literate/a.md", text }], { scan: "remark" });
    const typeError = { ...checked, diagnostics: [{ file: "generated/a.ts", line: 2, column: 9, code: 2322, message: "Type 'string' is not assignable to type 'number'." }] };
    const plain = judge(factsOf(model, { ...known, checked: typeError }));
    judgeAhead(aheadModel, { inProgram: undefined, records: known.records });
    const before = aheadModel.counts;
    expect(before.derivations).toMatchObject({ runnables: 1 });
    const ahead = judge(factsOf(aheadModel, { ...known, checked: typeError }));
    expect(ahead.problems).toEqual(plain.problems);
    expect(ahead.problems.map((p) => p.rule)).toEqual(expect.arrayContaining(["prose", "compiles"]));
    // Nothing the model derives was derived again: the tangle, its trees, analyses and runnables were ready.
    expect(aheadModel.counts).toEqual(before);
  });
});
