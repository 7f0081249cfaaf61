/**
 * What a rule is, and the facts every rule reads.
 *
 * A rule is one module with one job and its metadata beside its logic (`{ id, description, check }`,
 * as markdownlint and ESLint keep theirs): `check` reads the facts of the whole project, computed
 * once by whoever holds the project (verify from the disk, `npm run dev` from its session, an
 * editor from its unsaved texts), and returns what it finds, per block and for the whole book.
 * `judge.ts` runs them all; nothing else decides a verdict.
 */
import type ts from "typescript";
import type { BlockAnalysis } from "../core/definitions.ts";
import type { Diagnostic } from "../core/diagnostics.ts";
import type { LiterateBlock } from "../core/document.ts";
import type { TestEvidence, TypeCheckResult } from "../core/evidence.ts";
import type { Runnables } from "../core/runs.ts";
import type { TangleResult } from "../core/tangle.ts";

/** The rules, by the name they carry in a diagnostic's `rule`. */
export type RuleId = "one-definition" | "prose" | "compiles" | "tested" | "pinned" | "order" | "doc-comment";

/** What the tests proved, as the caller ran them. */
export interface TestFacts {
  /** The coverage of a run in which every test passed; `undefined` when there is none. */
  readonly evidence: TestEvidence | undefined;
  /**
   * The blocks the evidence speaks for: `all` (verify: the whole suite ran), or the blocks a run
   * of a few test files was for (`npm run dev`). Outside it a block's stamp stands for the
   * evidence: a stamp equal to the block's hash was written from a passing run of this exact code.
   */
  readonly scope: "all" | ReadonlySet<number>;
  /** When true, a block in scope is judged with the stamp its evidence earns (its hash when executed, none otherwise): `verify --stamp`. */
  readonly stampFromEvidence?: boolean;
  /** Stamps written outside the texts the facts were read from (`npm run dev` stamps, then judges again without another tangle). */
  readonly stamps?: ReadonlyMap<number, string>;
  /** Why a block in scope has no evidence, when there is none (a failed run, no test results, no test file); said at the block. */
  readonly absent: (block: LiterateBlock, named: string) => readonly Diagnostic[];
  /** How the author refreshes evidence and stamps, for hints: "`npm run verify -- --stamp`", or "`npm run dev` (save the chapter)". */
  readonly refresh: string;
}

/** Every fact a rule may read. */
export interface Facts {
  readonly result: TangleResult;
  /** Every block's stamp hash, by block index. */
  readonly hashes: readonly string[];
  readonly analyses: readonly BlockAnalysis[];
  /** Rule 1's problems, found while analysing the definitions. */
  readonly definitionProblems: readonly Diagnostic[];
  /** The TypeScript targets' syntax trees. */
  readonly sources: ReadonlyMap<string, ts.SourceFile>;
  /** The book's functions and the reads of its value blocks, found on first call (once per tangle). */
  readonly runnables: () => Runnables;
  /** The one type-check of the program: the whole project's (verify), or the book's (`npm run dev`). */
  readonly checked: TypeCheckResult;
  /** The files the type-checked program holds (project-relative); `undefined` when unknown (nothing then checks that each target is in it). */
  readonly inProgram: ReadonlySet<string> | undefined;
  readonly tests: TestFacts;
  /** Each chapter's mutation record text (`undefined`: no record file). */
  readonly records: ReadonlyMap<string, string | undefined>;
}

/** What a rule found. */
export interface Findings {
  /** Problems by block index; the block fails the rule when it has an error here. */
  readonly byBlock: ReadonlyMap<number, readonly Diagnostic[]>;
  /** Problems of the whole book (or of a file no block owns). */
  readonly global: readonly Diagnostic[];
}

/** One rule. */
export interface Rule<F extends Findings = Findings> {
  readonly id: RuleId;
  /** One sentence: what the rule asks of a block. */
  readonly description: string;
  /**
   * The facts `check` reads, and nothing else: the judge runs the rule again only when one of
   * them is another object than at its last run (`npm run dev` judges one tangle several times a
   * save, and only the test facts change between those judgements).
   */
  readonly reads: readonly (keyof Facts)[];
  readonly check: (facts: Facts) => F;
}

/** A block with code that runs: what rule 4 (tested) and rule 5 (pinned) judge. */
export const isRuntime = (kind: BlockAnalysis["kind"], typeOnly: boolean): boolean => (kind === "definition" || kind === "fragment") && !typeOnly;

/** The analysis of block `index`, or that of a block with nothing to judge. */
export function analysisOf(facts: Pick<Facts, "analyses">, index: number): BlockAnalysis {
  return facts.analyses[index] ?? { kind: "other", names: [], typeOnly: false };
}
