/**
 * The body of `npm run mutate` (`tools/mutate.ts`): runs StrykerJS (`runners/stryker.ts`) over the
 * blocks of a chapter whose mutation record is missing or stale, with the chapter's own test file
 * only, maps every mutant back to its block through tangle's line tables, prints the survivors at
 * their Markdown locations and writes `mutation/CHAPTER.json` (module-level survivors, which
 * StrykerJS cannot activate, are run again). With `--sample N`, re-checks N recorded kills
 * instead: each mutant is put back into a copy of the project and the tests that killed it must
 * fail again.
 */
import { rmSync } from "node:fs";
import { basename, join } from "node:path";
import { parseCommandLine } from "./cli.ts";
import { error, formatDiagnostic, LiterateError, type Diagnostic } from "../core/diagnostics.ts";
import { blockId, describeMutant, formatChapterRecord, generatedRanges, mutantsByBlock, mutationCandidates, parseChapterRecord, recordPath, recordTestsHash, reusableRecord, sampleKills, scoreBlock, shortHash, undetected, type BlockMutationRecord, type ChapterRecord, type MutantRecord } from "../core/mutation.ts";
import { ProjectModel } from "../core/project.ts";
import { definitionAnalyses, targetTrees } from "../core/project-code.ts";
import { readDocuments, readIfExists, statIfExists, writeAtomically } from "../disk/io.ts";
import { describeBookScore, factsOf, judge } from "../rules/judge.ts";
import { confirmModuleLevel, mutationConfig, recheck, runStryker, scratchCopy, type Book } from "../runners/stryker.ts";
import { readRecords, requireCurrentFiles } from "./verify.ts";

const usage = `usage: mutate [--chapter NAME]... [--all] [--fresh | --changed-only] [--sample N [--seed S]] [--concurrency N] [--root DIR]

  --chapter NAME  mutate the blocks of literate/NAME.md whose record is missing or stale (repeatable)
  --all           every chapter with runtime blocks (default: the chapters that have a record)
  --fresh         run every block of the chosen chapters again, current records or not
  --changed-only  run only blocks whose code changed or that have no record, keeping the others'
                  records even when the chapter's tests changed (--sample re-checks their kills)
  --sample N      write nothing: re-check N recorded kills, drawn at random (from --seed S)
  --concurrency   test runner processes for StrykerJS (default 1: the machine is shared)
  --root          the project root (default: the current folder)`;

function readBook(root: string): Book {
  const model = ProjectModel.of(readDocuments(root), { scan: "remark" });
  const result = model.tangle();
  if (!result.ok) throw new LiterateError(result.diagnostics);
  requireCurrentFiles(root, result);
  return { root, model, result, sources: model.derived(targetTrees), analyses: model.derived(definitionAnalyses).analyses, hashes: model.hashes() };
}

function loadRecord(root: string, doc: string): ChapterRecord | undefined {
  const text = readIfExists(join(root, recordPath(doc)));
  return text === undefined ? undefined : parseChapterRecord(recordPath(doc), text);
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
  writeAtomically(join(root, recordPath(doc)), formatChapterRecord(record));

  candidates.forEach((index, k) => {
    for (const m of (blocks[k]?.mutants ?? []).filter(undetected)) process.stdout.write(`${describeMutant(doc, result.blocks[index]?.line ?? 0, m)}\n`);
  });
  const { detected, survived } = scoreBlock(blocks.flatMap((b) => b.mutants), []);
  const total = detected + survived;
  const score = total === 0 ? "no mutants" : `score ${((100 * detected) / total).toFixed(1)}% (before declared equivalents)`;
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(`${doc}: ${total} mutants in ${candidates.length} blocks (${rerun.length} run, ${candidates.length - rerun.length} reused), ${score}, ${survived} survived, ${seconds} s → ${recordPath(doc)}\n`);
}

async function sampleRecheck(book: Book, count: number, seed: number): Promise<number> {
  const started = Date.now();
  const docs = book.result.documents.map((d) => d.path);
  const records = docs.flatMap((doc) => loadRecord(book.root, doc) ?? []);
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

/** Refuses, as a user error, a project without `vitest.mutate.config.ts`: StrykerJS would stop on it with an internal error. */
function requireMutationConfig(root: string): void {
  if (statIfExists(join(root, mutationConfig)) !== undefined) return;
  throw new LiterateError([error({ file: mutationConfig, line: 0, column: 0 }, "usage", `\`npm run mutate\` runs the tests with \`${mutationConfig}\`, which this project does not have`, "add it: a Vitest configuration whose `include` names the book's unit tests (`test/*.test.ts`), without coverage, like this repository's")]);
}

/** `mutate ARGS`: the exit code, having printed its report on this process's streams (run it under `runCli`). */
export async function mutateCommand(args: readonly string[]): Promise<number> {
  const flags = {
    chapter: { type: "string", multiple: true, default: [] as string[] },
    all: { type: "boolean", default: false },
    fresh: { type: "boolean", default: false },
    "changed-only": { type: "boolean", default: false },
    sample: { type: "string" },
    seed: { type: "string" },
    concurrency: { type: "string", default: "1" },
    root: { type: "string", default: process.cwd() },
  } as const;
  const values = parseCommandLine(args, flags, usage, process.stdout);
  if (values === undefined) return 0;
  const whole = (name: string, text: string | undefined, fallback: number): number => {
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text)) throw new LiterateError([error({ file: "command line", line: 0, column: 0 }, "usage", `\`--${name}\` must be a whole number, not \`${text}\``, `for example \`--${name} 5\``)]);
    return Number(text);
  };
  const concurrency = Math.max(1, whole("concurrency", values.concurrency, 1));
  const book = readBook(values.root);
  if (values.sample !== undefined) {
    requireMutationConfig(book.root);
    return sampleRecheck(book, whole("sample", values.sample, 0), whole("seed", values.seed, Math.floor(Math.random() * 1_000_000)));
  }
  const docs = book.result.documents.map((d) => d.path);
  // The chapters named, else every chapter with runtime blocks (`--all`), else those with a record.
  const chapters =
    values.chapter.length > 0
      ? values.chapter.map((name) => {
          const doc = `literate/${name.replace(/\.md$/, "").replace(/^literate\//, "")}.md`;
          if (!docs.includes(doc)) throw new LiterateError([error({ file: "command line", line: 0, column: 0 }, "usage", `no chapter \`${name}\` (looked for \`${doc}\`)`, "name a chapter by its file name without `.md`, e.g. `--chapter act`")]);
          return doc;
        })
      : docs.filter((doc) => (values.all ? mutationCandidates(book.result, book.analyses, doc).length > 0 : readIfExists(join(book.root, recordPath(doc))) !== undefined));
  if (chapters.length > 0) requireMutationConfig(book.root);
  for (const doc of chapters) await mutateChapter(book, doc, concurrency, values.fresh, values["changed-only"]);
  // Rule 5 as verify judges it: the judge, with this rule alone (the others need a type-check and evidence mutate has no use for).
  // Not read: rule 5 alone runs.
  const nothingChecked = { compiler: "native" as const, milliseconds: 0, diagnostics: [] };
  const tests = { evidence: undefined, scope: "all" as const, refresh: "", absent: () => [] };
  const verdict = judge(factsOf(book.model, { checked: nothingChecked, inProgram: undefined, tests, records: readRecords(book.root, docs) }), { only: ["pinned"] });
  process.stdout.write(`book: ${describeBookScore(verdict.mutation)}; records for ${verdict.mutation.recorded.length} chapters, none yet for ${verdict.mutation.unrecorded.length}\n`);
  return 0;
}
