/**
 * verify: the four rules, each a fact a tool proved, and the reading order.
 *
 * 1. one definition per block (read from the tangled files' syntax trees, `definitions.ts`);
 * 2. prose before code (remark decides what a heading or paragraph is);
 * 3. compiles (one compiler run for the whole project, `typecheck.ts`);
 * 4. tested (coverage of the latest, fully passing test run, `evidence.ts`: every function the
 *    block defines ran, or, for a value with no function in it, code that ran read it, `runs.ts`;
 *    and a `tested=` stamp equal to the block's current hash, `stamps.ts`).
 *
 * 5. pinned (mutation evidence, `mutation.ts`): each runtime block has a record in its chapter's
 *    `mutation/CHAPTER.json` (written only by `npm run mutate`) matching its hash, scoring at least
 *    80% with declared equivalents left out, and every `equivalent` declaration names a mutant
 *    that survives. A project with no record file at all is not judged by this rule.
 *
 * Besides: a chapter imports only from chapters earlier in the reading order (`order.ts`), and a
 * doc comment that mostly repeats the prose before its block is a warning (`repetition.ts`).
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { LiterateError, error, sortDiagnostics, type Diagnostic } from "./diagnostics.ts";
import type { BlockAnalysis, BlockKind } from "./definitions.ts";
import type { LiterateBlock } from "./document.ts";
import { evidencePaths, judgeExecution, loadEvidence, type TestEvidence } from "./evidence.ts";
import { listDocuments, readIfExists, writeAtomically } from "./io.ts";
import { readingOrderProblems } from "./order.ts";
import { judgePinned, recordPath, spanText } from "./mutation.ts";
import { measureRepetition, repetitionWarnings } from "./repetition.ts";
import { ProjectModel } from "./project.ts";
import { definitionAnalyses, targetTrees } from "./project-code.ts";
import { findRunnables, judgeRunnables, type Runnables, type RunVerdicts } from "./runs.ts";
import { applyStampEdits, type StampEdit } from "./stamps.ts";
import type { TangleResult } from "./tangle.ts";
import { typeCheck, type TypeCheckResult } from "./typecheck.ts";
import { isTypeScriptPath } from "./paths.ts";

/** The state of rule 4 for one block. */
export type TestedState = "tested" | "untested" | "unstamped" | "stale" | "exempt";

/** Everything verify knows about one block; `--json` prints these. */
export interface BlockReport {
  readonly doc: string;
  readonly index: number;
  readonly line: number;
  readonly lang: string;
  readonly kind: BlockKind;
  readonly names: readonly string[];
  readonly typeOnly: boolean;
  readonly hash: string;
  readonly stamp?: string;
  readonly generated?: { readonly target: string; readonly first: number; readonly last: number };
  readonly checks: {
    readonly oneDefinition: boolean;
    readonly prose: boolean;
    readonly compiles: boolean;
    readonly tested: TestedState;
  };
  /** Rule 5, when the block's chapter has a current mutation record for it: its score and what survives. */
  readonly mutation?: BlockMutation;
  /** What verify found at this block: errors, and warnings (a doc comment that repeats its prose), which do not fail it. */
  readonly problems: readonly Diagnostic[];
}

/** A block's mutation evidence as the docs show it. */
export interface BlockMutation {
  /** Percent of its mutants killed, declared equivalents left out; absent when it has none to count. */
  readonly score?: number;
  readonly killed: number;
  readonly survived: number;
  readonly equivalent: number;
  /** Each survivor: its Markdown line and column, the mutator, the code it replaces and the replacement. */
  readonly survivors: readonly { readonly line: number; readonly column: number; readonly mutator: string; readonly original: string; readonly replacement: string }[];
}

/** A document's summary line. */
export interface DocumentSummary {
  readonly path: string;
  readonly blocks: number;
  readonly definitions: number;
  readonly typeOnly: number;
  readonly tested: number;
  /** Errors found in its blocks. */
  readonly problems: number;
  /** Warnings found in its blocks; they do not fail verify. */
  readonly warnings: number;
}

/** The whole verification. */
export interface VerifyReport {
  readonly ok: boolean;
  readonly blocks: readonly BlockReport[];
  readonly documents: readonly DocumentSummary[];
  /** Every problem, errors and warnings, sorted by location; only errors make `ok` false. */
  readonly problems: readonly Diagnostic[];
  readonly typeCheck: { readonly compiler: string; readonly milliseconds: number };
  readonly tests?: TestEvidence["tests"];
  /** With `--stamp`: how many stamps were written and removed. */
  readonly stamps?: { readonly written: number; readonly removed: number };
  /** Rule 5: the chapters with runtime blocks that have a mutation record file, and those that have none yet. */
  readonly mutation?: {
    readonly recorded: readonly string[];
    readonly unrecorded: readonly string[];
    /** The book's score over every current record, declared equivalents left out; absent with no mutants recorded. */
    readonly score?: number;
    readonly mutants: number;
  };
}

/** Options of a verification. */
export interface VerifyOptions {
  readonly root: string;
  /** Run the tests first and write stamps from their evidence. */
  readonly stamp?: boolean;
  /** Runs the test suite with coverage in `root`; returns true when every test passed. Required with `stamp`. */
  readonly runTests?: (root: string) => boolean;
  readonly compiler?: "native" | "javascript";
  /**
   * The project as the caller already holds it, scanned with remark (rule 2 reads the prose
   * before each block), instead of reading and tangling the documents again. Its texts must be
   * the documents on disk: the stamps are written over them.
   */
  readonly model?: ProjectModel;
}

export const isRuntime = (kind: BlockKind, typeOnly: boolean): boolean => (kind === "definition" || kind === "fragment") && !typeOnly;

/** Verifies the project at `options.root`. Throws `LiterateError` when verification cannot even start. */
export function verifyProject(options: VerifyOptions): VerifyReport {
  const { root } = options;
  // A mistyped `--root` is a user error, not a compiler that cannot start in a missing folder.
  if (statSync(root, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new LiterateError([error({ file: root, line: 0, column: 0 }, "bad-root", `\`${root}\` is not a folder`, "run verify in the project root, or name it with `--root DIR`")]);
  }
  const model = options.model ?? ProjectModel.of(listDocuments(root).map((path) => ({ path, text: readIfExists(join(root, path)) ?? "" })), { scan: "remark" });
  if (model.scan !== "remark") throw new Error("verifyProject needs a model scanned with remark: rule 2 reads the prose before each block");
  const paths = model.paths;
  const texts = model.texts();
  const result = model.tangle();
  if (!result.ok) throw new LiterateError(result.diagnostics);
  requireCurrentFiles(root, result);

  if (options.stamp === true) {
    if (options.runTests === undefined) throw new Error("verify --stamp needs a test runner");
    if (!options.runTests(root)) {
      throw new LiterateError([error({ file: "test run", line: 0, column: 0 }, "tested", "tests failed, so nothing counts as tested; no stamp was changed", "fix the failing tests, then run `npm run verify -- --stamp` again")]);
    }
  }

  const global: Diagnostic[] = [];
  const sources = model.derived(targetTrees);
  const { analyses, diagnostics: definitionProblems } = model.derived(definitionAnalyses);
  const checked = typeCheck(root, options.compiler === undefined ? {} : { compiler: options.compiler });
  const compileProblems = mapCompilerDiagnostics(result, checked, global);
  requireInProgram(root, result, global);
  const { evidence, missing } = usableEvidence(root, result, global);
  const hashes = model.hashes();
  const children = childrenOf(result);
  const values = analyses.flatMap((a, block) => (a.kind === "definition" && !a.typeOnly && a.names.length > 0 ? [{ block, names: a.names }] : []));
  const runnables = findRunnables(result, sources, values);
  const parts = evidence === undefined ? undefined : partsOf(runnables, judgeRunnables(evidence, runnables));
  const kindOf = (index: number): BlockKind => analyses[index]?.kind ?? "other";
  const orderProblems = readingOrderProblems(result, sources, (index) => kindOf(index) === "test" || kindOf(index) === "other");
  const pinned = judgePinned(result, analyses, hashes, new Map(paths.map((path) => [path, readIfExists(join(root, recordPath(path)))])));
  global.push(...pinned.global);
  const repetitions = repetitionWarnings(measureRepetition(result, sources, (index) => kindOf(index) === "definition" && result.blocks[index]?.proseBefore === true));

  // Stamps follow evidence only: without usable evidence (none, or older than the code), none is touched.
  const stamping = options.stamp === true && evidence !== undefined;
  const reports: BlockReport[] = [];
  const edits = new Map<string, StampEdit[]>();
  let written = 0;
  let removed = 0;
  result.blocks.forEach((block, index) => {
    const analysis = analyses[index] ?? { kind: "other" as const, names: [], typeOnly: false };
    const problems: Diagnostic[] = [];
    const at = { file: block.doc, line: block.line, column: block.column };
    const isDefinitionBlock = analysis.kind === "definition" || analysis.kind === "fragment" || analysis.kind === "preamble";
    const mine = (d: Diagnostic): boolean => d.file === block.doc && d.line === block.line && d.column === block.column;
    const oneDefinitionProblems = definitionProblems.filter(mine);
    problems.push(...oneDefinitionProblems);
    let prose = true;
    if (isDefinitionBlock && block.proseBefore === false) {
      prose = false;
      problems.push(error(at, "prose", "no prose before this block", "write a heading or a paragraph that says why this code exists, between it and the previous block"));
    }
    const compileList = compileProblems.get(index) ?? [];
    problems.push(...compileList);
    problems.push(...(orderProblems.get(index) ?? []), ...(repetitions.get(index) ?? []), ...(pinned.byBlock.get(index) ?? []));

    const runtime = isRuntime(analysis.kind, analysis.typeOnly);
    const hash = hashes[index] ?? "";
    let tested: TestedState = "exempt";
    let desired: string | undefined;
    if (runtime) {
      const missed = evidence === undefined || parts === undefined ? [] : missedParts(evidence, result, index, children, analysis, parts);
      const executed = evidence !== undefined && missed.length === 0;
      desired = executed ? hash : undefined;
      const stamp = options.stamp === true ? desired : block.attrs.tested;
      if (!executed) {
        tested = "untested";
        const named = analysis.names.length > 0 ? ` (\`${analysis.names.join("`, `")}\`)` : "";
        if (evidence === undefined) {
          if (missing) problems.push(error(at, "tested", `no test results exist, so this block${named} is not known to be tested`, "run `npm test`, then `npm run verify -- --stamp`"));
        } else {
          for (const miss of missed) {
            if (miss === "nothing") problems.push(error(at, "tested", `no passing test executed this block${named}`, "write a test that runs it, then `npm run verify -- --stamp`"));
            else problems.push(error(at, "tested", miss.message, miss.hint));
          }
        }
      } else if (stamp === undefined) {
        tested = "unstamped";
        problems.push(error(at, "tested", "the tests execute this block but it carries no `tested=` stamp", "run `npm run verify -- --stamp` to stamp it from the evidence"));
      } else if (stamp !== hash) {
        tested = "stale";
        problems.push(error(at, "tested", `stamp \`tested=${stamp}\` is stale: the block changed since it was tested (now \`${hash}\`)`, "run the tests and `npm run verify -- --stamp`"));
      } else {
        tested = "tested";
      }
    }
    if (stamping && block.attrs.tested !== desired && (runtime || block.attrs.tested !== undefined)) {
      const list = edits.get(block.doc) ?? [];
      list.push({ line: block.line, stamp: desired });
      edits.set(block.doc, list);
      if (desired === undefined) removed++;
      else written++;
    }
    const stampNow = stamping ? desired : block.attrs.tested;
    const scored = pinned.scores.get(index);
    const mutation: BlockMutation | undefined =
      scored === undefined
        ? undefined
        : {
            ...(scored.score === undefined ? {} : { score: scored.score }),
            killed: scored.detected,
            survived: scored.survived,
            equivalent: scored.equivalent,
            survivors: (pinned.survivors.get(index) ?? []).map((m) => ({ line: block.line + m.line, column: m.column, mutator: m.mutator, original: spanText(block.lines, block.columnShift, m), replacement: m.replacement })),
          };
    reports.push({
      ...blockIdentity(block, analysis, hash, stampNow),
      checks: { oneDefinition: oneDefinitionProblems.length === 0, prose, compiles: compileList.length === 0, tested },
      ...(mutation === undefined ? {} : { mutation }),
      problems,
    });
  });

  // The tests ran between reading a document and writing its stamps: a document edited in that
  // window keeps the edit, gets no stamp, and says so, instead of being overwritten.
  for (const [doc, list] of edits) {
    const text = texts.get(doc) ?? "";
    const next = applyStampEdits(text, list);
    if (next === text) continue;
    if (readIfExists(join(root, doc)) !== text) {
      global.push(error({ file: doc, line: 0, column: 0 }, "tested", "the document changed while verify ran, so its stamps were not written", "run `npm run verify -- --stamp` again"));
      continue;
    }
    writeAtomically(join(root, doc), next);
  }

  const problems = sortDiagnostics([...global, ...reports.flatMap((r) => r.problems)]);
  const documents = paths.map((path) => summarize(path, reports.filter((r) => r.doc === path)));
  return {
    ok: problems.every((p) => p.severity !== "error"),
    blocks: reports,
    documents,
    problems,
    typeCheck: { compiler: checked.compiler, milliseconds: checked.milliseconds },
    ...(evidence === undefined ? {} : { tests: evidence.tests }),
    ...(options.stamp === true ? { stamps: { written, removed } } : {}),
    mutation: { recorded: pinned.recorded, unrecorded: pinned.unrecorded, ...bookScore(pinned.scores) },
  };
}

/** The book's mutation score: killed over killed plus surviving, over every current record. */
function bookScore(scores: ReadonlyMap<number, { readonly detected: number; readonly survived: number }>): { score?: number; mutants: number } {
  let killed = 0;
  let mutants = 0;
  for (const s of scores.values()) {
    killed += s.detected;
    mutants += s.detected + s.survived;
  }
  return mutants === 0 ? { mutants } : { score: (100 * killed) / mutants, mutants };
}

function summarize(path: string, blocks: readonly BlockReport[]): DocumentSummary {
  const definitions = blocks.filter((b) => b.kind === "definition" || b.kind === "fragment");
  return {
    path,
    blocks: blocks.length,
    definitions: definitions.length,
    typeOnly: definitions.filter((b) => b.typeOnly).length,
    tested: blocks.filter((b) => b.checks.tested === "tested").length,
    problems: blocks.reduce((n, b) => n + b.problems.filter((p) => p.severity === "error").length, 0),
    warnings: blocks.reduce((n, b) => n + b.problems.filter((p) => p.severity === "warning").length, 0),
  };
}

/** Verify reads the files on disk; they must be exactly what the documents tangle to. */
function requireCurrentFiles(root: string, result: TangleResult): void {
  const stale: Diagnostic[] = [];
  for (const [path, content] of result.files) {
    if (readIfExists(join(root, path)) !== content) {
      stale.push(error({ file: path, line: 0, column: 0 }, "out-of-date", `\`${path}\` is not what the documents tangle to`, "run `npm run tangle` first"));
    }
  }
  if (stale.length > 0) throw new LiterateError(stale);
}

/** Every tangled TypeScript target must be part of the type-checked program, or rule 3 proves nothing. */
function requireInProgram(root: string, result: TangleResult, out: Diagnostic[]): void {
  const configPath = join(root, "tsconfig.json");
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
  const inProgram = new Set(parsed.fileNames.map((f) => f.replace(/\\/g, "/")));
  for (const target of result.targets) {
    if (!isTypeScriptPath(target.path)) continue;
    if (!inProgram.has(join(root, target.path).replace(/\\/g, "/"))) {
      out.push(error({ file: target.path, line: 0, column: 0 }, "compiles", `\`${target.path}\` is not part of the program \`tsconfig.json\` checks`, "add its folder to `include` in tsconfig.json"));
    }
  }
}

/** Maps compiler diagnostics on tangled lines to their blocks; the rest become global problems. */
export function mapCompilerDiagnostics(result: TangleResult, checked: TypeCheckResult, global: Diagnostic[]): Map<number, Diagnostic[]> {
  const byBlock = new Map<number, Diagnostic[]>();
  const targets = new Map(result.targets.map((t) => [t.path, t]));
  for (const d of checked.diagnostics) {
    const message = d.code > 0 ? `TS${d.code}: ${d.message}` : d.message;
    const target = targets.get(d.file);
    const block = target?.lineBlock[d.line - 1] ?? -1;
    if (target === undefined || block < 0) {
      global.push(error({ file: d.file === "" ? "tsconfig.json" : d.file, line: d.line, column: d.column }, "compiles", message, target === undefined ? "fix the type error" : "the error is on a line tangle wrote; check the blocks around it"));
      continue;
    }
    const mdLine = target.lineSource[d.line - 1] ?? 0;
    const column = d.column + (target.lineShift[d.line - 1] ?? 0);
    const doc = result.blocks[block]?.doc ?? d.file;
    const list = byBlock.get(block) ?? [];
    list.push(error({ file: doc, line: mdLine, column }, "compiles", message, "fix the code in this block; the whole program is checked at once"));
    byBlock.set(block, list);
  }
  return byBlock;
}

/**
 * Loads the evidence and checks it may be used: it exists, every test passed, and it is newer
 * than the code. `missing` says there are no (readable) test results at all: then each runtime
 * block is reported at its own location, under the one summary line pushed to `out`.
 */
function usableEvidence(root: string, result: TangleResult, out: Diagnostic[]): { evidence: TestEvidence | undefined; missing: boolean } {
  const loaded = loadEvidence(root);
  const at = { file: "test run", line: 0, column: 0 };
  if ("missing" in loaded) {
    out.push(error(at, "tested", `${loaded.missing}, so no block counts as tested`, "run `npm test`, or `npm run verify -- --stamp`"));
    return { evidence: undefined, missing: true };
  }
  if ("refused" in loaded) {
    out.push(error(at, "tested", `${loaded.refused}, so no block counts as tested`, "run the whole suite again until it passes: `npm test`, or `npm run verify -- --stamp`"));
    return { evidence: undefined, missing: false };
  }
  const { evidence } = loaded;
  // A run of some test files proves nothing about the others, which may fail.
  const ran = new Set(evidence.testFiles);
  const notRun = testTargets(result).filter((path) => !ran.has(path));
  if (notRun.length > 0) {
    out.push(error(at, "tested", `the run recorded in \`${evidencePaths.results}\` did not run \`${notRun.join("`, `")}\`, so no block counts as tested`, "run the whole suite: `npm test`, or `npm run verify -- --stamp`"));
    return { evidence: undefined, missing: false };
  }
  for (const target of result.targets) {
    const mtime = statSync(join(root, target.path)).mtimeMs;
    if (mtime > evidence.startTime) {
      out.push(error(at, "tested", `the latest test run is older than \`${target.path}\``, "run the tests again: `npm test`, or `npm run verify -- --stamp`"));
      return { evidence: undefined, missing: false };
    }
  }
  return { evidence, missing: false };
}

/** The tangled test files: the targets of test blocks written at top level. */
function testTargets(result: TangleResult): string[] {
  const targets = new Set<string>();
  result.placements.forEach((placement, index) => {
    if (placement !== undefined && placement.parent === -1 && result.blocks[index]?.attrs.test === true && /\.test\.(c|m)?tsx?$/.test(placement.target)) targets.add(placement.target);
  });
  return [...targets].sort();
}

/** The runnables grouped for judging blocks: functions by the block that defines them, reads by the block read. */
export interface Parts {
  readonly runnables: Runnables;
  readonly verdicts: RunVerdicts;
  readonly functionsOf: ReadonlyMap<number, readonly number[]>;
  readonly readsOf: ReadonlyMap<number, readonly number[]>;
}

export function partsOf(runnables: Runnables, verdicts: RunVerdicts): Parts {
  const functionsOf = new Map<number, number[]>();
  runnables.functions.forEach((f, i) => functionsOf.set(f.block, [...(functionsOf.get(f.block) ?? []), i]));
  const readsOf = new Map<number, number[]>();
  runnables.references.forEach((r, i) => {
    for (const block of r.blocks) if (block !== r.block) readsOf.set(block, [...(readsOf.get(block) ?? []), i]);
  });
  return { runnables, verdicts, functionsOf, readsOf };
}

/**
 * What of a block did not run: `nothing` when no part of it did, else one entry per function
 * that never ran (the outermost: a closure inside a function that never ran goes unsaid) or
 * the value nothing read. Empty when the block counts as executed.
 */
export function missedParts(
  evidence: TestEvidence,
  result: TangleResult,
  index: number,
  children: ReadonlyMap<number, number[]>,
  analysis: { readonly kind: BlockKind; readonly names: readonly string[] },
  parts: Parts,
): ("nothing" | { readonly message: string; readonly hint: string })[] {
  const { runnables, verdicts } = parts;
  const own = parts.functionsOf.get(index) ?? [];
  if (own.length > 0) {
    if (!own.some((f) => verdicts.functionRan[f] === true) && !executedBlock(evidence, result, index, children)) return ["nothing"];
    return own
      .filter((f) => {
        if (verdicts.functionRan[f] === true) return false;
        const parent = runnables.functions[runnables.functions[f]?.parent ?? -1];
        return parent === undefined || parent.block !== index || verdicts.functionRan[runnables.functions[f]?.parent ?? -1] === true;
      })
      .map((f) => {
        const fn = runnables.functions[f];
        return {
          message: `${fn?.description ?? "a function"} (line ${fn?.line ?? 0}) never ran`,
          hint: "add a test that calls it, stating the behaviour that needs it (or remove it, if nothing can), then `npm run verify -- --stamp`",
        };
      });
  }
  if (!executedBlock(evidence, result, index, children)) return ["nothing"];
  if (analysis.kind !== "definition" || analysis.names.length === 0) return [];
  if ((parts.readsOf.get(index) ?? []).some((r) => verdicts.referenceRan[r] === true)) return [];
  const declared = runnables.kinds.get(index);
  const what = `the ${declared?.kind ?? "value"} \`${analysis.names.join("`, `")}\`${declared === undefined ? "" : ` (line ${declared.line})`}`;
  return [{ message: `${what} is never read by code that ran`, hint: "add a test that uses it, or the code that reads it (or remove it, if nothing needs it), then `npm run verify -- --stamp`" }];
}

/** What a block's report says of the block itself, whoever judged it: where it stands, what it defines, its hash and its stamp. */
export function blockIdentity(block: LiterateBlock, analysis: BlockAnalysis, hash: string, stamp: string | undefined): Omit<BlockReport, "checks" | "mutation" | "problems"> {
  return {
    doc: block.doc,
    index: block.index,
    line: block.line,
    lang: block.lang,
    kind: analysis.kind,
    names: analysis.names,
    typeOnly: analysis.typeOnly,
    hash,
    ...(stamp === undefined ? {} : { stamp }),
    ...(analysis.generated === undefined ? {} : { generated: analysis.generated }),
  };
}

/** Blocks spliced into each block (first placements). */
export function childrenOf(result: TangleResult): Map<number, number[]> {
  const children = new Map<number, number[]>();
  result.placements.forEach((placement, index) => {
    if (placement === undefined || placement.parent < 0) return;
    const list = children.get(placement.parent) ?? [];
    list.push(index);
    children.set(placement.parent, list);
  });
  return children;
}

/** Whether a block (with the blocks spliced into it, from any document) ran in the evidence's test run. */
function executedBlock(evidence: TestEvidence, result: TangleResult, index: number, children: ReadonlyMap<number, number[]>): boolean {
  const linesByDoc = new Map<string, Set<number>>();
  const collect = (i: number): void => {
    const b = result.blocks[i];
    if (b === undefined) return;
    const lines = linesByDoc.get(b.doc) ?? new Set<number>();
    for (let k = 0; k < b.lines.length; k++) lines.add(b.line + 1 + k);
    linesByDoc.set(b.doc, lines);
    for (const child of children.get(i) ?? []) collect(child);
  };
  collect(index);
  const verdicts = [...linesByDoc].map(([doc, lines]) => judgeExecution(evidence, doc, lines));
  if (verdicts.includes("executed")) return true;
  if (verdicts.includes("not-executed")) return false;
  const own = evidence.documents.get(result.blocks[index]?.doc ?? "");
  return own !== undefined && own.statements.some((s) => s.count > 0);
}
