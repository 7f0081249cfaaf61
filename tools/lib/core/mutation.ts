/**
 * Mutation evidence (verify's rule 5, "pinned"): which mutants of a block its chapter's tests
 * kill, recorded per chapter in `mutation/CHAPTER.json` by `npm run mutate` and checked by verify.
 *
 * Pure: positions map between generated files and Markdown through tangle's line tables, records
 * are parsed and formatted here, scores and problems are computed from texts handed in. Running
 * StrykerJS and the sampled re-check live in `tools/mutate.ts`.
 *
 * A mutant's place is stored relative to its block: `line` 1 is the block's first code line,
 * columns are Markdown columns (1-based, end exclusive). So a record survives edits elsewhere in
 * the chapter, and a block's record is current exactly when its hash equals the block's.
 */
import { basename } from "node:path";
import { error, LiterateError, type Diagnostic } from "./diagnostics.ts";
import type { BlockAnalysis } from "./definitions.ts";
import type { TangleResult } from "./tangle.ts";
import { sha256 } from "./plan.ts";
import { mulberry32 } from "./seeded.ts";
import { pushAt } from "./maps.ts";

/** What happened to a mutant: detected (`killed`, `timeout`) or not (`survived`, `no-coverage`). */
export type MutantStatus = "killed" | "timeout" | "survived" | "no-coverage";

/** A span in a block: lines relative to the block (1 = first code line), Markdown columns, end exclusive. */
export interface BlockSpan {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

/** One mutant of a block and its fate. */
export interface MutantRecord extends BlockSpan {
  readonly mutator: string;
  readonly replacement: string;
  readonly status: MutantStatus;
  /** Full names of the tests that failed with the mutant in place (for `killed`). */
  readonly killedBy: readonly string[];
}

/** The mutation record of one block: valid while `hash` equals the block's hash. */
export interface BlockMutationRecord {
  /** The names the block defines, joined by `,` (or `line N` for an unnamed block). */
  readonly id: string;
  readonly hash: string;
  readonly mutants: readonly MutantRecord[];
}

/** The committed record of one chapter. */
export interface ChapterRecord {
  readonly doc: string;
  /** The chapter's test file, the only tests a mutation run of the chapter uses. */
  readonly tests: string;
  /** Hash of the chapter's test blocks when the records were made (a change re-runs every block). */
  readonly testsHash: string;
  readonly blocks: readonly BlockMutationRecord[];
}

/** The block score under which rule 5 fails, in percent. */
const blockThreshold = 80;

/** Where a chapter's record lives: `literate/act.md` → `mutation/act.json`. */
export function recordPath(doc: string): string {
  return `mutation/${basename(doc, ".md")}.json`;
}

/** Twelve hex digits of SHA-256, as block hashes are spelled. */
export function shortHash(text: string): string {
  return sha256(text).slice(0, 12);
}

const statuses: ReadonlySet<string> = new Set(["killed", "timeout", "survived", "no-coverage"]);
const spanPattern = /^(\d+):(\d+)-(\d+):(\d+)$/;

/** `L:C-L:C`, the compact spelling of a span in the record files. */
function formatSpan(span: BlockSpan): string {
  return `${span.line}:${span.column}-${span.endLine}:${span.endColumn}`;
}

/** Parses a chapter record; throws `LiterateError` naming the file and the field that is wrong. */
export function parseChapterRecord(path: string, text: string): ChapterRecord {
  const fail = (field: string, what: string): never => {
    throw new LiterateError([error({ file: path, line: 0, column: 0 }, "pinned", `\`${field}\` ${what}`, "records are written only by `npm run mutate`: run it for this chapter instead of editing the file")]);
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return fail("(file)", "is not JSON");
  }
  const obj = (value: unknown, field: string): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : fail(field, "must be an object"));
  const str = (value: unknown, field: string): string => (typeof value === "string" ? value : fail(field, "must be a string"));
  const list = (value: unknown, field: string): unknown[] => (Array.isArray(value) ? value : fail(field, "must be a list"));
  const root = obj(data, "(file)");
  const blocks = list(root.blocks, "blocks").map((b, i): BlockMutationRecord => {
    const block = obj(b, `blocks[${i}]`);
    const mutants = list(block.mutants, `blocks[${i}].mutants`).map((m, j): MutantRecord => {
      const field = `blocks[${i}].mutants[${j}]`;
      const mutant = obj(m, field);
      const span = spanPattern.exec(str(mutant.at, `${field}.at`)) ?? fail(`${field}.at`, "must be `LINE:COLUMN-LINE:COLUMN`");
      const status = str(mutant.status, `${field}.status`);
      if (!statuses.has(status)) fail(`${field}.status`, `must be one of ${[...statuses].join(", ")}`);
      return {
        line: Number(span[1]),
        column: Number(span[2]),
        endLine: Number(span[3]),
        endColumn: Number(span[4]),
        mutator: str(mutant.mutator, `${field}.mutator`),
        replacement: str(mutant.replacement, `${field}.replacement`),
        status: status as MutantStatus,
        killedBy: mutant.killedBy === undefined ? [] : list(mutant.killedBy, `${field}.killedBy`).map((t, k) => str(t, `${field}.killedBy[${k}]`)),
      };
    });
    return { id: str(block.id, `blocks[${i}].id`), hash: str(block.hash, `blocks[${i}].hash`), mutants };
  });
  return { doc: str(root.doc, "doc"), tests: str(root.tests, "tests"), testsHash: str(root.testsHash, "testsHash"), blocks };
}

/** Formats a chapter record: one mutant per line, so a diff shows which mutants changed fate. */
export function formatChapterRecord(record: ChapterRecord): string {
  const mutant = (m: MutantRecord): string => {
    const fields: Record<string, unknown> = { at: formatSpan(m), mutator: m.mutator, replacement: m.replacement, status: m.status };
    if (m.killedBy.length > 0) fields.killedBy = m.killedBy;
    return `        ${JSON.stringify(fields)}`;
  };
  const block = (b: BlockMutationRecord): string => {
    const head = `    { "id": ${JSON.stringify(b.id)}, "hash": ${JSON.stringify(b.hash)}, "mutants": [`;
    return b.mutants.length === 0 ? `${head}] }` : `${head}\n${b.mutants.map(mutant).join(",\n")}\n    ] }`;
  };
  return [
    "{",
    `  "doc": ${JSON.stringify(record.doc)},`,
    `  "tests": ${JSON.stringify(record.tests)},`,
    `  "testsHash": ${JSON.stringify(record.testsHash)},`,
    `  "blocks": [${record.blocks.length === 0 ? "]" : `\n${record.blocks.map(block).join(",\n")}\n  ]`}`,
    "}",
    "",
  ].join("\n");
}

/** The id a block's record goes by: its names, or its line when it has none. */
export function blockId(analysis: Pick<BlockAnalysis, "names">, line: number): string {
  return analysis.names.length > 0 ? analysis.names.join(",") : `line ${line}`;
}

/**
 * The blocks of `doc` that need mutation evidence: definitions and fragments with runtime code
 * (not type-only), written into a TypeScript target.
 */
export function mutationCandidates(result: TangleResult, analyses: readonly Pick<BlockAnalysis, "kind" | "typeOnly">[], doc: string): number[] {
  const written = new Set<number>();
  for (const target of result.targets) {
    if (!/\.(c|m)?ts$/.test(target.path)) continue;
    for (const block of target.lineBlock) if (block >= 0) written.add(block);
  }
  return [...result.blocks.keys()].filter((index) => {
    const block = result.blocks[index];
    const a = analyses[index];
    return block?.doc === doc && a !== undefined && !block.attrs.test && (a.kind === "definition" || a.kind === "fragment") && !a.typeOnly && written.has(index);
  });
}

/** The generated line ranges (1-based, inclusive) that hold a block's own lines. */
export function generatedRanges(result: TangleResult, index: number): { target: string; first: number; last: number }[] {
  const ranges: { target: string; first: number; last: number }[] = [];
  for (const target of result.targets) {
    target.lineBlock.forEach((block, i) => {
      if (block !== index || (target.lineSource[i] ?? 0) === 0) return;
      const last = ranges.at(-1);
      if (last !== undefined && last.target === target.path && last.last === i) last.last = i + 1;
      else ranges.push({ target: target.path, first: i + 1, last: i + 1 });
    });
  }
  return ranges;
}

/** A generated position (1-based line and column) mapped into its block, or undefined for a line no block wrote. */
function toBlockPosition(result: TangleResult, targetPath: string, line: number, column: number): { block: number; line: number; column: number } | undefined {
  const target = result.targets.find((t) => t.path === targetPath);
  const block = target?.lineBlock[line - 1] ?? -1;
  const mdLine = target?.lineSource[line - 1] ?? 0;
  const owner = result.blocks[block];
  if (target === undefined || owner === undefined || mdLine === 0) return undefined;
  return { block, line: mdLine - owner.line, column: column + (target.lineShift[line - 1] ?? 0) };
}

/** A block position (relative line, Markdown column) mapped to the generated file, or undefined when the block has no such line. */
export function toGeneratedPosition(result: TangleResult, block: number, line: number, column: number): { target: string; line: number; column: number } | undefined {
  const owner = result.blocks[block];
  if (owner === undefined) return undefined;
  const mdLine = owner.line + line;
  for (const target of result.targets) {
    const i = target.lineBlock.findIndex((b, k) => b === block && target.lineSource[k] === mdLine);
    if (i >= 0) return { target: target.path, line: i + 1, column: column - (target.lineShift[i] ?? 0) };
  }
  return undefined;
}

/** The parts of StrykerJS's JSON report (mutation-testing-report-schema) a record is made from. */
export interface StrykerReport {
  readonly files: Readonly<Record<string, { readonly mutants: readonly StrykerMutant[] }>>;
  readonly testFiles?: Readonly<Record<string, { readonly tests: readonly { readonly id: string; readonly name: string }[] }>>;
}

/** One mutant of the report; positions are 1-based, the end column exclusive. */
export interface StrykerMutant {
  readonly id: string;
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: string;
  readonly killedBy?: readonly string[];
  readonly location: { readonly start: { readonly line: number; readonly column: number }; readonly end: { readonly line: number; readonly column: number } };
}

const statusOf: Readonly<Record<string, MutantStatus>> = { Killed: "killed", Timeout: "timeout", Survived: "survived", NoCoverage: "no-coverage" };

/**
 * The mutants of a report grouped by the block they fall in (by their start). Mutants that are
 * not valid code (`CompileError`, `RuntimeError`) or were ignored count for nothing and are left out;
 * `killedBy` is spelled as test names. Files are keyed by their path relative to the project root.
 */
export function mutantsByBlock(report: StrykerReport, result: TangleResult): Map<number, MutantRecord[]> {
  const testNames = new Map<string, string>();
  for (const file of Object.values(report.testFiles ?? {})) for (const t of file.tests) testNames.set(t.id, t.name);
  const out = new Map<number, MutantRecord[]>();
  for (const [path, file] of Object.entries(report.files)) {
    for (const m of file.mutants) {
      const status = statusOf[m.status];
      if (status === undefined) continue;
      const start = toBlockPosition(result, path, m.location.start.line, m.location.start.column);
      const end = toBlockPosition(result, path, m.location.end.line, m.location.end.column);
      if (start === undefined) continue;
      const killedBy = status === "killed" ? [...new Set((m.killedBy ?? []).map((id) => testNames.get(id) ?? id))].sort() : [];
      // A mutant that ends outside its block is kept as the span of its start.
      const last = end?.block === start.block ? end : start;
      const span = { line: start.line, column: start.column, endLine: last.line, endColumn: last.column };
      pushAt(out, start.block, { ...span, mutator: m.mutatorName, replacement: m.replacement ?? "", status, killedBy });
    }
  }
  for (const list of out.values()) list.sort(compareMutants);
  return out;
}

/** Orders mutants by place, then mutator, then replacement. */
function compareMutants(a: MutantRecord, b: MutantRecord): number {
  return a.line - b.line || a.column - b.column || a.endLine - b.endLine || a.endColumn - b.endColumn || a.mutator.localeCompare(b.mutator) || a.replacement.localeCompare(b.replacement);
}

/**
 * The recorded block a mutate run may keep instead of running its mutants again: the one whose code
 * is the block's current code (`hash`), made with the chapter's current tests — or, with
 * `changedOnly`, whatever the tests became since (tests that were only added kill at least as much;
 * a kill a changed test no longer makes is what `npm run mutate -- --sample` re-checks), unless it
 * scores under the threshold: new tests are written for such a block, so it is run again.
 */
export function reusableRecord(old: ChapterRecord | undefined, testsHash: string, hash: string, changedOnly: boolean): BlockMutationRecord | undefined {
  if (old === undefined) return undefined;
  const same = old.blocks.find((b) => b.hash === hash);
  if (old.testsHash === testsHash) return same;
  const score = same === undefined ? undefined : scoreBlock(same.mutants, []).score;
  return changedOnly && (score === undefined || score >= blockThreshold) ? same : undefined;
}

/**
 * The tests hash a record written now may claim: the current one, unless it keeps a block recorded
 * under other tests; then the old one stays, so a later run without `--changed-only` runs every block again.
 */
export function recordTestsHash(old: ChapterRecord | undefined, testsHash: string, keptAny: boolean): string {
  return old !== undefined && keptAny && old.testsHash !== testsHash ? old.testsHash : testsHash;
}

/** Whether a mutant survived the tests. */
export const undetected = (m: MutantRecord): boolean => m.status === "survived" || m.status === "no-coverage";

/** An equivalent mutant declared beside its block, in an `equivalent` fence. */
export interface EquivalenceDeclaration {
  readonly doc: string;
  /** Markdown line of the declaration. */
  readonly mdLine: number;
  /** The block it speaks of: the nearest TypeScript block before the fence. */
  readonly block: number;
  readonly line: number;
  readonly column: number;
  /** Where the mutant ends, when the declaration gives its whole range `L:C-L:C`. */
  readonly end?: { readonly line: number; readonly column: number };
  readonly mutator: string;
  readonly replacement: string;
  readonly reason: string;
  /**
   * Whether the reason is an assumption (`— assumes: …`): no test of the code as it stands can tell the
   * mutant apart, but only because of something outside the block that could change (what callers pass,
   * what another process does). Such mutants are left out of the score like the others, and the book's
   * score is also given counting them as survivors.
   */
  readonly assumption: boolean;
}

/** The part of a declaration that names its mutant. */
export type MutantName = Pick<EquivalenceDeclaration, "line" | "column" | "end" | "mutator" | "replacement">;

const declarationPattern = /^(\d+):(\d+)(?:-(\d+):(\d+))?\s+([A-Za-z]+)\s+(.*?)\s+(?:—|--)\s+(\S.*)$/;
const assumptionPrefix = /^assumes:\s*/;

/**
 * Reads every `equivalent` fence of the book (but those marked `no-tangle`). Each non-empty line declares one mutant:
 * `LINE:COLUMN Mutator replacement — reason` (LINE relative to the block, as in the records), or with
 * the mutant's whole range, `LINE:COLUMN-LINE:COLUMN`, where two survivors start at the same place; a
 * reason that begins `assumes:` marks the declaration as an assumption.
 * Malformed lines, and fences with no TypeScript block before them, are problems at their line.
 */
function parseEquivalences(result: TangleResult): { declarations: EquivalenceDeclaration[]; problems: Map<number, Diagnostic[]> } {
  const declarations: EquivalenceDeclaration[] = [];
  const problems = new Map<number, Diagnostic[]>();
  const add = (index: number, d: Diagnostic): void => pushAt(problems, index, d);
  let previous = -1;
  result.blocks.forEach((block, index) => {
    if (index > 0 && result.blocks[index - 1]?.doc !== block.doc) previous = -1;
    if (block.lang !== "equivalent") {
      if ((block.lang === "ts" || block.lang === "typescript") && !block.attrs.test && !block.attrs.noTangle) previous = index;
      return;
    }
    // An illustration of the syntax (`no-tangle`) declares nothing.
    if (block.attrs.noTangle) return;
    if (previous < 0) {
      add(index, error({ file: block.doc, line: block.line, column: block.column }, "pinned", "an `equivalent` fence must follow the TypeScript block whose mutants it declares", "move it right after that block"));
      return;
    }
    block.lines.forEach((text, k) => {
      if (text.trim() === "") return;
      const at = { file: block.doc, line: block.line + 1 + k, column: 1 + (block.columnShift[k] ?? 0) };
      const m = declarationPattern.exec(text.trim());
      if (m === null) {
        add(index, error(at, "pinned", "an equivalent-mutant declaration must read `LINE:COLUMN Mutator replacement — reason` (or `LINE:COLUMN-LINE:COLUMN …` with the mutant's whole range)", "copy the place, mutator and replacement from the survivor `npm run mutate` printed, then say why no test can tell it apart"));
        return;
      }
      const [, line, column, endLine, endColumn, mutator = "", replacement = "", said = ""] = m;
      const assumption = assumptionPrefix.test(said);
      const end = endLine === undefined || endColumn === undefined ? {} : { end: { line: Number(endLine), column: Number(endColumn) } };
      declarations.push({ doc: block.doc, mdLine: at.line, block: previous, line: Number(line), column: Number(column), ...end, mutator, replacement, reason: said.replace(assumptionPrefix, ""), assumption });
    });
  });
  return { declarations, problems };
}

/** Whether a declaration names this mutant: its start, mutator and replacement, and its end when the declaration gives one. */
function declares(d: MutantName, m: MutantRecord): boolean {
  const ends = d.end === undefined || (d.end.line === m.endLine && d.end.column === m.endColumn);
  return d.line === m.line && d.column === m.column && d.mutator === m.mutator && d.replacement === m.replacement && ends;
}

/**
 * Pairs each surviving mutant with the declaration that names it. A declaration names one mutant: one
 * that matches two survivors (the same start, mutator and replacement, different ends) is ambiguous
 * and silences neither, so a declaration can never leave out more than the reader sees it name.
 */
function matchDeclarations<D extends MutantName>(mutants: readonly MutantRecord[], declarations: readonly D[]): Map<MutantRecord, D> {
  const declared = new Map<MutantRecord, D>();
  for (const d of declarations) {
    const named = mutants.filter((m) => undetected(m) && declares(d, m));
    if (named.length === 1 && named[0] !== undefined && !declared.has(named[0])) declared.set(named[0], d);
  }
  return declared;
}

/** A block's score: detected over detected plus undetected, declared equivalents left out; undefined with nothing to count. */
export interface BlockScore {
  readonly detected: number;
  readonly survived: number;
  /** Declared equivalent, assumptions included. */
  readonly equivalent: number;
  /** Of those, declared under an assumption (`assumes:`). */
  readonly assumed: number;
  readonly score: number | undefined;
}

/** Scores a block's mutants, leaving out those `equivalents` declare (each names at most one, see `matchDeclarations`). */
export function scoreBlock(mutants: readonly MutantRecord[], equivalents: readonly (MutantName & { readonly assumption?: boolean })[]): BlockScore {
  const declared = matchDeclarations(mutants, equivalents);
  let detected = 0;
  let survived = 0;
  let equivalent = 0;
  let assumed = 0;
  for (const m of mutants) {
    const d = declared.get(m);
    if (!undetected(m)) detected++;
    else if (d === undefined) survived++;
    else {
      equivalent++;
      if (d.assumption === true) assumed++;
    }
  }
  return { detected, survived, equivalent, assumed, score: detected + survived === 0 ? undefined : (100 * detected) / (detected + survived) };
}

/** A survivor as `npm run mutate` and verify print it: `literate/act.md:151:13 survived: BlockStatement, replaced by `{}``. */
export function describeMutant(doc: string, blockLine: number, m: MutantRecord): string {
  const what = m.status === "no-coverage" ? "not covered" : m.status;
  return `${doc}:${blockLine + m.line}:${m.column} ${what}: ${m.mutator}, replaced by \`${m.replacement.replace(/\s+/g, " ")}\``;
}

/** A surviving mutant as the author reads it: its Markdown place, the mutator, the code it replaces and the replacement. */
export function describeSurvivor(doc: string, s: { readonly line: number; readonly column: number; readonly mutator: string; readonly original: string; readonly replacement: string }): string {
  return `${doc}:${s.line}:${s.column} survived: ${s.mutator}, \`${s.original.replace(/\s+/g, " ")}\` replaced by \`${s.replacement.replace(/\s+/g, " ")}\``;
}

/** Rule 5 over the book: problems per block, and which chapters have records. */
export interface PinnedVerdict {
  /** Problems by block index (an `equivalent` fence's problems under its own index). */
  readonly byBlock: Map<number, Diagnostic[]>;
  /** Problems of a whole record file. */
  readonly global: Diagnostic[];
  /** Chapters with runtime blocks and a record file, and those without one. */
  readonly recorded: string[];
  readonly unrecorded: string[];
  /** Per block with a current record: its score. */
  readonly scores: Map<number, BlockScore>;
  /** Per block with a current record: the mutants that survive, declared equivalents left out. */
  readonly survivors: Map<number, MutantRecord[]>;
}

/**
 * Judges rule 5: each candidate block needs a record whose hash is the block's, and a score of at
 * least `blockThreshold` once declared equivalents are left out; each declaration must name a
 * mutant its current record has surviving. A project with no record file at all (one that never
 * ran `npm run mutate`) is not judged: its chapters are only listed as unrecorded.
 * `records` maps a chapter to its record file's text (undefined: no file).
 */
export function judgePinned(
  result: TangleResult,
  analyses: readonly Pick<BlockAnalysis, "kind" | "typeOnly" | "names">[],
  hashes: readonly string[],
  records: ReadonlyMap<string, string | undefined>,
): PinnedVerdict {
  const byBlock = new Map<number, Diagnostic[]>();
  const add = (index: number, d: Diagnostic): void => pushAt(byBlock, index, d);
  const global: Diagnostic[] = [];
  const recorded: string[] = [];
  const unrecorded: string[] = [];
  const scores = new Map<number, BlockScore>();
  const survivors = new Map<number, MutantRecord[]>();
  const { declarations, problems } = parseEquivalences(result);
  const current = new Map<number, BlockMutationRecord>();
  const chapters = result.documents.map((d) => ({ doc: d.path, candidates: mutationCandidates(result, analyses, d.path) })).filter((c) => c.candidates.length > 0);
  // A project that keeps records at all keeps one for every chapter: a chapter without its file fails at each block.
  const keepsRecords = chapters.some((c) => records.get(c.doc) !== undefined);
  for (const { doc, candidates } of chapters) {
    const text = records.get(doc);
    if (text === undefined) unrecorded.push(doc);
    else recorded.push(doc);
    if (text === undefined && !keepsRecords) continue;
    // A missing file is judged as a record of no blocks: each block then has no record.
    let record: ChapterRecord;
    try {
      record = text === undefined ? { doc, tests: "", testsHash: "", blocks: [] } : parseChapterRecord(recordPath(doc), text);
    } catch (caught) {
      if (caught instanceof LiterateError) global.push(...caught.diagnostics);
      else throw caught;
      continue;
    }
    const mutate = `npm run mutate -- --chapter ${basename(doc, ".md")}`;
    for (const index of candidates) {
      const block = result.blocks[index];
      if (block === undefined) continue;
      const at = { file: doc, line: block.line, column: block.column };
      const hash = hashes[index] ?? "";
      const id = blockId(analyses[index] ?? { names: [] }, block.line);
      const mine = record.blocks.find((b) => b.hash === hash);
      if (mine === undefined) {
        const old = record.blocks.find((b) => b.id === id);
        const message = old !== undefined ? `mutation record \`${old.hash}\` is stale: the block changed since its mutants were run (now \`${hash}\`)` : `no mutation record for this block (\`${id}\`)`;
        add(index, error(at, "pinned", message, `run \`${mutate}\` and commit \`${recordPath(doc)}\``));
        continue;
      }
      current.set(index, mine);
      const own = declarations.filter((d) => d.block === index);
      const score = scoreBlock(mine.mutants, own);
      scores.set(index, score);
      const declared = matchDeclarations(mine.mutants, own);
      const standing = mine.mutants.filter((m) => undetected(m) && !declared.has(m));
      survivors.set(index, standing);
      if (score.score !== undefined && score.score < blockThreshold) {
        const listed = standing.slice(0, 3).map((m) => describeMutant(doc, block.line, m));
        const more = standing.length > 3 ? `; and ${standing.length - 3} more` : "";
        add(index, error(at, "pinned", `mutation score ${score.score.toFixed(1)}% is under ${blockThreshold}%: ${score.survived} of ${score.detected + score.survived} mutants survive the tests (${listed.join("; ")}${more})`, `write tests that state the behaviour these mutants break, then \`${mutate}\`; or, if no test can tell a mutant from the code, declare it in an \`equivalent\` fence after the block, with the reason`));
      }
    }
  }
  for (const [index, list] of problems) for (const d of list) add(index, d);
  for (const d of declarations) {
    const mine = current.get(d.block);
    if (mine === undefined) continue; // the block's own problem (stale, missing, no record file) says enough
    const named = mine.mutants.filter((m) => undetected(m) && declares(d, m));
    if (named.length === 1) continue;
    const fence = result.blocks.findIndex((b) => b.doc === d.doc && b.lang === "equivalent" && b.line < d.mdLine && d.mdLine <= b.line + b.lines.length);
    const at = { file: d.doc, line: d.mdLine, column: 1 };
    if (named.length > 1) {
      const ranges = named.map((m) => `\`${m.line}:${m.column}-${m.endLine}:${m.endColumn}\``).join(", ");
      add(fence, error(at, "pinned", `declares \`${d.mutator} ${d.replacement}\` at ${d.line}:${d.column} equivalent, but ${named.length} surviving mutants start there (${ranges}): a declaration names one mutant`, "give the range of the one meant (`LINE:COLUMN-LINE:COLUMN`), one line for each mutant that is equivalent"));
    } else {
      const place = d.end === undefined ? `${d.line}:${d.column}` : `${d.line}:${d.column}-${d.end.line}:${d.end.column}`;
      add(fence, error(at, "pinned", `declares \`${d.mutator} ${d.replacement}\` at ${place} equivalent, but no such mutant survives in the block's current record`, "remove the declaration (a test kills it now, or the code changed), or correct its place from what `npm run mutate` printed"));
    }
  }
  return { byBlock, global, recorded, unrecorded, scores, survivors };
}

/** The text a span of a block covers (what a mutant replaces). */
export function spanText(lines: readonly string[], columnShift: readonly number[], span: BlockSpan): string {
  const from = (line: number, column: number): { row: number; col: number } => ({ row: line - 1, col: column - 1 - (columnShift[line - 1] ?? 0) });
  const a = from(span.line, span.column);
  const b = from(span.endLine, span.endColumn);
  if (a.row === b.row) return (lines[a.row] ?? "").slice(a.col, b.col);
  return [(lines[a.row] ?? "").slice(a.col), ...lines.slice(a.row + 1, b.row), (lines[b.row] ?? "").slice(0, b.col)].join("\n");
}

/** A recorded kill chosen for the re-check. */
export interface SampledKill {
  readonly doc: string;
  readonly block: number;
  readonly mutant: MutantRecord;
  readonly tests: string;
}

/**
 * Draws `count` recorded kills (status `killed`, with the tests that killed them) from current
 * block records, uniformly, reproducibly from `seed`.
 */
export function sampleKills(result: TangleResult, hashes: readonly string[], records: readonly ChapterRecord[], count: number, seed: number): SampledKill[] {
  const pool = records.flatMap((record) =>
    result.blocks.flatMap((block, index) => {
      const mine = block.doc === record.doc ? record.blocks.find((b) => b.hash === hashes[index]) : undefined;
      return (mine?.mutants ?? []).filter((mutant) => mutant.status === "killed" && mutant.killedBy.length > 0).map((mutant): SampledKill => ({ doc: record.doc, block: index, mutant, tests: record.tests }));
    }),
  );
  const random = mulberry32(seed);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as SampledKill, pool[i] as SampledKill];
  }
  return pool.slice(0, count);
}

/**
 * The generated file with a recorded mutant put in place: the target's path and its new text,
 * or undefined when the block no longer has the mutant's lines.
 */
export function applyMutant(result: TangleResult, block: number, mutant: MutantRecord): { target: string; text: string } | undefined {
  const start = toGeneratedPosition(result, block, mutant.line, mutant.column);
  const end = toGeneratedPosition(result, block, mutant.endLine, mutant.endColumn);
  if (start === undefined || end === undefined || start.target !== end.target) return undefined;
  const text = result.files.get(start.target);
  if (text === undefined) return undefined;
  const offsets = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") offsets.push(i + 1);
  const from = (offsets[start.line - 1] ?? 0) + start.column - 1;
  const to = (offsets[end.line - 1] ?? 0) + end.column - 1;
  return { target: start.target, text: text.slice(0, from) + mutant.replacement + text.slice(to) };
}

/** The vitest name pattern that selects exactly the named tests. */
export function testNamePattern(names: readonly string[]): string {
  return `^(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})$`;
}
