/**
 * What the runners found, as the rules read it: the test evidence (what a passing run executed,
 * in Markdown lines; read from vitest's files by `runners/vitest-evidence.ts`) and the
 * compiler's diagnostics (`runners/typecheck.ts`). Types and pure judgements only: reading the
 * files and running the compiler are the runners' jobs.
 */

/** A counted position: a Markdown line and column (0-based, as istanbul counts) and how often it ran. */
export interface Counted {
  readonly line: number;
  readonly column: number;
  readonly count: number;
}

/** A counted statement, which may span lines. */
export interface CountedStatement extends Counted {
  readonly endLine: number;
}

/** A counted function: where its declaration starts, and where its body does. */
export interface CountedFunction extends Counted {
  readonly body: { readonly line: number; readonly column: number };
}

/** What one document's lines did in a run. */
export interface DocumentEvidence {
  readonly statements: readonly CountedStatement[];
  readonly functions: readonly CountedFunction[];
}

/** What one test run proved, per Markdown document. */
export interface TestEvidence {
  /** Tests run, passed and failed. */
  readonly tests: { readonly total: number; readonly passed: number; readonly failed: number };
  /** When the run started (ms since the epoch). */
  readonly startTime: number;
  /** The test files the run ran (project-relative). */
  readonly testFiles: readonly string[];
  /** Statements and functions per document path (project-relative). */
  readonly documents: ReadonlyMap<string, DocumentEvidence>;
}

/** One compiler diagnostic, at a project-relative file (or `""` for a global one). */
export interface CompilerDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: number;
  readonly message: string;
}

export interface TypeCheckResult {
  readonly compiler: "native" | "javascript";
  readonly diagnostics: readonly CompilerDiagnostic[];
  readonly milliseconds: number;
}

/** Whether the lines `lines` (a set of Markdown lines of one document) ran. */
export type Execution = "executed" | "not-executed" | "nothing-to-run";

/**
 * Judges execution of lines that define no function (a fragment of a function's body): a
 * statement on them must have run.
 */
export function judgeExecution(evidence: TestEvidence, doc: string, lines: ReadonlySet<number>): Execution {
  const data = evidence.documents.get(doc);
  if (data === undefined) return "not-executed";
  const statements = data.statements.filter((s) => lines.has(s.line));
  if (statements.length > 0) return statements.some((s) => s.count > 0) ? "executed" : "not-executed";
  return "nothing-to-run";
}
