/**
 * Stitching: edits made to tangled files (`generated/*.ts`, the tangled tests, any target) taken
 * back into the Markdown blocks they came from.
 *
 * Pure: takes the documents' texts and the targets' texts as they are on disk, returns the new
 * document texts or the refusals. The book is tangled in memory (the same `tangle` and options as
 * `npm run tangle`), each edited target is compared with what the book tangles to, line by line
 * (the `diff` library's array diff), and each changed region is placed by the provenance tangle
 * records for every generated line (`TangledTarget.lineBlock`, `lineSource`, `lineShift`: what the
 * inline source map encodes), never by reading the `// literate/…` comments, so a formatter that
 * re-indents, re-wraps or reorders lines inside a block cannot break it.
 *
 * Placement rules (the README's "stitch" section tells them to users):
 * - lines replaced or deleted must all come from one block, and go back into it, in its place;
 * - lines inserted next to a block line go into that block: after the line before them when it
 *   is a block line, else before the line after them; an insertion between two different blocks,
 *   or between two lines tangle writes itself (the blank line and the `// literate/…` comment
 *   between blocks), belongs to no block and is refused;
 * - an edit of a line tangle writes (the header, the inline source map, the lines between
 *   blocks), across two blocks, or inside a block spliced in more than one place is refused;
 * - equal lines: which of two equal lines a diff calls inserted or removed is arbitrary, so an
 *   insertion or deletion it put where it cannot be placed is slid over the equal lines around
 *   it to where it can (`slideHunk`), and a change of blank lines only is moved within its run of
 *   blank lines onto (or next to) lines of a block (`settleBlankHunk`): removing a blank line
 *   between two blocks removes a block's own blank line, never the one tangle writes.
 * Finally the stitched book is tangled again in memory, and unless every target comes out as the
 * edited file (apart from its inline source map line, which tangle writes anew), nothing is taken.
 */
import { diffArrays } from "diff";
import { error, type Diagnostic } from "./diagnostics.ts";
import type { LiterateBlock } from "./document.ts";
import { sha256, type Manifest } from "./plan.ts";
import { inlineSourceMapLine } from "./sourcemap.ts";
import { tangle, type TangleInput, type TangleResult, type TangledTarget } from "./tangle.ts";
import { valueAt } from "./maps.ts";

/** What stitch reads: the book and its targets as they are now. */
export interface StitchInput {
  readonly documents: readonly TangleInput[];
  /** A target's text on disk (the caller reads it), or `undefined` when it is not there. */
  readonly files: (path: string) => string | undefined;
  /**
   * Tangle's manifest (what it last wrote), when there is one: a target whose text is the one
   * recorded there holds no edit, and an edited target whose book has changed since is refused.
   */
  readonly manifest?: Manifest;
}

/** One edit taken back: where it stood in the target, and where it went in the Markdown. */
export interface StitchedEdit {
  readonly target: string;
  /** 1-based line of the edited target where the edit starts. */
  readonly targetLine: number;
  readonly doc: string;
  /** 1-based Markdown line where the edit starts. */
  readonly docLine: number;
  readonly removed: number;
  readonly added: number;
}

export interface StitchOutcome {
  /** True when every edit was placed and the stitched book tangles to the edited targets. */
  readonly ok: boolean;
  /** The refusals, each at the target line it concerns (empty when `ok`). */
  readonly problems: readonly Diagnostic[];
  /** The documents to write, path → new text (empty unless `ok`). */
  readonly documents: ReadonlyMap<string, string>;
  readonly edits: readonly StitchedEdit[];
  /** The targets that held edits, sorted. */
  readonly edited: readonly string[];
  /** The stitched book's tangle, when `ok`. */
  readonly result?: TangleResult;
}

/** A changed region: lines [oldStart, oldEnd) of the tangled text became [newStart, newEnd) of the file. */
interface Hunk {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
}

/** Whose a generated line is: a block's (its global index), or tangle's own. */
type Owner = number | TangleLine;
type TangleLine = "header" | "map" | "between";

/** A Markdown edit: lines [from, to) (0-based) of `doc` replaced by `lines`. */
interface DocEdit {
  readonly doc: string;
  readonly from: number;
  readonly to: number;
  readonly lines: readonly string[];
  readonly at: { readonly file: string; readonly line: number };
}

const hint = {
  tangleLine: "change the code inside a block; the header, the blank line and the `// literate/…` comment between blocks and the source map line are tangle's own",
  acrossBlocks: "make the edit one block at a time (in the Markdown, or in generated/ with a stitch per block)",
  between: "put new code inside a block in generated/ (next to its lines), or write a new block with its prose in the Markdown",
  spliced: "edit the named block in the Markdown: it is spliced in more than one place, so one copy of it cannot say which edit is meant",
  bookChanged: "stitch before changing the Markdown: undo the Markdown change (or the edit in this file), stitch, then redo it",
  notReproduced: "make this edit in the Markdown by hand, then run `npm run tangle -- --force`",
};

/** The lines of a text, split at `\n`, without the empty string after a final newline. */
function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

const isBlank = (line: string): boolean => line.trim() === "";

/**
 * A tangled text as stitch compares it: without its inline source map line, and with the line
 * numbers of the `// literate/FILE:LINE` comments tangle writes (`target` says which lines those
 * are) left out. Both record where lines stand in the Markdown, which a stitch that adds or
 * removes lines moves; tangle writes them anew from the stitched book. The indentation of
 * tangle's own lines is left out too: tangle indents its comments as a formatter would in most
 * places, and where a formatter indents one otherwise (a comment before a block that starts by
 * closing what an earlier block opened), that is no edit of any block, and tangle writes it back.
 */
export function comparable(text: string, target: TangledTarget): string[] {
  const lines = linesOf(text);
  if (inlineSourceMapLine(text) !== undefined) lines.pop();
  return lines.map((line, i) => ((target.lineBlock[i] ?? -1) < 0 && (target.lineSource[i] ?? 0) === 0 ? line.trim().replace(/:\d+$/, ":") : line));
}

/** Who owns each line of a tangled target. */
function ownersOf(target: TangledTarget): Owner[] {
  const lines = linesOf(target.content);
  const map = inlineSourceMapLine(target.content) === undefined ? -1 : lines.length - 1;
  const blocks = target.lineBlock;
  return lines.map((text, i): Owner => {
    const block = blocks[i] ?? -1;
    if (block >= 0) return block;
    if (i === map) return "map";
    // The shebang line (from a block, but written by the header logic) and the header comment.
    if (i <= 1 && ((target.lineSource[i] ?? 0) !== 0 || text.includes("Generated by tools/tangle.ts"))) return "header";
    return "between";
  });
}

/** The changed regions between `before[from..to)` and `after[newFrom..newTo)`, appended to `hunks`. */
function diffSegment(before: readonly string[], after: readonly string[], from: number, to: number, newFrom: number, newTo: number, hunks: Hunk[]): void {
  let o = from;
  let n = newFrom;
  let current: Hunk | undefined;
  for (const change of diffArrays(before.slice(from, to), after.slice(newFrom, newTo))) {
    const count = change.value.length;
    if (!change.added && !change.removed) {
      if (current !== undefined) hunks.push(current);
      current = undefined;
      o += count;
      n += count;
      continue;
    }
    current ??= { oldStart: o, oldEnd: o, newStart: n, newEnd: n };
    if (change.removed) current.oldEnd = o += count;
    else current.newEnd = n += count;
  }
  if (current !== undefined) hunks.push(current);
}

/**
 * The changed regions between the tangled lines and the file's lines. Tangle's own non-blank
 * lines (the header, the `// literate/…` comments, the source map) must come through any edit
 * stitch accepts unchanged, so they are common lines by definition: each is found in the file
 * (in order, by its text, whatever its indentation) and the diff is made between them, segment
 * by segment. A diff of the
 * whole file could otherwise pair a blank line of one block with one of the next and return one
 * region spanning both, where the edits were two, one in each.
 */
function hunksOf(before: readonly string[], after: readonly string[], owners: readonly Owner[]): Hunk[] {
  const hunks: Hunk[] = [];
  const trimmed = after.map((line) => line.trim());
  let from = 0;
  let newFrom = 0;
  for (let i = 0; i < before.length; i++) {
    const text = before[i] ?? "";
    if (typeof owners[i] === "number" || isBlank(text)) continue;
    // Found by its text alone: its indentation is tangle's (see `comparable`).
    const found = trimmed.indexOf(text.trim(), newFrom);
    if (found === -1) continue;
    diffSegment(before, after, from, i, newFrom, found, hunks);
    from = i + 1;
    newFrom = found + 1;
  }
  diffSegment(before, after, from, before.length, newFrom, after.length, hunks);
  return hunks;
}

/** The block an insertion before old line `at` goes into, by the placement rules; `undefined` when it belongs to none. */
function insertionOwner(owners: readonly Owner[], at: number): { block: number; after: boolean } | undefined {
  const before = owners[at - 1];
  const after = owners[at];
  const blockBefore = typeof before === "number" ? before : undefined;
  const blockAfter = typeof after === "number" ? after : undefined;
  if (blockBefore !== undefined && (blockAfter === undefined || blockAfter === blockBefore)) return { block: blockBefore, after: true };
  if (blockBefore === undefined && blockAfter !== undefined) return { block: blockAfter, after: false };
  return undefined;
}

/**
 * A hunk of blank lines only, moved within its run of blank lines (where the diff's choice was
 * arbitrary) onto lines of a block, or next to one: one hunk per blank line when they are removed.
 */
function settleBlankHunk(hunk: Hunk, before: readonly string[], after: readonly string[], owners: readonly Owner[]): Hunk[] {
  const oldBlank = before.slice(hunk.oldStart, hunk.oldEnd).every(isBlank);
  const newBlank = after.slice(hunk.newStart, hunk.newEnd).every(isBlank);
  if (!oldBlank || !newBlank) return [hunk];
  let runStart = hunk.oldStart;
  while (runStart > 0 && isBlank(before[runStart - 1] ?? "x")) runStart--;
  let runEnd = hunk.oldEnd;
  while (runEnd < before.length && isBlank(before[runEnd] ?? "x")) runEnd++;
  const removed = hunk.oldEnd - hunk.oldStart;
  const added = hunk.newEnd - hunk.newStart;
  if (added === 0) {
    const ownLines: number[] = [];
    for (let i = runStart; i < runEnd; i++) if (typeof owners[i] === "number") ownLines.push(i);
    if (ownLines.length < removed) return [hunk];
    // Prefer the lines the diff chose when they are a block's; else the block lines nearest the end of the run.
    const chosen = ownLines.filter((i) => i >= hunk.oldStart && i < hunk.oldEnd);
    for (const i of [...ownLines].reverse()) if (chosen.length < removed && !chosen.includes(i)) chosen.push(i);
    return chosen.sort((a, b) => a - b).map((i) => ({ oldStart: i, oldEnd: i + 1, newStart: hunk.newStart, newEnd: hunk.newStart }));
  }
  if (removed === 0) {
    if (insertionOwner(owners, hunk.oldStart) !== undefined) return [hunk];
    for (let at = runStart; at <= runEnd; at++) {
      if (insertionOwner(owners, at) !== undefined) return [{ ...hunk, oldStart: at, oldEnd: at }];
    }
  }
  return [hunk];
}

/** True when a hunk can be placed as it stands: an insertion next to a block line, or lines of one block only replaced or deleted. */
function placeable(hunk: Hunk, owners: readonly Owner[]): boolean {
  if (hunk.oldEnd === hunk.oldStart) return insertionOwner(owners, hunk.oldStart) !== undefined;
  const first = owners[hunk.oldStart];
  return typeof first === "number" && owners.slice(hunk.oldStart, hunk.oldEnd).every((o) => o === first);
}

/**
 * A pure insertion or deletion slid over the lines around it to where it can be placed, when
 * it cannot where the diff put it. Which of two equal lines a diff calls inserted is arbitrary:
 * lines `x S` inserted after an `x` are the same edit as `x` then `S` inserted before it. So a
 * block's new last lines `""` and `more();`, which a diff may pair with tangle's blank line and
 * report after it, are found their place after the block's last line. The slide stays between
 * the hunks before and after (`low`, `high`: the old lines it may not cross).
 */
function slideHunk(hunk: Hunk, before: readonly string[], after: readonly string[], owners: readonly Owner[], low: number, high: number): Hunk {
  const inserted = hunk.oldEnd === hunk.oldStart;
  if ((inserted ? hunk.newEnd === hunk.newStart : hunk.newEnd !== hunk.newStart) || placeable(hunk, owners)) return hunk;
  // The line that leaves the edit and the line that joins it, when slid by one line up or down.
  const canUp = (h: Hunk): boolean => h.oldStart > low && h.newStart > 0 && (inserted ? after[h.newStart - 1] === after[h.newEnd - 1] : before[h.oldStart - 1] === before[h.oldEnd - 1]);
  const canDown = (h: Hunk): boolean => h.oldEnd < high && (inserted ? h.newEnd < after.length && after[h.newStart] === after[h.newEnd] : before[h.oldStart] === before[h.oldEnd]);
  const shift = (h: Hunk, by: number): Hunk => ({ oldStart: h.oldStart + by, oldEnd: h.oldEnd + by, newStart: h.newStart + by, newEnd: h.newEnd + by });
  for (let h = hunk; canUp(h); ) {
    h = shift(h, -1);
    if (placeable(h, owners)) return h;
  }
  for (let h = hunk; canDown(h); ) {
    h = shift(h, 1);
    if (placeable(h, owners)) return h;
  }
  return hunk;
}

/** The indentation tangle put before a block's lines in this target (its splices' indentation). */
function spliceIndent(target: TangledTarget, lines: readonly string[], blockIndex: number, block: LiterateBlock): string {
  for (let i = 0; i < lines.length; i++) {
    if (target.lineBlock[i] !== blockIndex) continue;
    const text = lines[i] ?? "";
    if (text === "") continue;
    const within = (target.lineSource[i] ?? 0) - block.line - 1;
    const length = (block.columnShift[within] ?? 0) - (target.lineShift[i] ?? 0);
    return text.slice(0, Math.max(0, length));
  }
  return "";
}

/** For each block, whether some line of it stands in more than one place among the targets. */
function splicedTwice(targets: readonly TangledTarget[]): Set<number> {
  const seen = new Set<string>();
  const twice = new Set<number>();
  for (const target of targets) {
    target.lineBlock.forEach((block, i) => {
      if (block < 0) return;
      const key = `${block}:${target.lineSource[i] ?? 0}`;
      if (seen.has(key)) twice.add(block);
      else seen.add(key);
    });
  }
  return twice;
}

/** Where a block stands, for messages. */
function blockPlace(block: LiterateBlock | undefined): string {
  return block === undefined ? "an unknown block" : `the block at ${block.doc}:${block.line}`;
}

/** Stitches the edits of the targets in `input.files` back into the documents; see the module comment. */
export function stitch(input: StitchInput): StitchOutcome {
  const before = tangle(input.documents);
  const refused = (problems: Diagnostic[]): StitchOutcome => ({ ok: false, problems, documents: new Map(), edits: [], edited: [] });
  if (!before.ok) {
    return refused(before.diagnostics.filter((d) => d.severity === "error").map((d) => ({ ...d, hint: `${d.hint ?? ""} (stitch takes edits back only into a book that tangles)`.trim() })));
  }
  const twice = splicedTwice(before.targets);
  const problems: Diagnostic[] = [];
  const docEdits: DocEdit[] = [];
  const edits: StitchedEdit[] = [];
  const edited: string[] = [];
  const texts = new Map(input.documents.map((d) => [d.path, d.text]));
  const docLines = new Map<string, string[]>();
  const linesOfDoc = (doc: string): string[] => valueAt(docLines, doc, () => (texts.get(doc) ?? "").split("\n"));

  for (const target of before.targets) {
    const disk = input.files(target.path);
    if (disk === undefined || disk === target.content) continue;
    const recorded = input.manifest?.files[target.path];
    if (recorded !== undefined && sha256(disk) === recorded) continue; // not edited: only stale
    if (recorded !== undefined && sha256(target.content) !== recorded) {
      problems.push(error({ file: target.path, line: 0, column: 0 }, "stitch-book-changed", `\`${target.path}\` was edited, and the Markdown behind it changed too since tangle wrote it, so the edit cannot be told from the Markdown's change`, hint.bookChanged));
      continue;
    }
    edited.push(target.path);
    const oldLines = linesOf(target.content);
    const newLines = linesOf(disk);
    const owners = ownersOf(target);
    const found = hunksOf(oldLines, newLines, owners);
    const hunks = found
      .map((h, k) => slideHunk(h, oldLines, newLines, owners, found[k - 1]?.oldEnd ?? 0, found[k + 1]?.oldStart ?? oldLines.length))
      .flatMap((h) => settleBlankHunk(h, oldLines, newLines, owners));
    for (const hunk of hunks) {
      const at = { file: target.path, line: Math.min(hunk.newStart, Math.max(0, newLines.length - 1)) + 1, column: 1 };
      let blockIndex: number;
      let from: number;
      let to: number;
      if (hunk.oldEnd > hunk.oldStart) {
        const touched = owners.slice(hunk.oldStart, hunk.oldEnd);
        const blocks = [...new Set(touched.filter((o) => typeof o === "number"))];
        if (blocks.length > 1) {
          problems.push(error(at, "stitch-across-blocks", `the edit spans ${blocks.length} blocks (${blocks.map((b) => blockPlace(before.blocks[b])).join(", ")})`, hint.acrossBlocks));
          continue;
        }
        const tangleLine = touched.find((o): o is TangleLine => typeof o !== "number");
        if (tangleLine !== undefined) {
          const what = { header: "the header tangle writes", map: "the inline source map line", between: "a line tangle writes between blocks (the blank line or the `// literate/…` comment)" }[tangleLine];
          problems.push(error(at, `stitch-${tangleLine === "between" ? "between-blocks" : tangleLine}`, `the edit changes ${what}, which no block holds`, hint.tangleLine));
          continue;
        }
        blockIndex = blocks[0] ?? -1;
        from = (target.lineSource[hunk.oldStart] ?? 0) - 1;
        to = (target.lineSource[hunk.oldEnd - 1] ?? 0);
        if (to - from !== hunk.oldEnd - hunk.oldStart) {
          problems.push(error(at, "stitch-across-blocks", `the edit spans a \`<<name>>\` splice of ${blockPlace(before.blocks[blockIndex])}`, hint.acrossBlocks));
          continue;
        }
      } else {
        const owner = insertionOwner(owners, hunk.oldStart);
        if (owner === undefined) {
          problems.push(error(at, "stitch-between-blocks", "the inserted lines stand between two blocks (or next to tangle's own lines), so no block can be said to hold them", hint.between));
          continue;
        }
        blockIndex = owner.block;
        from = to = owner.after ? (target.lineSource[hunk.oldStart - 1] ?? 0) : (target.lineSource[hunk.oldStart] ?? 0) - 1;
      }
      const block = before.blocks[blockIndex];
      if (block === undefined) throw new Error(`stitch: a line of ${target.path} names block ${blockIndex}, which the tangle result does not hold`);
      if (twice.has(blockIndex)) {
        problems.push(error(at, "stitch-spliced-twice", `the edit is inside ${blockPlace(block)} (\`#${block.attrs.name ?? ""}\`), which is spliced in more than one place`, hint.spliced));
        continue;
      }
      const indent = spliceIndent(target, oldLines, blockIndex, block);
      const mdLines = linesOfDoc(block.doc);
      // The Markdown prefix of the block's new lines: what stands before its fence, as indentation (a `>` kept).
      const prefix = (mdLines[block.line - 1] ?? "").slice(0, block.column - 1).replace(/[^>\s]/g, " ");
      const carriageReturn = (mdLines[block.line - 1] ?? "").endsWith("\r") ? "\r" : "";
      const lines = newLines.slice(hunk.newStart, hunk.newEnd).map((line) => {
        if (isBlank(line)) return `${prefix.trimEnd()}${carriageReturn}`;
        const code = line.startsWith(indent) ? line.slice(indent.length) : line.slice(Math.min(indent.length, line.length - line.trimStart().length));
        return `${prefix}${code}${carriageReturn}`;
      });
      docEdits.push({ doc: block.doc, from, to, lines, at });
      edits.push({ target: target.path, targetLine: at.line, doc: block.doc, docLine: from + 1, removed: to - from, added: lines.length });
    }
  }
  edited.sort();
  if (problems.length > 0) return refused(problems);
  // With no edit to write into the book (at most tangle's own comments were re-indented), the
  // book is tangled again as it is: each edited file must still be what it gives.
  const documents = new Map<string, string>();
  for (const doc of [...new Set(docEdits.map((e) => e.doc))].sort()) {
    const lines = [...linesOfDoc(doc)];
    const mine = docEdits.filter((e) => e.doc === doc).sort((a, b) => b.from - a.from || b.to - a.to);
    // Applied from the end of the document, so each edit's lines are still where it found them.
    for (const [k, earlier] of mine.entries()) {
      const later = mine[k - 1];
      if (later !== undefined && earlier.to > later.from) {
        return refused([error({ ...later.at, column: 1 }, "stitch-overlap", `two edits land on the same lines of ${doc} (${earlier.at.file}:${earlier.at.line} and ${later.at.file}:${later.at.line})`, hint.notReproduced)]);
      }
      lines.splice(earlier.from, earlier.to - earlier.from, ...earlier.lines);
    }
    documents.set(doc, lines.join("\n"));
  }

  const stitched = input.documents.map((d) => ({ path: d.path, text: documents.get(d.path) ?? d.text }));
  const after = tangle(stitched);
  if (!after.ok) {
    return refused(
      after.diagnostics
        .filter((d) => d.severity === "error")
        .map((d) => error(d, "stitch-breaks-book", `the stitched Markdown would not tangle: ${d.message}`, "the edit puts Markdown syntax (a fence, a `<<name>>` line) into a block; make it in the Markdown by hand")),
    );
  }
  const mismatches = reproductionProblems(before, after, input.files, new Set(edited));
  if (mismatches.length > 0) return refused(mismatches);
  return { ok: true, problems: [], documents, edits, edited, result: after };
}

/**
 * The targets the stitched book does not tangle back to: an edited target must come out as the
 * file on disk, any other as it came out before, each apart from its inline source map line.
 */
function reproductionProblems(before: TangleResult, after: TangleResult, files: (path: string) => string | undefined, edited: ReadonlySet<string>): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const paths = new Set([...before.files.keys(), ...after.files.keys()]);
  for (const path of [...paths].sort()) {
    const expected = edited.has(path) ? files(path) : before.files.get(path);
    const produced = after.files.get(path);
    if (expected === undefined || produced === undefined) {
      problems.push(error({ file: path, line: 0, column: 0 }, "stitch-not-reproduced", `the stitched Markdown would ${produced === undefined ? "no longer write" : "newly write"} \`${path}\``, hint.notReproduced));
      continue;
    }
    const target = after.targets.find((t) => t.path === path);
    if (target === undefined) throw new Error(`stitch: the tangle result has a file \`${path}\` but no target for it`);
    const want = comparable(expected, target);
    const got = comparable(produced, target);
    if (want.length === got.length && want.every((line, i) => line === got[i])) continue;
    let i = 0;
    while (i < want.length && want[i] === got[i]) i++;
    problems.push(
      error(
        { file: path, line: i + 1, column: 1 },
        "stitch-not-reproduced",
        `tangling the stitched Markdown would not give this file back: line ${i + 1} would read \`${(got[i] ?? "(end of file)").trim()}\` instead of \`${(want[i] ?? "(end of file)").trim()}\``,
        hint.notReproduced,
      ),
    );
  }
  return problems;
}
