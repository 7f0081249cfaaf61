// Mutation evidence (rule 5, pinned): mutants map back to their blocks in Markdown terms, a
// record goes stale with its block, a score under the threshold or a stale equivalence
// declaration fails at its line, and a recorded kill is re-checked by putting the mutant back.
import { afterAll, describe, expect, it } from "vitest";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeDefinitions } from "../../tools/lib/core/definitions.ts";
import { formatDiagnostic } from "../../tools/lib/core/diagnostics.ts";
import { describeBookScore, factsOf, judge } from "../../tools/lib/rules/judge.ts";
import { ProjectModel } from "../../tools/lib/core/project.ts";
import {
  applyMutant,
  formatChapterRecord,
  judgePinned,
  mutantsByBlock,
  parseChapterRecord,
  recordPath,
  recordTestsHash,
  reusableRecord,
  sampleKills,
  type ChapterRecord,
  type MutantRecord,
  type StrykerReport,
} from "../../tools/lib/core/mutation.ts";
import { parseTargets } from "../../tools/lib/core/runs.ts";
import { blockHashes } from "../../tools/lib/core/stamps.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";
import { Project, launcher, repository, run } from "./verify-project.ts";

const doc = "literate/half.md";

/** A chapter with one function, `half` (fence on line 7, its `return` on line 9), and optionally an `equivalent` fence after it. */
function chapter(options: { readonly body?: string; readonly equivalent?: readonly string[] } = {}): string {
  return [
    "---",
    "tangle: generated/half.ts",
    "test: test/half.test.ts",
    "---",
    "**half** halves an even number and refuses an odd one.",
    "",
    "```ts",
    "export function half(n: number): number {",
    options.body ?? '  if (n % 2 !== 0) throw new RangeError("odd");',
    "  return n / 2;",
    "}",
    "```",
    ...(options.equivalent === undefined ? [] : ["", "Why the survivor below cannot be told apart.", "", "```equivalent", ...options.equivalent, "```"]),
    "",
    "The tests.",
    "",
    "```ts test",
    'import { expect, it } from "vitest";',
    'import { half } from "../generated/half.ts";',
    'it("halves four", () => expect(half(4)).toBe(2));',
    "```",
    "",
  ].join("\n");
}

function book(text: string) {
  const result = tangle([{ path: doc, text }], { scan: "remark" });
  const { analyses } = analyzeDefinitions(result, parseTargets(result));
  return { result, analyses, hashes: blockHashes(result) };
}

const killed = (at: Partial<MutantRecord> = {}): MutantRecord => ({ line: 3, column: 10, endLine: 3, endColumn: 15, mutator: "ArithmeticOperator", replacement: "n * 2", status: "killed", killedBy: ["halves four"], ...at });
const survivor = (at: Partial<MutantRecord> = {}): MutantRecord => ({ line: 2, column: 7, endLine: 2, endColumn: 19, mutator: "ConditionalExpression", replacement: "false", status: "survived", killedBy: [], ...at });

/** The hash of `half` as `chapter()` spells it. */
function current(): string {
  const b = book(chapter());
  return b.hashes[b.result.blocks.findIndex((block) => block.lines[0]?.startsWith("export function half") === true)] ?? "";
}

function recordFor(hash: string, mutants: readonly MutantRecord[]): string {
  const record: ChapterRecord = { doc, tests: "test/half.test.ts", testsHash: "000000000000", blocks: [{ id: "half", hash, mutants }] };
  return formatChapterRecord(record);
}

function pinned(text: string, record: string | undefined) {
  const b = book(text);
  const verdict = judgePinned(b.result, b.analyses, b.hashes, new Map([[doc, record]]));
  return { ...verdict, messages: [...verdict.byBlock.values(), verdict.global].flat().map(formatDiagnostic) };
}

describe("mapping mutants to Markdown", () => {
  it("places a mutant of the generated file at its block-relative line and Markdown column", () => {
    const { result } = book(chapter());
    const generated = result.files.get("generated/half.ts") ?? "";
    const lines = generated.split("\n");
    const line = lines.findIndex((l) => l.includes("return n / 2")) + 1;
    const column = (lines[line - 1] ?? "").indexOf("n / 2") + 1;
    const report: StrykerReport = {
      files: { "generated/half.ts": { mutants: [{ id: "1", mutatorName: "ArithmeticOperator", replacement: "n * 2", status: "Killed", killedBy: ["t1"], location: { start: { line, column }, end: { line, column: column + 5 } } }] } },
      testFiles: { "test/half.test.ts": { tests: [{ id: "t1", name: "halves four" }] } },
    };
    const byBlock = mutantsByBlock(report, result);
    const block = result.blocks.findIndex((b) => b.lines[0]?.startsWith("export function half") === true);
    expect(byBlock.get(block)).toEqual([killed()]);
    // Line 3 of the block whose fence is on line 7 is Markdown line 10, where `n / 2` starts at column 10.
    expect(chapter().split("\n")[9]?.indexOf("n / 2")).toBe(9);
  });

  it("puts a recorded mutant back into the generated file at the place it names", () => {
    const { result } = book(chapter());
    const block = result.blocks.findIndex((b) => b.lines[0]?.startsWith("export function half") === true);
    const mutated = applyMutant(result, block, killed());
    expect(mutated?.target).toBe("generated/half.ts");
    expect(mutated?.text).toContain("  return n * 2;");
    expect(mutated?.text).not.toContain("n / 2");
  });

  it("keeps a record whole through formatting and parsing, and refuses a hand-broken one naming the field", () => {
    const text = recordFor("abc", [killed(), survivor()]);
    expect(formatChapterRecord(parseChapterRecord(recordPath(doc), text))).toBe(text);
    expect(() => parseChapterRecord("mutation/half.json", text.replace('"status":"survived"', '"status":"dead"'))).toThrow(/blocks\[0\]\.mutants\[1\]\.status/);
  });
});

describe("rule 5, pinned", () => {
  it("passes a block whose current record kills enough of its mutants", () => {
    const verdict = pinned(chapter(), recordFor(current(), [killed(), killed({ replacement: "n - 2", mutator: "ArithmeticOperator" }), killed({ line: 2, mutator: "StringLiteral", replacement: '""' }), killed({ line: 2, mutator: "BlockStatement", replacement: "{}" }), survivor()]));
    expect(verdict.messages).toEqual([]);
    expect(verdict.recorded).toEqual([doc]);
  });

  it("lists a chapter without a record file and fails none of its blocks in a project that keeps no records", () => {
    const verdict = pinned(chapter(), undefined);
    expect(verdict.messages).toEqual([]);
    expect(verdict.unrecorded).toEqual([doc]);
  });

  it("fails every block of a chapter without a record file once the project keeps records for another", () => {
    const other = "literate/double.md";
    const otherText = chapter().replaceAll("half", "double").replace("n / 2", "n * 2");
    const result = tangle([{ path: doc, text: chapter() }, { path: other, text: otherText }], { scan: "remark" });
    const { analyses } = analyzeDefinitions(result, parseTargets(result));
    const hashes = blockHashes(result);
    const doubled = result.blocks.findIndex((b) => b.doc === other && b.lines[0]?.startsWith("export function double") === true);
    const record = formatChapterRecord({ doc: other, tests: "test/double.test.ts", testsHash: "0", blocks: [{ id: "double", hash: hashes[doubled] ?? "", mutants: [killed()] }] });
    const verdict = judgePinned(result, analyses, hashes, new Map([[doc, undefined], [other, record]]));
    expect([...verdict.byBlock.values()].flat().map(formatDiagnostic)).toEqual(["literate/half.md:7:1 pinned: no mutation record for this block (`half`)\n  hint: run `npm run mutate -- --chapter half` and commit `mutation/half.json`"]);
    expect([verdict.recorded, verdict.unrecorded]).toEqual([[other], [doc]]);
  });

  it("fails a block with no record in its chapter's file, at the block, with a hint", () => {
    const verdict = pinned(chapter(), formatChapterRecord({ doc, tests: "test/half.test.ts", testsHash: "0", blocks: [] }));
    expect(verdict.messages).toEqual(["literate/half.md:7:1 pinned: no mutation record for this block (`half`)\n  hint: run `npm run mutate -- --chapter half` and commit `mutation/half.json`"]);
  });

  it("fails a block whose code changed since its record was made", () => {
    const verdict = pinned(chapter({ body: '  if (n % 2 === 1) throw new RangeError("odd");' }), recordFor(current(), [killed()]));
    expect(verdict.messages).toHaveLength(1);
    expect(verdict.messages[0]).toMatch(/^literate\/half\.md:7:1 pinned: mutation record `[0-9a-f]{12}` is stale: the block changed since its mutants were run/);
  });

  it("fails a block scoring under 80%, naming each survivor at its Markdown line", () => {
    const verdict = pinned(chapter(), recordFor(current(), [killed(), survivor()]));
    expect(verdict.messages).toHaveLength(1);
    expect(verdict.messages[0]).toContain("literate/half.md:7:1 pinned: mutation score 50.0% is under 80%: 1 of 2 mutants survive the tests (literate/half.md:9:7 survived: ConditionalExpression, replaced by `false`)");
    expect(verdict.messages[0]).toContain("hint: write tests that state the behaviour");
  });

  it("leaves a declared equivalent mutant out of the score", () => {
    const verdict = pinned(chapter({ equivalent: ["2:7 ConditionalExpression false — every caller passes an even number"] }), recordFor(current(), [killed(), survivor()]));
    expect(verdict.messages).toEqual([]);
    expect([...verdict.scores.values()]).toEqual([{ detected: 1, survived: 0, equivalent: 1, assumed: 0, score: 100 }]);
  });

  it("lets a declaration name one mutant only: two survivors starting at its place fail it, and its range picks one", () => {
    const short = survivor({ endColumn: 19 });
    const long = survivor({ endColumn: 30 });
    const vague = pinned(chapter({ equivalent: ["2:7 ConditionalExpression false — the same either way"] }), recordFor(current(), [killed(), killed({ replacement: "n - 2" }), killed({ replacement: "n + 2" }), killed({ replacement: "n % 2" }), short, long]));
    expect(vague.messages).toContain(
      "literate/half.md:17:1 pinned: declares `ConditionalExpression false` at 2:7 equivalent, but 2 surviving mutants start there (`2:7-2:19`, `2:7-2:30`): a declaration names one mutant\n  hint: give the range of the one meant (`LINE:COLUMN-LINE:COLUMN`), one line for each mutant that is equivalent",
    );
    expect([...vague.scores.values()]).toEqual([{ detected: 4, survived: 2, equivalent: 0, assumed: 0, score: (100 * 4) / 6 }]);
    const exact = pinned(chapter({ equivalent: ["2:7-2:30 ConditionalExpression false — the same either way"] }), recordFor(current(), [killed(), killed({ replacement: "n - 2" }), killed({ replacement: "n + 2" }), killed({ replacement: "n % 2" }), short, long]));
    expect(exact.messages).toEqual([]);
    expect([...exact.scores.values()]).toEqual([{ detected: 4, survived: 1, equivalent: 1, assumed: 0, score: 80 }]);
    expect([...exact.survivors.values()]).toEqual([[short]]);
  });

  it("fails a ranged declaration whose end names no survivor, printing the range it gave", () => {
    const verdict = pinned(chapter({ equivalent: ["2:7-2:40 ConditionalExpression false — the same either way"] }), recordFor(current(), [killed(), survivor()]));
    expect(verdict.messages).toContain(
      "literate/half.md:17:1 pinned: declares `ConditionalExpression false` at 2:7-2:40 equivalent, but no such mutant survives in the block's current record\n  hint: remove the declaration (a test kills it now, or the code changed), or correct its place from what `npm run mutate` printed",
    );
  });

  it("counts a declaration whose reason begins `assumes:` as an assumption, and the book's score is also given counting it as a survivor", () => {
    const text = chapter({ equivalent: ["2:7 ConditionalExpression false — assumes: every caller passes an even number"] });
    const records = new Map([[doc, recordFor(current(), [killed(), killed({ replacement: "n - 2" }), killed({ replacement: "n + 2" }), survivor()])]]);
    const verdict = judge(factsOf(ProjectModel.of([{ path: doc, text }], { scan: "remark" }), { checked: { compiler: "native", milliseconds: 0, diagnostics: [] }, inProgram: undefined, tests: { evidence: undefined, scope: "all", refresh: "", absent: () => [] }, records }), { only: ["pinned"] });
    expect([verdict.ok, verdict.mutation.score, verdict.mutation.strictScore, verdict.mutation.assumed]).toEqual([true, 100, 75, 1]);
    expect(describeBookScore(verdict.mutation)).toBe("100.0% of 3 mutants killed (declared equivalents left out; 75.0% counting the 1 declared under an assumption as survivors)");
    expect(describeBookScore({ score: 97.44, mutants: 10, assumed: 0 })).toBe("97.4% of 10 mutants killed (declared equivalents left out)");
    expect(describeBookScore({ mutants: 0, assumed: 0 })).toBe("no mutants recorded");
  });

  it("fails a declaration that names no surviving mutant, at its own line", () => {
    const verdict = pinned(chapter({ equivalent: ["2:7 ConditionalExpression true — stale"] }), recordFor(current(), [killed()]));
    expect(verdict.messages).toEqual([
      "literate/half.md:17:1 pinned: declares `ConditionalExpression true` at 2:7 equivalent, but no such mutant survives in the block's current record\n  hint: remove the declaration (a test kills it now, or the code changed), or correct its place from what `npm run mutate` printed",
    ]);
  });

  it("fails a declaration that is not `LINE:COLUMN Mutator replacement — reason`", () => {
    const verdict = pinned(chapter({ equivalent: ["the condition does not matter"] }), recordFor(current(), [killed()]));
    expect(verdict.messages[0]).toMatch(/^literate\/half\.md:17:1 pinned: an equivalent-mutant declaration must read/);
  });

  it("keeps a block's record for a run only while its code is unchanged, and under changed tests only when asked to, claiming the older tests then, and runs a block scoring under 80% again", () => {
    const old: ChapterRecord = { doc, tests: "test/half.test.ts", testsHash: "tests-then", blocks: [{ id: "half", hash: "code-then", mutants: [killed()] }] };
    expect(reusableRecord(old, "tests-then", "code-then", false)).toBe(old.blocks[0]);
    expect(reusableRecord(old, "tests-then", "code-now", true)).toBeUndefined();
    expect(reusableRecord(old, "tests-now", "code-then", false)).toBeUndefined();
    expect(reusableRecord(old, "tests-now", "code-then", true)).toBe(old.blocks[0]);
    expect(reusableRecord(undefined, "tests-now", "code-then", true)).toBeUndefined();
    const weak: ChapterRecord = { ...old, blocks: [{ id: "half", hash: "code-then", mutants: [killed(), survivor()] }] };
    expect([reusableRecord(weak, "tests-now", "code-then", true), reusableRecord(weak, "tests-then", "code-then", false)]).toEqual([undefined, weak.blocks[0]]);
    expect([recordTestsHash(old, "tests-now", true), recordTestsHash(old, "tests-now", false), recordTestsHash(old, "tests-then", true), recordTestsHash(undefined, "tests-now", true)]).toEqual(["tests-then", "tests-now", "tests-then", "tests-now"]);
  });

  it("draws the same sample of recorded kills from the same seed, and only kills", () => {
    const b = book(chapter());
    const record = parseChapterRecord(recordPath(doc), recordFor(current(), [killed(), killed({ replacement: "n - 2" }), survivor()]));
    const first = sampleKills(b.result, b.hashes, [record], 5, 42);
    expect(first.map((k) => k.mutant.replacement).sort()).toEqual(["n * 2", "n - 2"]);
    expect(sampleKills(b.result, b.hashes, [record], 1, 7)).toEqual(sampleKills(b.result, b.hashes, [record], 1, 7));
  });
});

describe("npm run mutate --sample, in a real project", { timeout: 120_000 }, () => {
  const projects: Project[] = [];
  afterAll(() => {
    for (const p of projects) p.remove();
  });

  it("passes a recorded kill its test still makes, and fails a forged one at its Markdown line", async () => {
    const text = chapter();
    const project = new Project({ [doc]: text });
    projects.push(project);
    copyFileSync(join(repository, "vitest.mutate.config.ts"), join(project.root, "vitest.mutate.config.ts"));
    expect((await run(process.execPath, [launcher, "tangle", "--root", project.root], project.root)).code).toBe(0);
    // `n * 2` makes half(4) 8: the test kills it. The `throw` removed changes nothing half(4) shows: a forged kill.
    const forged = survivor({ line: 2, column: 20, endLine: 2, endColumn: 48, mutator: "BlockStatement", replacement: "{}", status: "killed", killedBy: ["halves four"] });
    project.write(recordPath(doc), recordFor(current(), [killed(), forged]));
    const ok = await run(process.execPath, [launcher, "mutate", "--root", project.root, "--sample", "2", "--seed", "1"], project.root);
    expect(ok.stderr).toContain("literate/half.md:9:20 pinned: a recorded kill no longer kills: BlockStatement, replaced by `{}`; `halves four` passed with it in place");
    expect(ok.stdout).toContain("still killed: literate/half.md:10:10 killed: ArithmeticOperator, replaced by `n * 2`");
    expect(ok.code).toBe(1);
  });

  it("refuses to run without vitest.mutate.config.ts, naming the file and what to put in it, as a user error", async () => {
    const project = new Project({ [doc]: chapter() });
    projects.push(project);
    expect((await run(process.execPath, [launcher, "tangle", "--root", project.root], project.root)).code).toBe(0);
    const refused = await run(process.execPath, [launcher, "mutate", "--root", project.root, "--chapter", "half"], project.root);
    expect(refused.stderr).toContain("vitest.mutate.config.ts usage: `npm run mutate` runs the tests with `vitest.mutate.config.ts`, which this project does not have");
    expect(refused.stderr).toMatch(/hint: add it: a Vitest configuration/);
    expect(refused.code).toBe(1);
  });
});
