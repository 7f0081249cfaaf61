/**
 * Rule 4's evidence: what the latest test run executed, in Markdown lines.
 *
 * Vitest writes `coverage/coverage-final.json` (istanbul format) already remapped through
 * tangle's source maps, so it is keyed by `literate/*.md` files with Markdown line numbers, and
 * `coverage/vitest-results.json` with the pass/fail counts and the run's start time. Coverage
 * does not say which test ran a line, so the evidence counts only when every test passed.
 */
import { realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { parseJson, readIfExists } from "./io.ts";

/** A counted position: a Markdown line and how often it ran. */
export interface Counted {
  readonly line: number;
  readonly count: number;
}

/** What one test run proved, per Markdown document. */
export interface TestEvidence {
  /** Tests run, passed and failed. */
  readonly tests: { readonly total: number; readonly passed: number; readonly failed: number };
  /** When the run started (ms since the epoch). */
  readonly startTime: number;
  /** Statements and functions per document path (project-relative). */
  readonly documents: ReadonlyMap<string, { readonly statements: readonly Counted[]; readonly functions: readonly Counted[] }>;
}

/** Where the evidence files live. */
export const evidencePaths = { coverage: "coverage/coverage-final.json", results: "coverage/vitest-results.json" } as const;

interface IstanbulFile {
  statementMap: Record<string, { start: { line: number } }>;
  s: Record<string, number>;
  fnMap: Record<string, { decl: { start: { line: number } }; loc: { start: { line: number } } }>;
  f: Record<string, number>;
}

/** Loads the evidence of the latest run, or `undefined` (with the reason) when there is none. */
export function loadEvidence(root: string): { evidence: TestEvidence } | { missing: string } {
  const resultsText = readIfExists(join(root, evidencePaths.results));
  if (resultsText === undefined) return { missing: `no test results found at \`${evidencePaths.results}\`` };
  const results = parseJson(resultsText) as { numTotalTests?: number; numPassedTests?: number; numFailedTests?: number; startTime?: number } | undefined;
  if (typeof results !== "object" || results === null) return { missing: `\`${evidencePaths.results}\` is not a test results file (not a JSON object)` };
  const tests = { total: results.numTotalTests ?? 0, passed: results.numPassedTests ?? 0, failed: results.numFailedTests ?? 0 };
  const startTime = results.startTime ?? 0;
  // A failing run writes no coverage; its results are the evidence that nothing counts.
  if (tests.failed > 0) return { evidence: { tests, startTime, documents: new Map() } };
  const coverageText = readIfExists(join(root, evidencePaths.coverage));
  if (coverageText === undefined) return { missing: `no coverage found at \`${evidencePaths.coverage}\`` };
  const coverageWritten = statSync(join(root, evidencePaths.coverage)).mtimeMs;
  if (coverageWritten < startTime) return { missing: `\`${evidencePaths.coverage}\` is older than the latest test run, which collected no coverage` };
  const coverage = parseJson(coverageText) as Record<string, IstanbulFile> | undefined;
  if (typeof coverage !== "object" || coverage === null || !Object.values(coverage).every(isIstanbulFile)) {
    return { missing: `\`${evidencePaths.coverage}\` is not an istanbul coverage file` };
  }
  const documents = new Map<string, { statements: Counted[]; functions: Counted[] }>();
  // Vitest names files by their real path (its working folder is resolved); `root` may be a link.
  const base = realpathSync(root);
  for (const [file, data] of Object.entries(coverage)) {
    const path = relative(base, file).split(sep).join("/");
    const statements = Object.entries(data.statementMap).map(([id, loc]) => ({ line: loc.start.line, count: data.s[id] ?? 0 }));
    const functions = Object.entries(data.fnMap).map(([id, fn]) => ({ line: fn.decl.start.line, count: data.f[id] ?? 0 }));
    documents.set(path, { statements, functions });
  }
  return { evidence: { tests, startTime, documents } };
}

/** True for one file's entry of an istanbul coverage report, in the parts verify reads. */
function isIstanbulFile(value: unknown): value is IstanbulFile {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<Record<keyof IstanbulFile, unknown>>;
  return [v.statementMap, v.s, v.fnMap, v.f].every((part) => typeof part === "object" && part !== null);
}

/** Whether the lines `lines` (a set of Markdown lines of one document) ran. */
export type Execution = "executed" | "not-executed" | "nothing-to-run";

/**
 * Judges execution: if functions are declared on these lines, one of them must have been
 * called (loading a module is not testing a function); otherwise a statement on them must have run.
 */
export function judgeExecution(evidence: TestEvidence, doc: string, lines: ReadonlySet<number>): Execution {
  const data = evidence.documents.get(doc);
  if (data === undefined) return "not-executed";
  const functions = data.functions.filter((f) => lines.has(f.line));
  if (functions.length > 0) return functions.some((f) => f.count > 0) ? "executed" : "not-executed";
  const statements = data.statements.filter((s) => lines.has(s.line));
  if (statements.length > 0) return statements.some((s) => s.count > 0) ? "executed" : "not-executed";
  return "nothing-to-run";
}
