/**
 * Rule 4's evidence: what the latest test run executed, in Markdown lines.
 *
 * Vitest writes `coverage/coverage-final.json` (istanbul format) already remapped through
 * tangle's source maps, so it is keyed by `literate/*.md` files with Markdown line numbers, and
 * `coverage/vitest-results.json` with the outcome of every suite and test and the run's start
 * time. Coverage does not say which test ran a line, so the evidence counts only when nothing
 * in the run failed.
 *
 * The two files must come from the same run. Vitest's json reporter copies the run's coverage
 * map into the results (`coverageMap`), so the coverage file belongs to the results exactly
 * when it holds that same map: a coverage file left by another run, older or newer, differs.
 */
import { realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { DocumentEvidence, TestEvidence } from "../core/evidence.ts";
import { parseJson, readIfExists } from "../disk/io.ts";

/** Where the evidence files live. */
export const evidencePaths = { coverage: "coverage/coverage-final.json", results: "coverage/vitest-results.json" } as const;

interface Position {
  line: number;
  column: number | null;
}

export interface IstanbulFile {
  statementMap: Record<string, { start: Position; end: Position }>;
  s: Record<string, number>;
  fnMap: Record<string, { decl: { start: Position }; loc: { start: Position } }>;
  f: Record<string, number>;
}

/** The parts of vitest's json report verify reads. */
interface VitestResults {
  numTotalTests?: number;
  numPassedTests?: number;
  numFailedTests?: number;
  numFailedTestSuites?: number;
  startTime?: number;
  success?: boolean;
  coverageMap?: unknown;
  testResults?: readonly { name?: string; status?: string; message?: string; assertionResults?: readonly { status?: string }[] }[];
}

/**
 * Loads the evidence of the latest run. `missing` says there is none to read (no files, or
 * files that are not what vitest writes); `refused` says there is some, and it proves nothing.
 */
export function loadEvidence(root: string): { evidence: TestEvidence } | { missing: string } | { refused: string } {
  const resultsText = readIfExists(join(root, evidencePaths.results));
  if (resultsText === undefined) return { missing: `no test results found at \`${evidencePaths.results}\`` };
  const results = parseJson(resultsText) as VitestResults | undefined;
  if (typeof results !== "object" || results === null || Array.isArray(results)) return { missing: `\`${evidencePaths.results}\` is not a test results file (not a JSON object)` };
  const tests = { total: results.numTotalTests ?? 0, passed: results.numPassedTests ?? 0, failed: results.numFailedTests ?? 0 };
  const failure = failureOf(results);
  if (failure !== undefined) return { refused: `\`${evidencePaths.results}\` records a failed run (${failure})` };
  const coverageText = readIfExists(join(root, evidencePaths.coverage));
  if (coverageText === undefined) return { missing: `no coverage found at \`${evidencePaths.coverage}\`` };
  const coverage = parseJson(coverageText) as Record<string, IstanbulFile> | undefined;
  if (typeof coverage !== "object" || coverage === null || !Object.values(coverage).every(isIstanbulFile)) {
    return { missing: `\`${evidencePaths.coverage}\` is not an istanbul coverage file` };
  }
  if (results.coverageMap === undefined) {
    return { refused: `the run recorded in \`${evidencePaths.results}\` collected no coverage, so \`${evidencePaths.coverage}\` is another run's` };
  }
  if (!isDeepStrictEqual(results.coverageMap, coverage)) {
    return { refused: `\`${evidencePaths.coverage}\` does not belong to the run recorded in \`${evidencePaths.results}\` (its coverage differs from the run's)` };
  }
  const documents = documentEvidence(root, coverage);
  const base = realpathSync(root);
  const testFiles = (results.testResults ?? []).flatMap((r) => (typeof r.name === "string" ? [relative(base, r.name).split(sep).join("/")] : []));
  return { evidence: { tests, startTime: results.startTime ?? 0, testFiles, documents } };
}

/**
 * What an istanbul coverage map (keyed by absolute file names, as vitest writes it) says each
 * document's statements and functions did, per project-relative path. `npm run dev` calls it on
 * the map of its own partial run.
 */
export function documentEvidence(root: string, coverage: Readonly<Record<string, IstanbulFile>>): Map<string, DocumentEvidence> {
  // Vitest names files by their real path (its working folder is resolved); `root` may be a link.
  const base = realpathSync(root);
  const projectPath = (file: string): string => relative(base, file).split(sep).join("/");
  const documents = new Map<string, DocumentEvidence>();
  for (const [file, data] of Object.entries(coverage)) {
    const statements = Object.entries(data.statementMap).map(([id, loc]) => ({
      line: loc.start.line,
      column: loc.start.column ?? 0,
      endLine: loc.end.line,
      count: data.s[id] ?? 0,
    }));
    const functions = Object.entries(data.fnMap).map(([id, fn]) => ({
      line: fn.decl.start.line,
      column: fn.decl.start.column ?? 0,
      body: { line: fn.loc.start.line, column: fn.loc.start.column ?? 0 },
      count: data.f[id] ?? 0,
    }));
    documents.set(projectPath(file), { statements, functions });
  }
  return documents;
}

/**
 * What failed in a run, or `undefined` when nothing did: a failed test, a failed suite (a hook
 * that threw, whose tests never ran), a test file that failed to load, or vitest's own verdict.
 */
function failureOf(results: VitestResults): string | undefined {
  const files = results.testResults ?? [];
  const failedTests = Math.max(results.numFailedTests ?? 0, files.reduce((n, f) => n + (f.assertionResults ?? []).filter((a) => a.status === "failed").length, 0));
  const failedSuites = results.numFailedTestSuites ?? 0;
  const failedFiles = files.filter((f) => f.status === "failed").length;
  const counted = [[failedTests, "failed test(s)"], [failedSuites, "failed suite(s)"], [failedFiles, "failed test file(s)"]] as const;
  const parts = counted.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  if (parts.length > 0) return parts.join(", ");
  return results.success === false ? "vitest says it did not succeed" : undefined;
}

/** True for one file's entry of an istanbul coverage report, in the parts verify reads. */
export function isIstanbulFile(value: unknown): value is IstanbulFile {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<Record<keyof IstanbulFile, unknown>>;
  return [v.statementMap, v.s, v.fnMap, v.f].every((part) => typeof part === "object" && part !== null);
}
