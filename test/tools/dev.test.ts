// `npm run dev`'s pure parts, in-process: which blocks a save changed, which test files import a
// module, the judge's verdict of a block from a run's evidence and the line that prints it, the
// stamps standing for evidence outside a run, the live script in served pages; and the warm
// type-checker on a real project folder.
import { afterAll, describe, expect, it } from "vitest";
import type { Diagnostic } from "../../tools/lib/core/diagnostics.ts";
import { blockKey, changedBlocks, compileChanges, devTestFacts, directImporters, formatCompileChange, formatVerdict, verdictsOf, wantsStamp, writtenBlockKeys, type BlockVerdict } from "../../tools/lib/dev/verdicts.ts";
import { livePaths, withLiveScript } from "../../tools/lib/dev/site.ts";
import { IncrementalTypeChecker } from "../../tools/lib/runners/typecheck.ts";
import type { DocumentEvidence, TestEvidence } from "../../tools/lib/core/evidence.ts";
import { factsOf, judge } from "../../tools/lib/rules/judge.ts";
import { ProjectModel } from "../../tools/lib/core/project.ts";
import { blockHashes } from "../../tools/lib/core/stamps.ts";
import { tangle, type TangleResult } from "../../tools/lib/core/tangle.ts";
import type { TypeCheckResult } from "../../tools/lib/core/evidence.ts";
import { fence, md } from "./support.ts";
import { Project } from "./verify-project.ts";

/** A chapter: `double` at fence line 7 (declared on line 9, body on 10), `half` spliced into nothing, a test block. */
function chapter(body = "return n * 2;", stamp = ""): string {
  return md(
    "---",
    "tangle: generated/a.ts",
    "test: test/a.test.ts",
    "---",
    "Doubling.",
    "",
    `${fence}ts${stamp}`,
    "/** Twice `n`. */",
    "export function double(n: number): number {",
    `  ${body}`,
    "}",
    fence,
    "",
    "An illustration.",
    "",
    `${fence}ts no-tangle`,
    "double(1);",
    fence,
    "",
    "The tests.",
    "",
    `${fence}ts test`,
    'import { double } from "../generated/a.ts";',
    "double(2);",
    fence,
  );
}

function tangled(text: string): { result: TangleResult; hashes: string[] } {
  const result = tangle([{ path: "literate/a.md", text }], { scan: "remark" });
  return { result, hashes: blockHashes(result) };
}

describe("changedBlocks", () => {
  it("finds the block whose code changed, and not the blocks a line added above it moved", () => {
    const before = tangled(chapter());
    const previous = writtenBlockKeys(before.result, before.hashes);
    const moved = tangled(chapter().replace("Doubling.", "Doubling,\nexplained at length."));
    expect(changedBlocks(previous, moved.result, moved.hashes)).toEqual([]);
    const edited = tangled(chapter("return n + n;"));
    expect(changedBlocks(previous, edited.result, edited.hashes)).toEqual([0]);
  });

  it("takes a stamp written into a fence for no change, and ignores illustrations", () => {
    const before = tangled(chapter());
    const stamped = tangled(chapter("return n * 2;", ` tested=${before.hashes[0] ?? ""}`));
    expect(changedBlocks(writtenBlockKeys(before.result, before.hashes), stamped.result, stamped.hashes)).toEqual([]);
    const illustration = tangled(chapter().replace("double(1);", "double(3);"));
    expect(changedBlocks(writtenBlockKeys(before.result, before.hashes), illustration.result, illustration.hashes)).toEqual([]);
  });

  it("counts a method's change as a change of the class it is spliced into", () => {
    const doc = (body: string): string =>
      md("---", "tangle: generated/c.ts", "---", "A class.", "", `${fence}ts`, "export class C {", "  <<c-methods>>", "}", fence, "", "A method.", "", `${fence}ts #c-methods`, `m(): number { ${body} }`, fence);
    const one = tangle([{ path: "literate/c.md", text: doc("return 1;") }]);
    const two = tangle([{ path: "literate/c.md", text: doc("return 2;") }]);
    expect(changedBlocks(writtenBlockKeys(one, blockHashes(one)), two, blockHashes(two))).toEqual([0, 1]);
  });
});

describe("directImporters", () => {
  it("lists the test files importing a module by a relative path, not those reaching it through another module", () => {
    const files = [
      { path: "test/a.test.ts", text: 'import { double } from "../generated/a.ts";\n' },
      { path: "test/tools/b.test.ts", text: 'import type { X } from "../../generated/a.ts";\nexport { y } from "../../generated/b.ts";\n' },
      { path: "test/c.test.ts", text: 'import { c } from "../generated/c.ts";\nimport "vitest";\n' },
    ];
    expect(directImporters(files, new Set(["generated/a.ts"]))).toEqual(["test/a.test.ts", "test/tools/b.test.ts"]);
    expect(directImporters(files, new Set(["generated/b.ts"]))).toEqual(["test/tools/b.test.ts"]);
    expect(directImporters(files, new Set(["vitest"]))).toEqual([]);
  });
});

/** Evidence of a passing run of `test/a.test.ts` in which `double` ran `calls` times. */
function evidenceOf(calls: number): TestEvidence {
  const doc: DocumentEvidence = {
    statements: [{ line: 10, column: 2, endLine: 10, count: calls }],
    functions: [{ line: 9, column: 16, body: { line: 9, column: 42 }, count: calls }],
  };
  return { tests: { total: 1, passed: 1, failed: 0 }, startTime: 0, testFiles: ["test/a.test.ts"], documents: new Map([["literate/a.md", doc]]) };
}

/** The verdicts dev prints for `blocks` of `text`, judged by the judge with `run` speaking for them. */
function verdicts(text: string, run: { evidence?: TestEvidence; problems: Diagnostic[] } | undefined, blocks: readonly number[], checked: TypeCheckResult = { compiler: "native", diagnostics: [], milliseconds: 1 }): BlockVerdict[] {
  const model = ProjectModel.of([{ path: "literate/a.md", text }], { scan: "remark" });
  const judgement = judge(factsOf(model, { checked, inProgram: undefined, records: new Map(), tests: devTestFacts(new Set(blocks), run, () => "no test file imports its module") }));
  return verdictsOf(judgement, model.tangle(), blocks, run === undefined ? undefined : new Set(run.evidence?.testFiles ?? []));
}

const passing = (calls: number): { evidence: TestEvidence; problems: Diagnostic[] } => ({ evidence: evidenceOf(calls), problems: [] });

describe("verdictsOf and formatVerdict", () => {
  it("call a block tested when its function ran in the run, and ask for its stamp", () => {
    const [code, , test] = verdicts(chapter(), passing(1), [0, 1, 2]);
    expect(code).toMatchObject({ kind: "code", compiles: true, tested: true, stamped: false });
    expect(code !== undefined && wantsStamp(code)).toBe(true);
    expect(formatVerdict({ ...code!, stamped: true, problems: [] })).toBe("literate/a.md:7 compiles ✓ tested ✓ stamped ✓");
    expect(test).toMatchObject({ kind: "test", tested: true });
    expect(formatVerdict(test!)).toBe("literate/a.md:22 compiles ✓ tests pass ✓");
  });

  it("say that no passing test executed a block whose function never ran, and ask for no stamp", () => {
    const [code] = verdicts(chapter(), passing(0), [0]);
    expect(code?.tested).toBe(false);
    expect(code !== undefined && wantsStamp(code)).toBe(false);
    expect(formatVerdict(code!)).toMatch(/^literate\/a\.md:7 compiles ✓ tested ✗ stamped ✗\n {4}literate\/a\.md:7:1 tested: no passing test executed this block \(`double`\)/);
  });

  it("put a compiler error on the block's Markdown line, and stamp nothing that does not compile", () => {
    const text = chapter();
    const { result } = tangled(text);
    const line = result.targets.find((t) => t.path === "generated/a.ts")?.lineSource.indexOf(10) ?? -1;
    const checked: TypeCheckResult = { compiler: "native", diagnostics: [{ file: "generated/a.ts", line: line + 1, column: 3, code: 2322, message: "Type 'string' is not assignable to type 'number'." }], milliseconds: 1 };
    const [code] = verdicts(text, passing(1), [0], checked);
    expect(code?.compiles).toBe(false);
    expect(code !== undefined && wantsStamp(code)).toBe(false);
    expect(formatVerdict(code!)).toContain("literate/a.md:7 compiles ✗ tested ✓ stamped ✗\n    literate/a.md:10:3 compiles: TS2322");
  });

  it("leave tested unsaid before any test ran, and say why none will when the caller knows", () => {
    const [code] = verdicts(chapter(), undefined, [0]);
    expect(formatVerdict(code!)).toMatch(/^literate\/a\.md:7 compiles ✓ tested – stamped ✗\n {4}literate\/a\.md:7:1 tested: no test ran for this block \(`double`\): no test file imports its module/);
  });

  it("pass on why a run proved nothing, at each block it was to test", () => {
    const failed = { problems: [{ file: "literate/a.md", line: 24, column: 1, severity: "error" as const, rule: "tested", message: "failed: doubles: expected 5 to be 4" }] };
    const [code, , test] = verdicts(chapter(), failed, [0, 1, 2]);
    expect(formatVerdict(code!)).toBe("literate/a.md:7 compiles ✓ tested ✗ stamped ✗\n    literate/a.md:24:1 tested: failed: doubles: expected 5 to be 4");
    expect(test?.tested).toBe(false);
  });

  it("name every other rule a block fails after its three marks", () => {
    const [code] = verdicts(chapter().replace("Doubling.\n\n", ""), passing(1), [0]);
    expect(formatVerdict(code!).split("\n")[0]).toMatch(/^literate\/a\.md:5 compiles ✓ tested [✓✗] stamped ✗ prose ✗$/);
  });
});

describe("compileChanges and formatCompileChange", () => {
  /** The judgement of `chapter()` when the compiler reports `diagnostics`, and what a check with them changed since `before`, with block 0 the save's scope. */
  function changesAfter(diagnostics: TypeCheckResult["diagnostics"], before: ReadonlySet<string>) {
    const model = ProjectModel.of([{ path: "literate/a.md", text: chapter() }], { scan: "remark" });
    const checked: TypeCheckResult = { compiler: "native", diagnostics, milliseconds: 1 };
    const judgement = judge(factsOf(model, { checked, inProgram: undefined, records: new Map(), tests: devTestFacts(new Set([0]), undefined, () => undefined) }));
    const { result, hashes } = tangled(chapter());
    return { judgement, result, hashes, changes: compileChanges(judgement, result, hashes, new Set([0]), before) };
  }
  const { result } = tangled(chapter());
  const testLine = (result.targets.find((t) => t.path === "test/a.test.ts")?.lineSource.indexOf(23) ?? -1) + 1;
  const codeLine = (result.targets.find((t) => t.path === "generated/a.ts")?.lineSource.indexOf(10) ?? -1) + 1;
  const importGone = { file: "test/a.test.ts", line: testLine, column: 10, code: 2305, message: "Module '\"../generated/a.ts\"' has no exported member 'double'." };

  it("name the blocks outside the save's scope that it broke, with their compiler errors, and not the blocks it judges", () => {
    const typeError = { file: "generated/a.ts", line: codeLine, column: 3, code: 2322, message: "Type 'string' is not assignable to type 'number'." };
    const { judgement, result: tangledNow, hashes, changes } = changesAfter([importGone, typeError], new Set());
    expect(changes.broken).toEqual([2]);
    expect(changes.mended).toEqual([]);
    // Both fail now: the judged block too, so that the next save does not call it newly broken.
    expect([...changes.failing].sort()).toEqual([0, 2].map((i) => blockKey("literate/a.md", hashes[i] ?? "")).sort());
    expect(tangledNow.blocks[2]?.line).toBe(22);
    expect(formatCompileChange(judgement.blocks[2]!)).toBe(`literate/a.md:22 compiles ✗\n    literate/a.md:23:10 compiles: TS2305: Module '"../generated/a.ts"' has no exported member 'double'.\n      hint: fix the code in this block; the whole program is checked at once`);
  });

  it("name a block that failed before and compiles now as mended, and a block still failing not at all", () => {
    const { hashes } = tangled(chapter());
    const failingBefore = new Set([blockKey("literate/a.md", hashes[2] ?? "")]);
    const mended = changesAfter([], failingBefore);
    expect(mended.changes).toEqual({ broken: [], mended: [2], failing: new Set() });
    expect(formatCompileChange(mended.judgement.blocks[2]!)).toBe("literate/a.md:22 compiles ✓ again");
    const still = changesAfter([importGone], failingBefore);
    expect(still.changes.broken).toEqual([]);
    expect(still.changes.mended).toEqual([]);
  });
});

describe("the judge under npm run dev", () => {
  it("takes a block's stamp for its evidence outside the run's scope: tested when it is the hash, stale when it is another's", () => {
    const hash = tangled(chapter()).hashes[0] ?? "";
    const judgeOutside = (text: string) => judge(factsOf(ProjectModel.of([{ path: "literate/a.md", text }], { scan: "remark" }), { checked: { compiler: "native", diagnostics: [], milliseconds: 1 }, inProgram: undefined, records: new Map(), tests: devTestFacts(new Set(), undefined, () => undefined) }));
    expect(judgeOutside(chapter("return n * 2;", ` tested=${hash}`)).blocks[0]?.checks.tested).toBe("tested");
    const stale = judgeOutside(chapter("return n * 2;", " tested=000000000000"));
    expect(stale.blocks[0]?.checks.tested).toBe("stale");
    expect(stale.documents[0]).toMatchObject({ path: "literate/a.md", tested: 0, problems: 1 });
  });

  it("judges a block with the stamp dev just wrote, without tangling again", () => {
    const model = ProjectModel.of([{ path: "literate/a.md", text: chapter() }], { scan: "remark" });
    const hash = model.hashes()[0] ?? "";
    const tests = { ...devTestFacts(new Set([0, 1, 2]), passing(1), () => undefined), stamps: new Map([[0, hash]]) };
    const report = judge(factsOf(model, { checked: { compiler: "native", diagnostics: [], milliseconds: 1 }, inProgram: undefined, records: new Map(), tests }));
    expect(report.blocks[0]).toMatchObject({ stamp: hash, checks: { tested: "tested" } });
    expect(report.ok).toBe(true);
    expect(model.counts.tangles).toBe(1);
  });
});

describe("withLiveScript", () => {
  it("adds the live-update script before the end of the body, once", () => {
    const page = withLiveScript("<html><body><p>x</p></body></html>");
    expect(page).toBe(`<html><body><p>x</p><script src="${livePaths.script}"></script></body></html>`);
  });
});

describe("IncrementalTypeChecker", () => {
  const project = new Project({ "generated/a.ts": "export const a: number = 1;\n", "generated/b.ts": 'import { a } from "./a.ts";\nexport const b: number = a;\n' });
  afterAll(() => project.remove());

  it("reports an error an edit causes in another file, and nothing once it is fixed", { timeout: 120_000 }, async () => {
    const checker = new IncrementalTypeChecker(project.root);
    expect((await checker.check()).diagnostics).toEqual([]);
    project.write("generated/a.ts", 'export const a: string = "one";\n');
    const broken = await checker.check();
    expect(broken.diagnostics).toEqual([expect.objectContaining({ file: "generated/b.ts", line: 2, code: 2322 })]);
    project.write("generated/a.ts", "export const a: number = 2;\n");
    expect((await checker.check()).diagnostics).toEqual([]);
  });

  it.each(["native", "javascript"] as const)("checks, when given the book's files, the program they start under the project's options and nothing else (%s compiler)", { timeout: 180_000 }, async (compiler) => {
    const narrowed = new Project({
      "generated/a.ts": "export const a: number = 1;\n",
      "generated/b.ts": 'import { a } from "./a.ts";\nexport const b: number = a;\n',
      "tools/broken.ts": "export const tool: number = 'not a number';\n",
    });
    try {
      const checker = new IncrementalTypeChecker(narrowed.root, { compiler });
      expect((await checker.check()).diagnostics).toEqual([expect.objectContaining({ file: "tools/broken.ts", code: 2322 })]);
      expect((await checker.check(["generated/b.ts"])).diagnostics).toEqual([]);
      narrowed.write("generated/a.ts", "export const a: number | undefined = 1;\n");
      expect((await checker.check(["generated/b.ts"])).diagnostics).toEqual([expect.objectContaining({ file: "generated/b.ts", line: 2, code: 2322 })]);
      // The project's strict options hold in the narrowed program too.
      narrowed.write("generated/a.ts", "export const a = (n) => n;\n");
      expect((await checker.check(["generated/a.ts"])).diagnostics).toEqual([expect.objectContaining({ file: "generated/a.ts", line: 1, code: 7006 })]);
    } finally {
      narrowed.remove();
    }
  });

  it("gives the same answer through the JavaScript API, kept warm between checks", { timeout: 180_000 }, async () => {
    const checker = new IncrementalTypeChecker(project.root, { compiler: "javascript" });
    expect((await checker.check()).diagnostics).toEqual([]);
    project.write("generated/a.ts", 'export const a: string = "one";\n');
    expect((await checker.check()).diagnostics).toEqual([expect.objectContaining({ file: "generated/b.ts", line: 2, code: 2322 })]);
    project.write("generated/a.ts", "export const a: number = 2;\n");
    expect((await checker.check()).diagnostics).toEqual([]);
  });
});
