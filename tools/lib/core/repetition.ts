/**
 * Doc comments that state no contract. The prose before a block says why the code exists; the
 * doc comment on the definition gives its contract (inputs, outputs, errors). A doc comment
 * states the contract when at least one of its sentences says something the prose does not:
 * names a content word (lower-cased, punctuation stripped, a small list of stop words removed,
 * code identifiers kept whole) that the prose between the previous block and this one never
 * uses. One whose every sentence is made of the prose's own words is reported.
 *
 * Why not a share of repeated words, as this check was first: a share has a line, and prose can
 * be tuned to stop just under it while the comment still says nothing new. Here there is no
 * dial: a sentence either brings a word the prose lacks (a parameter, a return value, an error,
 * a bound: the contract's own terms, which a why-paragraph has no reason to use) or it does not.
 * The share is still measured, for the reader of a warning. Pure.
 */
import ts from "typescript";
import { warning, type Diagnostic } from "./diagnostics.ts";
import type { TangleResult } from "./tangle.ts";
import { pushAt } from "./maps.ts";

/** One doc comment measured against its prose. */
export interface Repetition {
  /** Global index of the block the definition is in. */
  readonly block: number;
  /** Where the doc comment starts, in the Markdown. */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** Distinct content words of the doc comment. */
  readonly words: number;
  /** Share of them that occur in the prose, 0 to 1. */
  readonly share: number;
  /** Its sentences with a content word. */
  readonly sentences: number;
  /** Of those, the sentences with a content word the prose does not use: what the comment adds. */
  readonly adding: number;
}

const stopWords: ReadonlySet<string> = new Set(
  (
    "a an the and or but nor not no so if then else when while of to in on at by for from with without into onto over under " +
    "as is are was were be been being it its it's this that these those there here which who whom whose what how why " +
    "do does did done has have had can could may might must shall should will would than too very just only also " +
    "each every any all some one its their them they we us our you your he she his her i me my up out off about"
  ).split(" "),
);

/** The distinct content words of a text: lower-cased, split at anything but letters, digits, `_` and `$`, stop words and single characters removed. */
export function contentWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}_$]+/gu)) {
    const word = match[0];
    if (word.length > 1 && !stopWords.has(word) && !/^\d+$/.test(word)) words.add(word);
  }
  return words;
}

/** The text of a `/** … *\/` comment: without its delimiters, the leading `*` of each line, and `@tag` names. */
export function docCommentText(comment: string): string {
  return comment
    .replace(/^\/\*\*/, "")
    .replace(/\*\/$/, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\*/, "").replace(/(^|\s)@[A-Za-z]+/g, "$1").trim())
    .join("\n")
    .trim();
}

/**
 * Measures every doc comment standing directly on a definition (a top-level declaration, or a
 * class or interface member written in a block of its own) against the prose before its block.
 * `judged` says which blocks to measure (definition blocks with prose); each block is measured once.
 */
export function measureRepetition(result: TangleResult, sources: ReadonlyMap<string, ts.SourceFile>, judged: (index: number) => boolean): Repetition[] {
  const measured: Repetition[] = [];
  const seen = new Set<number>();
  for (const target of result.targets) {
    const source = sources.get(target.path);
    if (source === undefined) continue;
    const text = source.getFullText();
    const blockOf = (node: ts.Node): number => target.lineBlock[source.getLineAndCharacterOfPosition(node.getStart(source)).line] ?? -1;
    const measure = (node: ts.Node): void => {
      const block = blockOf(node);
      const prose = result.blocks[block]?.prose;
      if (block < 0 || seen.has(block) || !judged(block) || prose === undefined) return;
      const comment = (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).filter((c) => text.startsWith("/**", c.pos) && !text.startsWith("/**/", c.pos)).at(-1);
      if (comment === undefined) return;
      const at = source.getLineAndCharacterOfPosition(comment.pos);
      // A comment in the block before (a file header) is not this definition's.
      if ((target.lineBlock[at.line] ?? -1) !== block) return;
      seen.add(block);
      const commentText = docCommentText(text.slice(comment.pos, comment.end));
      const words = contentWords(commentText);
      const said = contentWords(prose);
      const repeated = [...words].filter((w) => said.has(w)).length;
      // Sentences end after `.`, `!` or `?` before a space, and at line breaks (a tag's line is its own).
      const sentences = commentText.split(/(?<=[.!?])\s+|\n+/).map(contentWords).filter((w) => w.size > 0);
      const adding = sentences.filter((w) => [...w].some((word) => !said.has(word))).length;
      const doc = result.blocks[block]?.doc ?? target.path;
      measured.push({ block, file: doc, line: target.lineSource[at.line] ?? 0, column: at.character + 1 + (target.lineShift[at.line] ?? 0), words: words.size, share: words.size === 0 ? 0 : repeated / words.size, sentences: sentences.length, adding });
    };
    for (const statement of source.statements) {
      measure(statement);
      if (!ts.isClassDeclaration(statement) && !ts.isInterfaceDeclaration(statement)) continue;
      // A member is a definition of its own only in a block of its own (a `#name` method block).
      for (const member of statement.members) if (blockOf(member) !== blockOf(statement)) measure(member);
    }
  }
  return measured;
}

/** The warnings for the measured doc comments none of whose sentences says what the prose does not, keyed by block. */
export function repetitionWarnings(measured: readonly Repetition[]): Map<number, Diagnostic[]> {
  const warnings = new Map<number, Diagnostic[]>();
  for (const m of measured) {
    if (m.sentences === 0 || m.adding > 0) continue;
    pushAt(
      warnings,
      m.block,
      warning(
        { file: m.file, line: m.line, column: m.column },
        "doc-comment",
        `the doc comment states no contract: each of its sentences is made of the prose's words (it repeats ${Math.round(m.share * 100)}% of them)`,
        "prose says why; the doc comment gives the contract (inputs, outputs, errors) — add a sentence saying what a caller needs and the prose does not",
      ),
    );
  }
  return warnings;
}
