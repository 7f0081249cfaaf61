// Rule 4's evidence: the coverage and results files a test run leaves, read into Markdown lines
// per document, and the judgement of whether a block's lines ran.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { judgeExecution, type Execution, type TestEvidence } from "../../tools/lib/core/evidence.ts";
import { loadEvidence } from "../../tools/lib/runners/vitest-evidence.ts";

/** Istanbul coverage of `literate/x.md` as vitest writes it: function `add` on line 11 (body on 12), a statement on 20. */
function coverageOf(root: string, calls: number): string {
  return JSON.stringify({
    [join(root, "literate", "x.md")]: {
      path: join(root, "literate", "x.md"),
      statementMap: { "0": { start: { line: 12, column: 2 }, end: { line: 12, column: null } }, "1": { start: { line: 20, column: 0 }, end: { line: 20, column: null } } },
      s: { "0": calls, "1": 1 },
      fnMap: { "0": { name: "add", decl: { start: { line: 11, column: 16 }, end: { line: 11, column: 19 } }, loc: { start: { line: 11, column: 50 }, end: { line: 13, column: null } }, line: 11 } },
      f: { "0": calls },
      branchMap: {},
      b: {},
    },
  });
}

/** The results of a passing run whose coverage was `coverageOf(root, calls)`, as vitest's json reporter writes them. */
const resultsOf =
  (calls: number) =>
  (root: string): string =>
    JSON.stringify({
      numTotalTests: 3,
      numPassedTests: 3,
      numFailedTests: 0,
      numFailedTestSuites: 0,
      startTime: 1_700_000_000_000,
      success: true,
      testResults: [{ name: join(root, "test", "x.test.ts"), status: "passed", assertionResults: [{ status: "passed" }] }],
      coverageMap: JSON.parse(coverageOf(root, calls)) as unknown,
    });
const results = JSON.stringify({ numTotalTests: 3, numPassedTests: 3, numFailedTests: 0, startTime: 1_700_000_000_000, success: true });
const failedResults = JSON.stringify({ numTotalTests: 3, numPassedTests: 2, numFailedTests: 1, startTime: 1_700_000_000_000, success: false });

describe("loadEvidence", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });
  const project = (files: Readonly<Record<string, (root: string) => string>>): string => {
    const root = mkdtempSync(join(tmpdir(), "evidence-test-"));
    roots.push(root);
    mkdirSync(join(root, "coverage"));
    for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text(root));
    return root;
  };

  it.each([
    ["coverage", { "coverage/vitest-results.json": () => results }, "no coverage found at `coverage/coverage-final.json`"],
    ["test results", { "coverage/coverage-final.json": (root: string) => coverageOf(root, 1) }, "no test results found at `coverage/vitest-results.json`"],
  ])("says so when there are no %s", (_, files, missing) => {
    expect(loadEvidence(project(files))).toEqual({ missing });
  });

  it.each([
    ["test results cut short", { "coverage/vitest-results.json": () => results.slice(0, 20) }, "`coverage/vitest-results.json` is not a test results file (not a JSON object)"],
    ["test results that are not an object", { "coverage/vitest-results.json": () => "42" }, "`coverage/vitest-results.json` is not a test results file (not a JSON object)"],
    ["coverage cut short", { "coverage/vitest-results.json": () => results, "coverage/coverage-final.json": (root: string) => coverageOf(root, 1).slice(0, 30) }, "`coverage/coverage-final.json` is not an istanbul coverage file"],
    ["coverage of another shape", { "coverage/vitest-results.json": () => results, "coverage/coverage-final.json": () => '{"x": 1}' }, "`coverage/coverage-final.json` is not an istanbul coverage file"],
  ])("names the file, as missing evidence, for %s", (_, files, missing) => {
    expect(loadEvidence(project(files))).toEqual({ missing });
  });

  it("reads the counts, the start time, the test files and each document's statements and functions by project path", () => {
    const root = project({ "coverage/coverage-final.json": (r) => coverageOf(r, 2), "coverage/vitest-results.json": resultsOf(2) });
    const loaded = loadEvidence(root);
    if (!("evidence" in loaded)) throw new Error(JSON.stringify(loaded));
    expect(loaded.evidence.tests).toEqual({ total: 3, passed: 3, failed: 0 });
    expect(loaded.evidence.startTime).toBe(1_700_000_000_000);
    expect(loaded.evidence.testFiles).toEqual(["test/x.test.ts"]);
    expect([...loaded.evidence.documents]).toEqual([
      [
        "literate/x.md",
        {
          statements: [
            { line: 12, column: 2, endLine: 12, count: 2 },
            { line: 20, column: 0, endLine: 20, count: 1 },
          ],
          functions: [{ line: 11, column: 16, body: { line: 11, column: 50 }, count: 2 }],
        },
      ],
    ]);
  });

  it("names documents by project path when the root is reached through a symbolic link", () => {
    const root = project({ "coverage/coverage-final.json": (r) => coverageOf(r, 1), "coverage/vitest-results.json": resultsOf(1) });
    const link = `${root}-link`;
    symlinkSync(root, link, "dir");
    roots.push(link);
    const loaded = loadEvidence(link);
    if (!("evidence" in loaded)) throw new Error(JSON.stringify(loaded));
    expect([...loaded.evidence.documents.keys()]).toEqual(["literate/x.md"]);
  });

  it("refuses a run whose results record a failed test, whatever coverage sits beside them", () => {
    const root = project({ "coverage/vitest-results.json": () => failedResults, "coverage/coverage-final.json": (r) => coverageOf(r, 1) });
    expect(loadEvidence(root)).toEqual({ refused: "`coverage/vitest-results.json` records a failed run (1 failed test(s))" });
  });

  it.each([
    ["a failed suite (a hook that threw, its tests skipped)", { numFailedTestSuites: 1, testResults: [{ name: "/t/x.test.ts", status: "passed", assertionResults: [{ status: "skipped" }] }] }, "1 failed suite(s)"],
    ["a test file that failed to load", { testResults: [{ name: "/t/x.test.ts", status: "failed", message: "broken", assertionResults: [] }] }, "1 failed test file(s)"],
    ["a failed test the counts leave out", { testResults: [{ name: "/t/x.test.ts", status: "failed", assertionResults: [{ status: "failed" }] }] }, "1 failed test(s), 1 failed test file(s)"],
    ["only vitest's own verdict", { success: false }, "vitest says it did not succeed"],
  ])("refuses results that record %s", (_, fields, what) => {
    const root = project({
      "coverage/vitest-results.json": (r) => JSON.stringify({ ...(JSON.parse(resultsOf(1)(r)) as object), ...fields }),
      "coverage/coverage-final.json": (r) => coverageOf(r, 1),
    });
    expect(loadEvidence(root)).toEqual({ refused: `\`coverage/vitest-results.json\` records a failed run (${what})` });
  });

  it("refuses a coverage file another run wrote, naming both files", () => {
    const root = project({ "coverage/coverage-final.json": (r) => coverageOf(r, 2), "coverage/vitest-results.json": resultsOf(1) });
    expect(loadEvidence(root)).toEqual({ refused: "`coverage/coverage-final.json` does not belong to the run recorded in `coverage/vitest-results.json` (its coverage differs from the run's)" });
  });

  it("refuses coverage beside the results of a run that collected none", () => {
    const root = project({ "coverage/coverage-final.json": (r) => coverageOf(r, 1), "coverage/vitest-results.json": () => results });
    expect(loadEvidence(root)).toEqual({ refused: "the run recorded in `coverage/vitest-results.json` collected no coverage, so `coverage/coverage-final.json` is another run's" });
  });

  it("takes absent counts as zero", () => {
    const root = project({ "coverage/coverage-final.json": () => "{}", "coverage/vitest-results.json": () => JSON.stringify({ coverageMap: {} }) });
    expect(loadEvidence(root)).toEqual({ evidence: { tests: { total: 0, passed: 0, failed: 0 }, startTime: 0, testFiles: [], documents: new Map() } });
  });
});

describe("judgeExecution", () => {
  /** Line 12 a statement in a function body that ran `calls` times; line 20 a top-level statement; line 31 one that never ran. */
  const evidence = (calls: number, topLevel = 1): TestEvidence => ({
    tests: { total: 1, passed: 1, failed: 0 },
    startTime: 0,
    testFiles: [],
    documents: new Map([
      [
        "literate/x.md",
        {
          statements: [
            { line: 12, column: 2, endLine: 12, count: calls },
            { line: 20, column: 0, endLine: 20, count: topLevel },
            { line: 31, column: 0, endLine: 31, count: 0 },
          ],
          functions: [{ line: 11, column: 16, body: { line: 11, column: 50 }, count: calls }],
        },
      ],
    ]),
  });
  const lines = (from: number, to: number): Set<number> => new Set(Array.from({ length: to - from + 1 }, (_, i) => from + i));

  it.each<[string, TestEvidence, string, Set<number>, Execution]>([
    ["a fragment of a body that ran", evidence(1), "literate/x.md", lines(12, 12), "executed"],
    ["a fragment of a body that never ran, though its module loaded", evidence(0), "literate/x.md", lines(12, 12), "not-executed"],
    ["a top-level statement that ran", evidence(0), "literate/x.md", lines(19, 21), "executed"],
    ["a statement that never ran", evidence(1), "literate/x.md", lines(30, 32), "not-executed"],
    ["lines with nothing to run", evidence(1), "literate/x.md", lines(40, 45), "nothing-to-run"],
    ["a document the run never loaded", evidence(1), "literate/y.md", lines(10, 14), "not-executed"],
  ])("judges %s", (_, run, doc, at, want) => {
    expect(judgeExecution(run, doc, at)).toBe(want);
  });
});
