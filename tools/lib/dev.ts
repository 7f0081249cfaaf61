/**
 * `npm run dev`, the pure part: which blocks a save changed, which test files to run for them,
 * each changed block's verdict from the evidence of that run, and the lines that print it.
 *
 * A block is identified across saves by its document and its stamp hash (`stamps.ts`), not by
 * its line: an edit above a block moves it without changing it, and a block whose spliced
 * children changed has a new hash, as its stamp must. A verdict uses rule 4 exactly as verify
 * does (`runs.ts`: every function of the block ran, a value was read by code that ran), on the
 * coverage of a run in which nothing failed; it may be a run of a few test files, since a stamp
 * says that a passing test executed the code, not that the whole suite passes.
 */
import { dirname, posix } from "node:path";
import ts from "typescript";
import type { BlockAnalysis } from "./definitions.ts";
import { error, formatDiagnostic, sortDiagnostics, type Diagnostic } from "./diagnostics.ts";
import type { TestEvidence } from "./evidence.ts";
import { findRunnables, judgeRunnables } from "./runs.ts";
import type { TangleResult } from "./tangle.ts";
import type { TypeCheckResult } from "./typecheck.ts";
import { blockIdentity, childrenOf, isRuntime, mapCompilerDiagnostics, missedParts, partsOf, type BlockReport, type DocumentSummary, type TestedState, type VerifyReport } from "./verify.ts";

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

/** What `npm run dev` found for one changed block. */
export interface BlockVerdict {
  readonly doc: string;
  /** 1-based line of the block's opening fence. */
  readonly line: number;
  readonly column: number;
  readonly hash: string;
  /** `code`: a block verify stamps; `type-only`: nothing runs; `test`: a test block; `other`: neither (an import list, a file in another language). */
  readonly kind: "code" | "type-only" | "test" | "other";
  readonly compiles: boolean;
  /** For `code`: whether the run's evidence holds; for `test`: whether its file's tests passed; else `undefined`. */
  readonly tested?: boolean;
  /** True when the block's stamp is its hash, now (already, or written by this run). */
  readonly stamped: boolean;
  /** Why it is not compiled, tested or stamped; the problems of rules 1 and 2 too. */
  readonly problems: readonly Diagnostic[];
}

/** What the verdicts are judged from. */
export interface VerdictInputs {
  readonly result: TangleResult;
  readonly hashes: readonly string[];
  readonly analyses: readonly BlockAnalysis[];
  /** Rule-1 problems (from `analyzeDefinitions`). */
  readonly definitionProblems: readonly Diagnostic[];
  readonly sources: ReadonlyMap<string, ts.SourceFile>;
  readonly checked: TypeCheckResult;
  /** The evidence of the run, when it ran and nothing in it failed. */
  readonly evidence: TestEvidence | undefined;
  /** Why there is no evidence (failed tests, no test file to run), when there is none. */
  readonly noEvidence?: readonly Diagnostic[];
  /** The test files that ran; a test block passes when its file ran and nothing failed. */
  readonly ran: ReadonlySet<string>;
}

/**
 * Judges each of `blocks` (indices into the result): rules 1–3 as verify does, and rule 4 from
 * the evidence. `stamped` is whether the block's stamp already equals its hash; the caller
 * writes the stamps `wantsStamp` asks for and sets `stamped` from what it wrote.
 */
export function judgeBlocks(inputs: VerdictInputs, blocks: readonly number[]): BlockVerdict[] {
  const { result, hashes, analyses, evidence } = inputs;
  const compileProblems = mapCompilerDiagnostics(result, inputs.checked, []);
  const values = analyses.flatMap((a, block) => (a.kind === "definition" && !a.typeOnly && a.names.length > 0 ? [{ block, names: a.names }] : []));
  const runnables = evidence === undefined ? undefined : findRunnables(result, inputs.sources, values);
  const parts = evidence === undefined || runnables === undefined ? undefined : partsOf(runnables, judgeRunnables(evidence, runnables));
  const children = childrenOf(result);
  return blocks.map((index) => {
    const block = result.blocks[index];
    const analysis = analyses[index] ?? { kind: "other" as const, names: [], typeOnly: false };
    if (block === undefined) throw new Error(`judgeBlocks: no block ${index}`);
    const at = { file: block.doc, line: block.line, column: block.column };
    const hash = hashes[index] ?? "";
    const compileList = compileProblems.get(index) ?? [];
    const problems: Diagnostic[] = [...inputs.definitionProblems.filter((d) => d.file === block.doc && d.line === block.line && d.column === block.column)];
    const isDefinitionBlock = analysis.kind === "definition" || analysis.kind === "fragment" || analysis.kind === "preamble";
    if (isDefinitionBlock && block.proseBefore === false) problems.push(error(at, "prose", "no prose before this block", "write a heading or a paragraph that says why this code exists, between it and the previous block"));
    problems.push(...compileList);
    const base = { doc: block.doc, line: block.line, column: block.column, hash, compiles: compileList.length === 0 };
    if (analysis.kind === "test") {
      const target = result.placements[index]?.target ?? "";
      const passed = evidence !== undefined && inputs.ran.has(target);
      if (!passed) problems.push(...(inputs.noEvidence ?? []));
      return { ...base, kind: "test", tested: passed, stamped: false, problems };
    }
    if (!isRuntime(analysis.kind, analysis.typeOnly)) {
      return { ...base, kind: analysis.typeOnly ? "type-only" : "other", stamped: false, problems };
    }
    let tested = false;
    if (evidence === undefined || parts === undefined) {
      const target = result.placements[index]?.target ?? "its module";
      const why = inputs.noEvidence ?? [];
      problems.push(...(why.length > 0 ? why : [error(at, "tested", `no test ran: no test file imports \`${target}\`, directly or through other modules`, "write a test block in this chapter that imports it and runs this code")]));
    }
    else {
      const missed = missedParts(evidence, result, index, children, analysis, parts);
      tested = missed.length === 0;
      const named = analysis.names.length > 0 ? ` (\`${analysis.names.join("`, `")}\`)` : "";
      for (const miss of missed) {
        if (miss === "nothing") problems.push(error(at, "tested", `no test that ran executed this block${named}`, "write a test that runs it; `npm run dev` runs the test files that import its module"));
        else problems.push(error(at, "tested", miss.message, miss.hint));
      }
    }
    return { ...base, kind: "code", tested, stamped: block.attrs.tested === hash, problems };
  });
}

/** True when the verdict earns the block a stamp it does not carry yet: it compiles and its evidence holds. */
export function wantsStamp(verdict: BlockVerdict): boolean {
  return verdict.kind === "code" && verdict.compiles && verdict.tested === true && !verdict.stamped;
}

const mark = (ok: boolean | undefined): string => (ok === undefined ? "–" : ok ? "✓" : "✗");

/**
 * The verdict as printed: `literate/memory.md:57 compiles ✓ tested ✓ stamped ✓`, then each
 * problem, indented, as `formatDiagnostic` writes it.
 */
export function formatVerdict(verdict: BlockVerdict): string {
  const where = `${verdict.doc}:${verdict.line}`;
  const parts = [`compiles ${mark(verdict.compiles)}`];
  if (verdict.kind === "code") parts.push(`tested ${mark(verdict.tested)}`, `stamped ${mark(verdict.stamped)}`);
  else if (verdict.kind === "test") parts.push(`tests pass ${mark(verdict.tested)}`);
  else if (verdict.kind === "type-only") parts.push("type-only");
  const head = `${where} ${parts.join(" ")}`;
  const details = verdict.problems.map((p) => formatDiagnostic(p).replace(/^/gm, "    "));
  return [head, ...details].join("\n");
}

/**
 * A verify report of the whole book as `npm run dev` knows it, for the docs' badges: rules 1–3
 * as verify finds them, and rule 4 from the stamps, which in dev mode stand for the evidence (a
 * stamp equal to the block's hash was written from a passing run of this exact code; a changed
 * block's verdict of this cycle decides it too). It is not verify's verdict, which needs the
 * whole suite's run: the page says so.
 */
export function devReport(
  inputs: Pick<VerdictInputs, "result" | "hashes" | "analyses" | "definitionProblems" | "checked">,
  verdicts: readonly BlockVerdict[],
): VerifyReport {
  const { result, hashes, analyses } = inputs;
  const compileProblems = mapCompilerDiagnostics(result, inputs.checked, []);
  const judged = new Map(verdicts.map((v) => [blockKey(v.doc, v.hash), v]));
  const blocks: BlockReport[] = result.blocks.map((block, index) => {
    const analysis = analyses[index] ?? { kind: "other" as const, names: [], typeOnly: false };
    const hash = hashes[index] ?? "";
    const at = (d: Diagnostic): boolean => d.file === block.doc && d.line === block.line && d.column === block.column;
    const oneDefinition = inputs.definitionProblems.filter(at);
    const isDefinitionBlock = analysis.kind === "definition" || analysis.kind === "fragment" || analysis.kind === "preamble";
    const prose = !(isDefinitionBlock && block.proseBefore === false);
    const compileList = compileProblems.get(index) ?? [];
    const verdict = judged.get(blockKey(block.doc, hash));
    let tested: TestedState = "exempt";
    const problems: Diagnostic[] = [...oneDefinition, ...compileList, ...(verdict?.problems.filter((p) => p.rule === "tested") ?? [])];
    if (isRuntime(analysis.kind, analysis.typeOnly)) {
      if (block.attrs.tested === hash || verdict?.stamped === true) tested = "tested";
      else if (verdict !== undefined && verdict.tested === false) tested = "untested";
      else if (block.attrs.tested !== undefined) {
        tested = "stale";
        problems.push(error({ file: block.doc, line: block.line, column: block.column }, "tested", `stamp \`tested=${block.attrs.tested}\` is stale: the block changed since it was tested (now \`${hash}\`)`, "save it under `npm run dev`, which runs its tests and stamps it"));
      } else {
        tested = "untested";
        problems.push(error({ file: block.doc, line: block.line, column: block.column }, "tested", "no stamp: not known to be tested", "save it under `npm run dev`, which runs its tests and stamps it"));
      }
    }
    const stamp = verdict?.stamped === true ? hash : block.attrs.tested;
    return {
      ...blockIdentity(block, analysis, hash, stamp),
      checks: { oneDefinition: oneDefinition.length === 0, prose, compiles: compileList.length === 0, tested },
      problems,
    };
  });
  const problems = sortDiagnostics(blocks.flatMap((b) => b.problems));
  const documents: DocumentSummary[] = result.documents.map((d) => {
    const own = blocks.filter((b) => b.doc === d.path);
    const definitions = own.filter((b) => b.kind === "definition" || b.kind === "fragment");
    return {
      path: d.path,
      blocks: own.length,
      definitions: definitions.length,
      typeOnly: definitions.filter((b) => b.typeOnly).length,
      tested: own.filter((b) => b.checks.tested === "tested").length,
      problems: own.reduce((n, b) => n + b.problems.filter((p) => p.severity === "error").length, 0),
      warnings: own.reduce((n, b) => n + b.problems.filter((p) => p.severity === "warning").length, 0),
    };
  });
  return { ok: problems.every((p) => p.severity !== "error"), blocks, documents, problems, typeCheck: { compiler: inputs.checked.compiler, milliseconds: inputs.checked.milliseconds } };
}
