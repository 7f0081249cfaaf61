/**
 * `npm run dev`, the pure part: which blocks a save changed, which test files to run for them,
 * the facts of a dev run as the judge takes them, and the lines that print each changed block's
 * verdict. The verdict itself is the judge's (`judge.ts`), the same verify gives.
 *
 * A block is identified across saves by its document and its stamp hash (`stamps.ts`), not by
 * its line: an edit above a block moves it without changing it, and a block whose spliced
 * children changed has a new hash, as its stamp must. Rule 4 is judged on the coverage of a run
 * in which nothing failed; it may be a run of a few test files, since a stamp says that a passing
 * test executed the code, not that the whole suite passes: the run speaks for the blocks it was
 * for, and every other block's stamp stands for its evidence (`TestFacts.scope`).
 */
import { dirname, posix } from "node:path";
import ts from "typescript";
import { error, formatDiagnostic, type Diagnostic } from "../core/diagnostics.ts";
import type { TestEvidence } from "../core/evidence.ts";
import type { LiterateBlock } from "../core/document.ts";
import type { BlockReport, Judgement, TestFacts } from "../rules/judge.ts";
import type { TangleResult } from "../core/tangle.ts";

/** The identity of a block across saves: its document and its hash. */
export function blockKey(doc: string, hash: string): string {
  return `${doc}\0${hash}`;
}

/**
 * The blocks of `result` that are new or changed since the blocks `previous` names (keys of
 * `blockKey`; a key counts as many times as it occurs, so a copied block is a new one). Only
 * blocks tangle writes are considered: an illustration (`no-tangle`) has nothing to verify.
 */
export function changedBlocks(previous: readonly string[], result: TangleResult, hashes: readonly string[]): number[] {
  const seen = new Map<string, number>();
  for (const key of previous) seen.set(key, (seen.get(key) ?? 0) + 1);
  const changed: number[] = [];
  result.blocks.forEach((block, index) => {
    if (result.placements[index] === undefined) return;
    const key = blockKey(block.doc, hashes[index] ?? "");
    const left = seen.get(key) ?? 0;
    if (left > 0) seen.set(key, left - 1);
    else changed.push(index);
  });
  return changed;
}

/** The keys of every block tangle writes, for the next `changedBlocks`. */
export function writtenBlockKeys(result: TangleResult, hashes: readonly string[]): string[] {
  return result.blocks.flatMap((block, index) => (result.placements[index] === undefined ? [] : [blockKey(block.doc, hashes[index] ?? "")]));
}

/**
 * The test files (project-relative) that import one of `modules` (project-relative paths)
 * directly, by a relative specifier; `testFiles` are the candidates with their text. Imports
 * are read with the compiler's pre-processor, which sees `import … from`, `export … from` and
 * `import()` without parsing the file.
 */
export function directImporters(testFiles: readonly { readonly path: string; readonly text: string }[], modules: ReadonlySet<string>): string[] {
  return testFiles
    .filter((file) =>
      ts.preProcessFile(file.text, true, true).importedFiles.some((imported) => {
        if (!imported.fileName.startsWith(".")) return false;
        return modules.has(posix.normalize(posix.join(dirname(file.path), imported.fileName)));
      }),
    )
    .map((file) => file.path)
    .sort();
}

/** What `npm run dev` prints for one judged block: the judge's report of it, read for the author. */
export interface BlockVerdict {
  readonly doc: string;
  /** 1-based line of the block's opening fence. */
  readonly line: number;
  readonly column: number;
  readonly hash: string;
  /** `code`: a block verify stamps; `type-only`: nothing runs; `test`: a test block; `other`: neither (an import list, a file in another language). */
  readonly kind: "code" | "type-only" | "test" | "other";
  readonly compiles: boolean;
  /** For `code`: whether the run's evidence shows it executed; for `test`: whether its file's tests passed; `undefined` while no test has run for it. */
  readonly tested?: boolean;
  /** True when the block's stamp is its hash, now (already, or written by this run). */
  readonly stamped: boolean;
  /** The judge's other rules this block fails (`one definition`, `prose`, `order`, `pinned`), and `doc comment` for its warning. */
  readonly failing: readonly string[];
  /** Everything the judge found at the block. */
  readonly problems: readonly Diagnostic[];
}

/**
 * What a dev run proved, as the judge takes it: the run (when there is one) speaks for `scope`;
 * every other block's stamp stands for its evidence. `why` says why a block in scope has no
 * evidence when the run left none and found no failure (`undefined`: say nothing).
 */
export function devTestFacts(scope: ReadonlySet<number>, run: { readonly evidence?: TestEvidence; readonly problems: readonly Diagnostic[] } | undefined, why: (block: LiterateBlock) => string | undefined): TestFacts {
  return {
    evidence: run?.evidence,
    scope,
    refresh: "`npm run dev` (save the chapter)",
    absent: (block, named) => {
      if (run !== undefined && run.problems.length > 0) return run.problems;
      const reason = why(block);
      return reason === undefined ? [] : [error({ file: block.doc, line: block.line, column: block.column }, "tested", `no test ran for this block${named}: ${reason}`, "write a test block in this chapter that imports it and runs this code")];
    },
  };
}

/**
 * The verdicts of `blocks` (indices into the result) from the judge's report. `ran` are the test
 * files a passing run ran (a test block passes when its file is one); `run` says whether tests
 * ran for the blocks at all yet (before they have, `tested` is left unsaid).
 */
export function verdictsOf(judgement: Judgement, result: TangleResult, blocks: readonly number[], ran: ReadonlySet<string> | undefined): BlockVerdict[] {
  return blocks.map((index) => {
    const report = judgement.blocks[index];
    if (report === undefined) throw new Error(`verdictsOf: no block ${index}`);
    return verdictOf(report, result.placements[index]?.target, ran);
  });
}

/** The judge's checks a verdict names only when they fail, by the name it prints. */
const otherRules = { oneDefinition: "one definition", prose: "prose", order: "order", pinned: "pinned", docComment: "doc comment" } as const;

function verdictOf(report: BlockReport, target: string | undefined, ran: ReadonlySet<string> | undefined): BlockVerdict {
  const { checks } = report;
  const failing = Object.entries(otherRules).flatMap(([check, name]) => (checks[check as keyof typeof otherRules] ? [] : [name]));
  const at = { doc: report.doc, line: report.line, column: report.column, hash: report.hash, compiles: checks.compiles, failing, problems: report.problems };
  if (report.kind === "test") return { ...at, kind: "test", stamped: false, ...(ran === undefined ? {} : { tested: target !== undefined && ran.has(target) }) };
  if (checks.tested === "exempt") return { ...at, kind: report.typeOnly ? "type-only" : "other", stamped: false };
  const executed = checks.tested === "tested" || checks.tested === "unstamped" || checks.tested === "stale";
  return { ...at, kind: "code", ...(ran === undefined && !executed ? {} : { tested: executed }), stamped: report.stamp === report.hash };
}

/** True when the verdict earns the block a stamp it does not carry yet: it compiles and its evidence holds. */
export function wantsStamp(verdict: BlockVerdict): boolean {
  return verdict.kind === "code" && verdict.compiles && verdict.tested === true && !verdict.stamped;
}

const mark = (ok: boolean | undefined): string => (ok === undefined ? "–" : ok ? "✓" : "✗");

/**
 * The verdict as printed: `literate/memory.md:57 compiles ✓ tested ✓ stamped ✓`, then every other
 * rule the block fails (`pinned ✗`), then each problem, indented, as `formatDiagnostic` writes it.
 */
export function formatVerdict(verdict: BlockVerdict): string {
  const where = `${verdict.doc}:${verdict.line}`;
  const parts = [`compiles ${mark(verdict.compiles)}`];
  if (verdict.kind === "code") parts.push(`tested ${mark(verdict.tested)}`, `stamped ${mark(verdict.stamped)}`);
  else if (verdict.kind === "test") parts.push(`tests pass ${mark(verdict.tested)}`);
  else if (verdict.kind === "type-only") parts.push("type-only");
  for (const rule of verdict.failing) parts.push(rule === "doc comment" ? "doc comment ⚠" : `${rule} ✗`);
  const head = `${where} ${parts.join(" ")}`;
  const details = verdict.problems.map((p) => formatDiagnostic(p).replace(/^/gm, "    "));
  return [head, ...details].join("\n");
}

/**
 * The blocks a save broke or mended without changing them: a renamed export breaks the blocks
 * that import it, in its chapter or another, and they must be named as soon as the type-check
 * knows, like the changed block's own error. `before` are the keys of the blocks that failed
 * after the previous check; `scope` are the blocks the save judges (their verdicts say it).
 * Returns the blocks outside `scope` that fail now and did not before (`broken`), those that
 * compile again (`mended`), and the keys (`blockKey`) of every block that fails now (`failing`,
 * the next call's `before`).
 */
export function compileChanges(judgement: Judgement, result: TangleResult, hashes: readonly string[], scope: ReadonlySet<number>, before: ReadonlySet<string>): { broken: number[]; mended: number[]; failing: Set<string> } {
  const failing = new Set<string>();
  const broken: number[] = [];
  const mended: number[] = [];
  result.blocks.forEach((block, index) => {
    const compiles = judgement.blocks[index]?.checks.compiles;
    if (compiles === undefined) return;
    const key = blockKey(block.doc, hashes[index] ?? "");
    if (!compiles) failing.add(key);
    if (scope.has(index)) return;
    if (!compiles && !before.has(key)) broken.push(index);
    if (compiles && before.has(key)) mended.push(index);
  });
  return { broken, mended, failing };
}

/**
 * A compile change as printed: `literate/b.md:12 compiles ✗` and its compiler errors, indented,
 * or `literate/b.md:12 compiles ✓ again`.
 */
export function formatCompileChange(report: BlockReport): string {
  const where = `${report.doc}:${report.line}`;
  if (report.checks.compiles) return `${where} compiles ✓ again`;
  const details = report.problems.filter((p) => p.rule === "compiles").map((p) => formatDiagnostic(p).replace(/^/gm, "    "));
  return [`${where} compiles ✗`, ...details].join("\n");
}
