/**
 * `npm run mutate`: runs StrykerJS (vitest runner) over the blocks of a chapter whose mutation
 * record is missing or stale, with the chapter's own test file only, maps every mutant back to
 * its block through tangle's line tables, prints the survivors at their Markdown locations and
 * writes `mutation/CHAPTER.json` (module-level survivors, which StrykerJS cannot activate, are run
 * again here). With `--sample N`, re-checks N recorded kills instead: each
 * mutant is put back into a copy of the project and the tests that killed it must fail again.
 * A thin CLI over `tools/lib/mutation.ts`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import ts from "typescript";
import type { LogLevel, PartialStrykerOptions } from "@stryker-mutator/api/core";
import { runCli } from "./lib/cli.ts";
import type { BlockAnalysis } from "./lib/definitions.ts";
import { error, formatDiagnostic, LiterateError, type Diagnostic } from "./lib/diagnostics.ts";
import { listDocuments, parseJson, readIfExists, writeAtomically } from "./lib/io.ts";
import {
  applyMutant,
  blockId,
  describeMutant,
  formatChapterRecord,
  generatedRanges,
  mutantsByBlock,
  mutationCandidates,
  parseChapterRecord,
  recordPath,
  recordTestsHash,
  reusableRecord,
  sampleKills,
  scoreBlock,
  shortHash,
  testNamePattern,
  toGeneratedPosition,
  undetected,
  type BlockMutationRecord,
  type ChapterRecord,
  type MutantRecord,
  type SampledKill,
  type StrykerReport,
} from "./lib/mutation.ts";
import { describeBookScore, factsOf, judge } from "./lib/judge.ts";
import { ProjectModel } from "./lib/project.ts";
import { readRecords } from "./lib/verify.ts";
import { definitionAnalyses, targetTrees } from "./lib/project-code.ts";
import type { TangleResult } from "./lib/tangle.ts";

const usage = `usage: mutate [--chapter NAME]... [--all] [--fresh | --changed-only] [--sample N [--seed S]] [--concurrency N] [--root DIR]

  --chapter NAME  mutate the blocks of literate/NAME.md whose record is missing or stale (repeatable)
  --all           every chapter with runtime blocks (default: the chapters that have a record)
  --fresh         run every block of the chosen chapters again, current records or not
  --changed-only  run only blocks whose code changed or that have no record, keeping the others'
                  records even when the chapter's tests changed (--sample re-checks their kills)
  --sample N      write nothing: re-check N recorded kills, drawn at random (from --seed S)
  --concurrency   test runner processes for StrykerJS (default 1: the machine is shared)
  --root          the project root (default: the current folder)`;

/** The book as verify sees it: tangled in memory, with each block's analysis and hash. */
interface Book {
  readonly root: string;
  readonly model: ProjectModel;
  readonly result: TangleResult;
  readonly sources: ReadonlyMap<string, ts.SourceFile>;
  readonly analyses: readonly BlockAnalysis[];
  readonly hashes: readonly string[];
}

function readBook(root: string): Book {
  const paths = listDocuments(root);
  const model = ProjectModel.of(paths.map((path) => ({ path, text: readIfExists(join(root, path)) ?? "" })), { scan: "remark" });
  const result = model.tangle();
  if (!result.ok) throw new LiterateError(result.diagnostics);
  const stale: Diagnostic[] = [];
  for (const [path, content] of result.files) {
    if (readIfExists(join(root, path)) !== content) stale.push(error({ file: path, line: 0, column: 0 }, "out-of-date", `\`${path}\` is not what the documents tangle to`, "run `npm run tangle` first"));
  }
  if (stale.length > 0) throw new LiterateError(stale);
  return { root, model, result, sources: model.derived(targetTrees), analyses: model.derived(definitionAnalyses).analyses, hashes: model.hashes() };
}

function loadRecord(root: string, doc: string): ChapterRecord | undefined {
  const text = readIfExists(join(root, recordPath(doc)));
  return text === undefined ? undefined : parseChapterRecord(recordPath(doc), text);
}

/** Runs StrykerJS on `mutate` ranges with `tests` only; returns its JSON report. */
async function runStryker(root: string, mutate: readonly string[], tests: string, concurrency: number): Promise<StrykerReport> {
  const { Stryker } = await import("@stryker-mutator/core");
  // The sandbox and the report live outside the project, so nothing of a run reaches git.
  const scratch = mkdtempSync(join(tmpdir(), "passepartout-mutate-"));
  // `npm run dev` stops a mutation run a newer save made pointless with SIGTERM: the sandbox goes too.
  const stopped = (): void => {
    rmSync(scratch, { recursive: true, force: true });
    process.exit(143);
  };
  process.once("SIGTERM", stopped);
  try {
    const options: PartialStrykerOptions = {
      testRunner: "vitest",
      plugins: ["@stryker-mutator/vitest-runner"],
      vitest: { configFile: "vitest.mutate.config.ts", related: false },
      testFiles: [tests],
      coverageAnalysis: "perTest",
      mutate: [...mutate],
      reporters: ["json"],
      jsonReporter: { fileName: join(scratch, "report.json") },
      tempDirName: join(scratch, "sandbox"),
      cleanTempDir: "always",
      concurrency,
      timeoutMS: 3000,
      // A const enum in the API's types; its value is the string.
      logLevel: "warn" as LogLevel.Warning,
      ignorePatterns: ["/coverage", "/site", "/site-artifacts", "/bench", "/.cache", "/mutation"],
    };
    const previous = process.cwd();
    process.chdir(root);
    try {
      await new Stryker(options).runMutationTest();
    } finally {
      process.chdir(previous);
    }
    return parseJson(readFileSync(join(scratch, "report.json"), "utf8")) as StrykerReport;
  } finally {
    process.off("SIGTERM", stopped);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Mutates what a chapter needs and writes its record; returns the problems (none: written). */
async function mutateChapter(book: Book, doc: string, concurrency: number, fresh: boolean, changedOnly: boolean): Promise<void> {
  const { root, result, analyses, hashes } = book;
  const started = Date.now();
  const front = result.documents.find((d) => d.path === doc)?.frontMatter;
  const tests = front?.test;
  if (tests === undefined) {
    throw new LiterateError([error({ file: doc, line: 1, column: 1 }, "pinned", "the chapter has no `test:` file, so no test can kill its mutants", "add `test:` to its front matter and write its tests")]);
  }
  // The chapter's test blocks, not the tangled file: its provenance comments move with every edit above them.
  const testsHash = shortHash(result.blocks.filter((b) => b.doc === doc && b.attrs.test).map((b) => b.lines.join("\n")).join("\n\0\n"));
  const old = fresh ? undefined : loadRecord(root, doc);
  const candidates = mutationCandidates(result, analyses, doc);
  const reuse = (index: number): BlockMutationRecord | undefined => reusableRecord(old, testsHash, hashes[index] ?? "", changedOnly);
  const rerun = candidates.filter((index) => reuse(index) === undefined);
  let found = new Map<number, MutantRecord[]>();
  if (rerun.length > 0) {
    const mutate = rerun.flatMap((index) => generatedRanges(result, index).map((r) => `${r.target}:${r.first}-${r.last}`));
    found = mutantsByBlock(await runStryker(root, mutate, tests, concurrency), result);
    const confirmed = confirmModuleLevel(book, found, tests);
    if (confirmed > 0) process.stdout.write(`${doc}: ${confirmed} module-level mutants StrykerJS left standing fail the chapter's tests when run on their own; recorded as killed\n`);
  }
  const blocks: BlockMutationRecord[] = candidates.map((index) => {
    const line = result.blocks[index]?.line ?? 0;
    const kept = reuse(index);
    return kept ?? { id: blockId(analyses[index] ?? { names: [] }, line), hash: hashes[index] ?? "", mutants: found.get(index) ?? [] };
  });
  const record: ChapterRecord = { doc, tests, testsHash: recordTestsHash(old, testsHash, candidates.some((index) => reuse(index) !== undefined)), blocks };
  mkdirSync(join(root, "mutation"), { recursive: true });
  writeAtomically(join(root, recordPath(doc)), formatChapterRecord(record));

  let detected = 0;
  let survived = 0;
  candidates.forEach((index, k) => {
    const score = scoreBlock(blocks[k]?.mutants ?? [], []);
    detected += score.detected;
    survived += score.survived;
    for (const m of (blocks[k]?.mutants ?? []).filter(undetected)) process.stdout.write(`${describeMutant(doc, result.blocks[index]?.line ?? 0, m)}\n`);
  });
  const total = detected + survived;
  const score = total === 0 ? "no mutants" : `score ${((100 * detected) / total).toFixed(1)}% (before declared equivalents)`;
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(`${doc}: ${total} mutants in ${candidates.length} blocks (${rerun.length} run, ${candidates.length - rerun.length} reused), ${score}, ${survived} survived, ${seconds} s → ${recordPath(doc)}\n`);
}

/** Copies the project to a temporary folder for the re-check (node_modules linked, not copied). */
function scratchCopy(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), "passepartout-recheck-"));
  const skip = new Set(["node_modules", ".git", "coverage", "site", "site-artifacts", ".cache", "bench", "mutation"]);
  cpSync(root, dir, { recursive: true, filter: (source) => source === root || !skip.has(basename(source)) || dirname(source) !== root });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

/** What the tests did with a mutant in place: the names of those that failed, or that the file failed to load. */
interface MutantRun {
  readonly failed: readonly string[];
  readonly ran: readonly string[];
  readonly loadFailed: boolean;
}

/**
 * Runs `tests` (only the tests named in `names`, when given) in the copy `dir` with `mutant` of
 * `block` put in place (none: the code as it is), and restores the file after. Undefined when the block no longer has the mutant's place.
 */
function runWithMutant(dir: string, book: Book, block: number, mutant: MutantRecord | undefined, tests: string, names: readonly string[]): MutantRun | undefined {
  const target = book.result.targets.find((t) => t.lineBlock.includes(block))?.path;
  const mutated = mutant === undefined ? (target === undefined ? undefined : { target, text: book.result.files.get(target) ?? "" }) : applyMutant(book.result, block, mutant);
  if (mutated === undefined) return undefined;
  const file = join(dir, mutated.target);
  const original = readFileSync(file, "utf8");
  writeFileSync(file, mutated.text);
  try {
    const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
    const out = join(dir, "recheck.json");
    rmSync(out, { force: true });
    const filter = names.length > 0 ? ["-t", testNamePattern(names)] : [];
    spawnSync(process.execPath, [vitest, "run", "--config", "vitest.mutate.config.ts", tests, ...filter, "--reporter=json", `--outputFile=${out}`], { cwd: dir, stdio: "ignore" });
    const report = parseJson(readIfExists(out) ?? "{}") as { testResults?: { status?: string; assertionResults?: { fullName?: string; status?: string }[] }[] };
    const files = report.testResults ?? [];
    const results = files.flatMap((f) => f.assertionResults ?? []).filter((a) => a.status === "passed" || a.status === "failed");
    return {
      failed: results.filter((a) => a.status === "failed").map((a) => a.fullName ?? ""),
      ran: results.map((a) => a.fullName ?? ""),
      // A mutant that breaks loading the module fails the file before any test runs: StrykerJS counts that as killed too.
      loadFailed: files.some((f) => f.status === "failed" && (f.assertionResults ?? []).length === 0),
    };
  } finally {
    writeFileSync(file, original);
  }
}

/** The outcome of re-running a recorded kill: killed, or why not. */
type Recheck = { readonly killed: true } | { readonly killed: false; readonly why: string };

function recheck(dir: string, book: Book, kill: SampledKill): Recheck {
  const run = runWithMutant(dir, book, kill.block, kill.mutant, kill.tests, kill.mutant.killedBy);
  if (run === undefined) return { killed: false, why: "its place is no longer in the block" };
  const names = new Set(kill.mutant.killedBy);
  if (run.failed.some((name) => names.has(name))) return { killed: true };
  if (run.loadFailed) {
    // Counts as killed only if the same tests load and pass without the mutant: a broken copy must not pass every kill.
    const baseline = runWithMutant(dir, book, kill.block, undefined, kill.tests, kill.mutant.killedBy);
    if (baseline !== undefined && baseline.failed.length === 0 && baseline.ran.some((name) => names.has(name))) return { killed: true };
    return { killed: false, why: "the test file fails to load even without the mutant" };
  }
  const ran = run.ran.filter((name) => names.has(name));
  return { killed: false, why: ran.length === 0 ? `the tests that killed it did not run (\`${kill.mutant.killedBy.join("`, `")}\`)` : `\`${kill.mutant.killedBy.join("`, `")}\` passed with it in place` };
}

/**
 * Whether generated position `line`:`column` of `target` lies outside every function body: code that
 * runs once, when the module loads ("static" in StrykerJS's words), a function written there included.
 */
function moduleLevel(book: Book, target: string, line: number, column: number): boolean {
  const source = book.sources.get(target);
  if (source === undefined) return false;
  const position = source.getPositionOfLineAndCharacter(line - 1, column - 1);
  let inside = false;
  const visit = (node: ts.Node): void => {
    if (inside || position < node.getStart(source) || position >= node.getEnd()) return;
    if (ts.isFunctionLike(node)) {
      // A mutant that starts where the function starts replaces the function itself (`() => undefined`), a value made when the code around it runs.
      inside = position > node.getStart(source);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return !inside;
}

/**
 * StrykerJS 9.6 under vitest 4.1 never activates a mutant of module-level code (a \`Set\` of names),
 * so each one "survives" tests that plainly kill it. Each such survivor is run again here, the
 * mutant written into a copy of the project and the chapter's tests run on it, and recorded as
 * killed, by the tests that failed, when they fail.
 */
function confirmModuleLevel(book: Book, fresh: Map<number, MutantRecord[]>, tests: string): number {
  let confirmed = 0;
  let dir: string | undefined;
  try {
    for (const [block, mutants] of fresh) {
      fresh.set(
        block,
        mutants.map((m) => {
          if (!undetected(m)) return m;
          const at = toGeneratedPosition(book.result, block, m.line, m.column);
          if (at === undefined || !moduleLevel(book, at.target, at.line, at.column)) return m;
          dir ??= scratchCopy(book.root);
          const run = runWithMutant(dir, book, block, m, tests, []);
          if (run === undefined || run.failed.length === 0) return m;
          confirmed++;
          return { ...m, status: "killed", killedBy: [...new Set(run.failed)].sort() };
        }),
      );
    }
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
  return confirmed;
}

async function sampleRecheck(book: Book, count: number, seed: number): Promise<number> {
  const started = Date.now();
  const docs = book.result.documents.map((d) => d.path);
  const records = docs.flatMap((doc) => {
    const r = loadRecord(book.root, doc);
    return r === undefined ? [] : [r];
  });
  const kills = sampleKills(book.result, book.hashes, records, count, seed);
  process.stdout.write(`mutate: re-checking ${kills.length} recorded kills (--seed ${seed})\n`);
  const problems: Diagnostic[] = [];
  const dir = scratchCopy(book.root);
  try {
    for (const kill of kills) {
      const line = book.result.blocks[kill.block]?.line ?? 0;
      const outcome = recheck(dir, book, kill);
      const place = describeMutant(kill.doc, line, kill.mutant);
      if (outcome.killed) process.stdout.write(`  still killed: ${place}\n`);
      else {
        problems.push(
          error({ file: kill.doc, line: line + kill.mutant.line, column: kill.mutant.column }, "pinned", `a recorded kill no longer kills: ${kill.mutant.mutator}, replaced by \`${kill.mutant.replacement}\`; ${outcome.why}`, `run \`npm run mutate -- --chapter ${basename(kill.doc, ".md")}\` to record what the tests prove now, and commit \`${recordPath(kill.doc)}\``),
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const p of problems) process.stderr.write(`${formatDiagnostic(p)}\n`);
  process.stdout.write(`mutate: ${kills.length - problems.length}/${kills.length} recorded kills still kill, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  return problems.length === 0 ? 0 : 1;
}

// Not awaited: runCli exits the process itself.
void runCli("mutate", async () => {
  const { values } = parseArgs({
    options: {
      chapter: { type: "string", multiple: true, default: [] },
      all: { type: "boolean", default: false },
      fresh: { type: "boolean", default: false },
      "changed-only": { type: "boolean", default: false },
      sample: { type: "string" },
      seed: { type: "string" },
      concurrency: { type: "string", default: "1" },
      root: { type: "string", default: process.cwd() },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const whole = (name: string, text: string | undefined, fallback: number): number => {
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text)) throw new LiterateError([error({ file: "command line", line: 0, column: 0 }, "usage", `\`--${name}\` must be a whole number, not \`${text}\``, `for example \`--${name} 5\``)]);
    return Number(text);
  };
  const concurrency = Math.max(1, whole("concurrency", values.concurrency, 1));
  const book = readBook(values.root);
  if (values.sample !== undefined) {
    return sampleRecheck(book, whole("sample", values.sample, 0), whole("seed", values.seed, Math.floor(Math.random() * 1_000_000)));
  }
  const docs = book.result.documents.map((d) => d.path);
  let chapters: string[];
  if (values.chapter.length > 0) {
    chapters = values.chapter.map((name) => {
      const doc = `literate/${name.replace(/\.md$/, "").replace(/^literate\//, "")}.md`;
      if (!docs.includes(doc)) throw new LiterateError([error({ file: "command line", line: 0, column: 0 }, "usage", `no chapter \`${name}\` (looked for \`${doc}\`)`, "name a chapter by its file name without `.md`, e.g. `--chapter act`")]);
      return doc;
    });
  } else if (values.all) {
    chapters = docs.filter((doc) => mutationCandidates(book.result, book.analyses, doc).length > 0);
  } else {
    chapters = docs.filter((doc) => readIfExists(join(book.root, recordPath(doc))) !== undefined);
  }
  for (const doc of chapters) await mutateChapter(book, doc, concurrency, values.fresh, values["changed-only"]);
  // Rule 5 as verify judges it: the judge, with this rule alone (the others need a type-check and evidence mutate has no use for).
  // Not read: rule 5 alone runs.
  const nothingChecked = { compiler: "native" as const, milliseconds: 0, diagnostics: [] };
  const tests = { evidence: undefined, scope: "all" as const, refresh: "", absent: () => [] };
  const verdict = judge(factsOf(book.model, { checked: nothingChecked, inProgram: undefined, tests, records: readRecords(book.root, docs) }), { only: ["pinned"] });
  process.stdout.write(`book: ${describeBookScore(verdict.mutation)}; records for ${verdict.mutation.recorded.length} chapters, none yet for ${verdict.mutation.unrecorded.length}\n`);
  return 0;
});
