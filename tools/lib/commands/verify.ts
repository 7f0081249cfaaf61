/**
 * verify: the rules, each a fact a tool proved, judged by the one judge (`judge.ts`, the rules in
 * `rules/`) over the documents and the evidence on disk.
 *
 * 1. one definition per block (read from the tangled files' syntax trees, `definitions.ts`);
 * 2. prose before code (remark decides what a heading or paragraph is);
 * 3. compiles (one compiler run for the whole project, `runners/typecheck.ts`);
 * 4. tested (coverage of the latest, fully passing test run, `runners/vitest-evidence.ts`: every function the
 *    block defines ran, or, for a value with no function in it, code that ran read it, `runs.ts`;
 *    and a `tested=` stamp equal to the block's current hash, `stamps.ts`).
 *
 * 5. pinned (mutation evidence, `core/mutation.ts`): each runtime block has a record in its chapter's
 *    `mutation/CHAPTER.json` (written only by `npm run mutate`) matching its hash, scoring at least
 *    80% with declared equivalents left out, and every `equivalent` declaration names a mutant
 *    that survives. A project with no record file at all is not judged by this rule.
 *
 * Besides: a chapter imports only from chapters earlier in the reading order (`order.ts`), and a
 * doc comment that mostly repeats the prose before its block is a warning (`repetition.ts`).
 *
 * This module owns the disk: it reads the documents, checks the tangled files are current, runs
 * the type-check and (with `--stamp`) the tests, loads the evidence and the mutation records,
 * hands them to the judge, and writes the stamps the evidence earns.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { LiterateError, error, sortDiagnostics, type Diagnostic } from "../core/diagnostics.ts";
import { type TestEvidence } from "../core/evidence.ts";
import { evidencePaths, loadEvidence } from "../runners/vitest-evidence.ts";
import { readDocuments, readIfExists, writeAtomically } from "../disk/io.ts";
import { factsOf, judge, type BookMutation, type Judgement, type TestFacts } from "../rules/judge.ts";
import { recordPath } from "../core/mutation.ts";
import { ProjectModel } from "../core/project.ts";
import { applyStampEdits, type StampEdit } from "../core/stamps.ts";
import type { TangleResult } from "../core/tangle.ts";
import { typeCheck } from "../runners/typecheck.ts";
import { isRuntime } from "../rules/rule.ts";
import { pushAt } from "../core/maps.ts";

/** The whole verification: the judge's verdict, and what it was judged on. */
export interface VerifyReport extends Pick<Judgement, "ok" | "blocks" | "documents" | "problems"> {
  readonly typeCheck: { readonly compiler: string; readonly milliseconds: number };
  readonly tests?: TestEvidence["tests"];
  /** With `--stamp`: how many stamps were written and removed. */
  readonly stamps?: { readonly written: number; readonly removed: number };
  /** Rule 5: the chapters with runtime blocks that have a mutation record file, and those that have none yet. */
  readonly mutation?: BookMutation;
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

/** Verifies the project at `options.root`. Throws `LiterateError` when verification cannot even start. */
export function verifyProject(options: VerifyOptions): VerifyReport {
  const { root } = options;
  // A mistyped `--root` is a user error, not a compiler that cannot start in a missing folder.
  if (statSync(root, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new LiterateError([error({ file: root, line: 0, column: 0 }, "bad-root", `\`${root}\` is not a folder`, "run verify in the project root, or name it with `--root DIR`")]);
  }
  const model = options.model ?? ProjectModel.of(readDocuments(root), { scan: "remark" });
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
  const checked = typeCheck(root, options.compiler === undefined ? {} : { compiler: options.compiler });
  const tests = verifyTestFacts(root, result, global, options.stamp === true);
  // Stamps follow evidence only: without usable evidence (none, or older than the code), none is touched.
  const stamping = options.stamp === true && tests.evidence !== undefined;
  const evidence = tests.evidence;
  const facts = factsOf(model, { checked, inProgram: programFiles(root), records: readRecords(root, paths), tests });
  const judged = judge(facts, { extra: global });

  const edits = new Map<string, StampEdit[]>();
  let written = 0;
  let removed = 0;
  if (stamping) {
    result.blocks.forEach((block, index) => {
      const analysis = facts.analyses[index];
      const runtime = analysis !== undefined && isRuntime(analysis.kind, analysis.typeOnly);
      const desired = judged.tested.executed.has(index) ? (facts.hashes[index] ?? "") : undefined;
      if (block.attrs.tested === desired || !(runtime || block.attrs.tested !== undefined)) return;
      pushAt(edits, block.doc, { line: block.line, stamp: desired });
      if (desired === undefined) removed++;
      else written++;
    });
  }

  // The tests ran between reading a document and writing its stamps: a document edited in that
  // window keeps the edit, gets no stamp, and says so, instead of being overwritten.
  const late: Diagnostic[] = [];
  for (const [doc, list] of edits) {
    const text = texts.get(doc) ?? "";
    const next = applyStampEdits(text, list);
    if (next === text) continue;
    if (readIfExists(join(root, doc)) !== text) {
      late.push(error({ file: doc, line: 0, column: 0 }, "tested", "the document changed while verify ran, so its stamps were not written", "run `npm run verify -- --stamp` again"));
      continue;
    }
    writeAtomically(join(root, doc), next);
  }
  const problems = late.length === 0 ? judged.problems : sortDiagnostics([...judged.problems, ...late]);
  return {
    ok: problems.every((p) => p.severity !== "error"),
    blocks: judged.blocks,
    documents: judged.documents,
    problems,
    typeCheck: { compiler: checked.compiler, milliseconds: checked.milliseconds },
    ...(evidence === undefined ? {} : { tests: evidence.tests }),
    ...(options.stamp === true ? { stamps: { written, removed } } : {}),
    mutation: judged.mutation,
  };
}

/**
 * Rule 4's facts as verify reads them from the disk: the evidence of the latest test run when it
 * may be used (its problems pushed to `global`), speaking for every block. The language server
 * reads the same facts (`tools/lib/lsp/`).
 */
export function verifyTestFacts(root: string, result: TangleResult, global: Diagnostic[], stamp: boolean): TestFacts {
  const { evidence, missing } = usableEvidence(root, result, global);
  return {
    evidence,
    scope: "all",
    ...(stamp ? { stampFromEvidence: true } : {}),
    refresh: "`npm run verify -- --stamp`",
    absent: (block, named) => (missing ? [error({ file: block.doc, line: block.line, column: block.column }, "tested", `no test results exist, so this block${named} is not known to be tested`, "run `npm test`, then `npm run verify -- --stamp`")] : []),
  };
}

/** Each chapter's mutation record text (`undefined`: no record file). */
export function readRecords(root: string, docs: readonly string[]): Map<string, string | undefined> {
  return new Map(docs.map((doc) => [doc, readIfExists(join(root, recordPath(doc)))]));
}

/** Verify (and mutate) read the files on disk; they must be exactly what the documents tangle to. */
export function requireCurrentFiles(root: string, result: TangleResult): void {
  const stale: Diagnostic[] = [];
  for (const [path, content] of result.files) {
    if (readIfExists(join(root, path)) !== content) {
      stale.push(error({ file: path, line: 0, column: 0 }, "out-of-date", `\`${path}\` is not what the documents tangle to`, "run `npm run tangle` first"));
    }
  }
  if (stale.length > 0) throw new LiterateError(stale);
}

/** The files (project-relative) of the program `tsconfig.json` checks: rule 3 proves nothing of a target outside it. */
export function programFiles(root: string): Set<string> {
  const configPath = join(root, "tsconfig.json");
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
  const prefix = `${root.replace(/\\/g, "/").replace(/\/$/, "")}/`;
  return new Set(parsed.fileNames.map((f) => f.replace(/\\/g, "/")).filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length)));
}

/**
 * Loads the evidence and checks it may be used: it exists, every test passed, and it is newer
 * than the code. `missing` says there are no (readable) test results at all: then each runtime
 * block is reported at its own location, under the one summary line pushed to `out`.
 */
function usableEvidence(root: string, result: TangleResult, out: Diagnostic[]): { evidence: TestEvidence | undefined; missing: boolean } {
  const loaded = loadEvidence(root);
  const at = { file: "test run", line: 0, column: 0 };
  // Evidence that may not be used: the problem said once, for the whole book.
  const unusable = (problem: Diagnostic, missing = false): { evidence: undefined; missing: boolean } => {
    out.push(problem);
    return { evidence: undefined, missing };
  };
  if ("missing" in loaded) return unusable(error(at, "tested", `${loaded.missing}, so no block counts as tested`, "run `npm test`, or `npm run verify -- --stamp`"), true);
  if ("refused" in loaded) return unusable(error(at, "tested", `${loaded.refused}, so no block counts as tested`, "run the whole suite again until it passes: `npm test`, or `npm run verify -- --stamp`"));
  const { evidence } = loaded;
  // A run of some test files proves nothing about the others, which may fail.
  const ran = new Set(evidence.testFiles);
  const notRun = testTargets(result).filter((path) => !ran.has(path));
  if (notRun.length > 0) return unusable(error(at, "tested", `the run recorded in \`${evidencePaths.results}\` did not run \`${notRun.join("`, `")}\`, so no block counts as tested`, "run the whole suite: `npm test`, or `npm run verify -- --stamp`"));
  for (const target of result.targets) {
    const mtime = statSync(join(root, target.path)).mtimeMs;
    if (mtime > evidence.startTime) return unusable(error(at, "tested", `the latest test run is older than \`${target.path}\``, "run the tests again: `npm test`, or `npm run verify -- --stamp`"));
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

