/**
 * `npm run mutate`: runs StrykerJS (vitest runner) over the blocks of a chapter whose mutation
 * record is missing or stale, with the chapter's own test file only, maps every mutant back to
 * its block through tangle's line tables, prints the survivors at their Markdown locations and
 * writes `mutation/CHAPTER.json`. With `--sample N`, re-checks N recorded kills instead: each
 * mutant is put back into a copy of the project and the tests that killed it must fail again.
 * A thin CLI over `tools/lib/mutation.ts`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import type { LogLevel, PartialStrykerOptions } from "@stryker-mutator/api/core";
import { runCli } from "./lib/cli.ts";
import { analyzeDefinitions, type BlockAnalysis } from "./lib/definitions.ts";
import { error, formatDiagnostic, LiterateError, type Diagnostic } from "./lib/diagnostics.ts";
import { listDocuments, parseJson, readIfExists, writeAtomically } from "./lib/io.ts";
import {
  applyMutant,
  blockId,
  describeMutant,
  formatChapterRecord,
  generatedRanges,
  judgePinned,
  mutantsByBlock,
  mutationCandidates,
  parseChapterRecord,
  recordPath,
  sampleKills,
  scoreBlock,
  shortHash,
  testNamePattern,
  undetected,
  type BlockMutationRecord,
  type ChapterRecord,
  type SampledKill,
  type StrykerReport,
} from "./lib/mutation.ts";
import { parseTargets } from "./lib/runs.ts";
import { blockHashes } from "./lib/stamps.ts";
import { tangle, type TangleResult } from "./lib/tangle.ts";

const usage = `usage: mutate [--chapter NAME]... [--all] [--sample N [--seed S]] [--concurrency N] [--root DIR]

  --chapter NAME  mutate the blocks of literate/NAME.md whose record is missing or stale (repeatable)
  --all           every chapter with runtime blocks (default: the chapters that have a record)
  --sample N      write nothing: re-check N recorded kills, drawn at random (from --seed S)
  --concurrency   test runner processes for StrykerJS (default 1: the machine is shared)
  --root          the project root (default: the current folder)`;

/** The book as verify sees it: tangled in memory, with each block's analysis and hash. */
interface Book {
  readonly root: string;
  readonly result: TangleResult;
  readonly analyses: readonly BlockAnalysis[];
  readonly hashes: readonly string[];
}

function readBook(root: string): Book {
  const paths = listDocuments(root);
  const result = tangle(paths.map((path) => ({ path, text: readIfExists(join(root, path)) ?? "" })), { scan: "remark" });
  if (!result.ok) throw new LiterateError(result.diagnostics);
  const stale: Diagnostic[] = [];
  for (const [path, content] of result.files) {
    if (readIfExists(join(root, path)) !== content) stale.push(error({ file: path, line: 0, column: 0 }, "out-of-date", `\`${path}\` is not what the documents tangle to`, "run `npm run tangle` first"));
  }
  if (stale.length > 0) throw new LiterateError(stale);
  const { analyses } = analyzeDefinitions(result, parseTargets(result));
  return { root, result, analyses, hashes: blockHashes(result.blocks) };
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
  try {
    const options: PartialStrykerOptions = {
      testRunner: "vitest",
      plugins: ["@stryker-mutator/vitest-runner"],
      vitest: { configFile: "vitest.mutate.config.ts", related: false },
      testFiles: [tests],
      coverageAnalysis: "perTest",
      // A mutant of module-level code ("static": a `Set` of sensor names) needs the module evaluated
      // again with the mutant active; under vitest 4.1 StrykerJS 9.6 does not manage it, and every
      // such mutant "survives" tests that plainly kill it. They are left out rather than miscounted.
      ignoreStatic: true,
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
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Mutates what a chapter needs and writes its record; returns the problems (none: written). */
async function mutateChapter(book: Book, doc: string, concurrency: number): Promise<void> {
  const { root, result, analyses, hashes } = book;
  const started = Date.now();
  const front = result.documents.find((d) => d.path === doc)?.frontMatter;
  const tests = front?.test;
  if (tests === undefined) {
    throw new LiterateError([error({ file: doc, line: 1, column: 1 }, "pinned", "the chapter has no `test:` file, so no test can kill its mutants", "add `test:` to its front matter and write its tests")]);
  }
  const testsHash = shortHash(readIfExists(join(root, tests)) ?? "");
  const old = loadRecord(root, doc);
  const candidates = mutationCandidates(result, analyses, doc);
  const reuse = (index: number): BlockMutationRecord | undefined => (old?.testsHash === testsHash ? old.blocks.find((b) => b.hash === hashes[index]) : undefined);
  const rerun = candidates.filter((index) => reuse(index) === undefined);
  let fresh = new Map<number, BlockMutationRecord["mutants"][number][]>();
  if (rerun.length > 0) {
    const mutate = rerun.flatMap((index) => generatedRanges(result, index).map((r) => `${r.target}:${r.first}-${r.last}`));
    fresh = mutantsByBlock(await runStryker(root, mutate, tests, concurrency), result);
  }
  const blocks: BlockMutationRecord[] = candidates.map((index) => {
    const line = result.blocks[index]?.line ?? 0;
    const kept = reuse(index);
    return kept ?? { id: blockId(analyses[index] ?? { names: [] }, line), hash: hashes[index] ?? "", mutants: fresh.get(index) ?? [] };
  });
  const record: ChapterRecord = { doc, tests, testsHash, blocks };
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
  const score = total === 0 ? "no mutants" : `score ${((100 * detected) / total).toFixed(1)}%`;
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

/** The outcome of re-running a recorded kill: killed, or why not. */
type Recheck = { readonly killed: true } | { readonly killed: false; readonly why: string };

/** Runs the tests that killed `kill` with its mutant in place, in `dir`; restores the file after. */
function recheck(dir: string, book: Book, kill: SampledKill): Recheck {
  const mutated = applyMutant(book.result, kill.block, kill.mutant);
  if (mutated === undefined) return { killed: false, why: "its place is no longer in the block" };
  const file = join(dir, mutated.target);
  const original = readFileSync(file, "utf8");
  writeFileSync(file, mutated.text);
  try {
    const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
    const out = join(dir, "recheck.json");
    rmSync(out, { force: true });
    spawnSync(process.execPath, [vitest, "run", "--config", "vitest.mutate.config.ts", kill.tests, "-t", testNamePattern(kill.mutant.killedBy), "--reporter=json", `--outputFile=${out}`], { cwd: dir, stdio: "ignore" });
    const report = parseJson(readIfExists(out) ?? "{}") as { testResults?: { status?: string; assertionResults?: { fullName?: string; status?: string }[] }[] };
    const files = report.testResults ?? [];
    const names = new Set(kill.mutant.killedBy);
    const ran = files.flatMap((f) => f.assertionResults ?? []).filter((a) => names.has(a.fullName ?? ""));
    if (ran.some((a) => a.status === "failed")) return { killed: true };
    // A mutant that breaks loading the module fails the file before any test runs: Stryker counts that as killed too.
    if (files.some((f) => f.status === "failed" && (f.assertionResults ?? []).length === 0)) return { killed: true };
    return { killed: false, why: ran.length === 0 ? `the tests that killed it did not run (\`${kill.mutant.killedBy.join("`, `")}\`)` : `\`${kill.mutant.killedBy.join("`, `")}\` passed with it in place` };
  } finally {
    writeFileSync(file, original);
  }
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
  for (const doc of chapters) await mutateChapter(book, doc, concurrency);
  const records = new Map(docs.map((doc) => [doc, readIfExists(join(book.root, recordPath(doc)))]));
  const verdict = judgePinned(book.result, book.analyses, book.hashes, records);
  let detected = 0;
  let total = 0;
  for (const s of verdict.scores.values()) {
    detected += s.detected;
    total += s.detected + s.survived;
  }
  const book_ = total === 0 ? "no mutants recorded" : `${((100 * detected) / total).toFixed(1)}% of ${total} mutants killed (declared equivalents left out)`;
  process.stdout.write(`book: ${book_}; records for ${verdict.recorded.length} chapters, none yet for ${verdict.unrecorded.length}\n`);
  return 0;
});
