/**
 * Finding fenced code blocks in Markdown, two ways that must agree.
 *
 * `scanWithRemark` (in `remark.ts`) is the reference: unified + remark-parse (+ front matter, + GFM) decide what
 * counts as a block, wherever it sits (lists, block quotes). It also reports, for each block,
 * whether prose (a heading or a non-empty paragraph) stands between it and the previous block.
 *
 * `scanFast` is a line scanner for the common case: fences at column 1 in a document without
 * block quotes, HTML blocks or indented fences. Whenever a document holds anything it cannot
 * decide exactly, it returns `undefined` and the caller falls back to remark. A differential
 * test over generated documents holds the two equal wherever `scanFast` answers.
 */

/** A fenced code block as found in the Markdown text. */
export interface RawBlock {
  /** First word of the info string, `""` when there is none. */
  readonly lang: string;
  /** The rest of the info string, trimmed, `""` when there is none. */
  readonly meta: string;
  /** The code, lines joined by `\n`, without the fences. */
  readonly value: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** 1-based column of the opening fence's first character. */
  readonly column: number;
  /** False when the document ended before a closing fence. */
  readonly closed: boolean;
  /** True when a heading or non-empty paragraph stands between the previous block and this one. Only remark computes it. */
  readonly proseBefore?: boolean;
  /** The text of the headings and paragraphs between the previous block and this one, one per line, markup stripped. Only remark computes it. */
  readonly prose?: string;
}

/** YAML front matter: its text and the 1-based line its first content line is on. */
export interface RawFrontMatter {
  readonly value: string;
  readonly line: number;
}

/** What either scanner finds in one document. */
export interface ScanResult {
  readonly frontMatter: RawFrontMatter | undefined;
  readonly blocks: readonly RawBlock[];
}

const fenceCloser = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** True when `line` is a closing fence for a block opened with `fence` (same character, at least as long). */
export function closesFence(line: string, fence: string): boolean {
  const m = fenceCloser.exec(line);
  return m !== null && m[1] !== undefined && m[1][0] === fence[0] && m[1].length >= fence.length;
}

/** The text without a leading UTF-8 byte-order mark (U+FEFF), which editors show nowhere and count in no column. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const frontMatterFence = /^---[ \t]*$/;
/**
 * Lines that could make a fence mean something else: block quotes, HTML, and any fence that
 * does not stand at column 1 — indented, or behind container syntax (list markers, `>`,
 * footnote labels such as `[^1]:`), in any nesting (`- > \`\`\`ts`).
 */
const unsure = /^(?: {0,3}[<>]|(?:[ \t>*+\-.)0-9]|\[\^[^\]]*\]:)+(?:`{3}|~{3}))/;
/**
 * Splits an info string as remark does: the language is the first run of characters other
 * than space and tab, the meta is the rest after the spaces and tabs that follow it, trimmed.
 */
function splitInfo(info: string): { lang: string; meta: string } {
  let a = 0;
  while (a < info.length && (info.charCodeAt(a) === 32 || info.charCodeAt(a) === 9)) a++;
  let b = a;
  while (b < info.length && info.charCodeAt(b) !== 32 && info.charCodeAt(b) !== 9) b++;
  // The common fence (```` ```ts ````) has nothing after its language.
  if (a === 0 && b === info.length) return { lang: info, meta: "" };
  let c = b;
  while (c < info.length && (info.charCodeAt(c) === 32 || info.charCodeAt(c) === 9)) c++;
  return { lang: info.slice(a, b), meta: info.slice(c).trim() };
}

/** True when a line starting with this character could match `unsure` (its first character class). */
function mayBeUnsure(code: number): boolean {
  // ' ' '\t' '<' '>' '*' '+' '-' '.' ')' '[' and digits: everything `unsure` can start with.
  return code === 32 || code === 9 || code === 60 || code === 62 || code === 42 || code === 43 || code === 45 || code === 46 || code === 41 || code === 91 || (code >= 48 && code <= 57);
}

/**
 * The fast scanner. Returns `undefined` ("not sure, ask remark") for any document holding a
 * block quote, an HTML block, a fence that is indented or stands behind container syntax
 * (list item, block quote, footnote definition), a lone `\r`, a NUL, or an info string with
 * escapes or entities. A leading byte-order mark is skipped, as remark skips it. Values keep
 * the document's line endings, as remark's do.
 *
 * It walks line starts with `indexOf` and builds a line's string only when its first characters
 * could matter (a fence, a front matter fence, or a character `unsure` can start with); block
 * values are single slices of the text. Lines are the text split at `\n` (a final empty one
 * dropped) with one trailing `\r` removed.
 */
export function scanFast(source: string): ScanResult | undefined {
  const text = withoutBom(source);
  if (text.includes("\0")) return undefined;
  for (let cr = text.indexOf("\r"); cr !== -1; cr = text.indexOf("\r", cr + 2)) {
    if (text.charCodeAt(cr + 1) !== 10) return undefined;
  }
  const n = text.length;
  /** End of the line starting at `pos` (the `\n` or the text's end), before any `\r`. */
  const rawEnd = (pos: number): number => {
    const nl = text.indexOf("\n", pos);
    return nl === -1 ? n : nl;
  };
  const lineText = (pos: number, end: number): string => (end > pos && text.charCodeAt(end - 1) === 13 ? text.slice(pos, end - 1) : text.slice(pos, end));
  /** Lines [from, to) joined by `\n`, as their raw text, without a final `\r`. */
  const join = (from: number, toStart: number): string => {
    const value = text.slice(from, toStart - 1);
    return value.charCodeAt(value.length - 1) === 13 ? value.slice(0, -1) : value;
  };
  let pos = 0;
  let lineNo = 0;
  let frontMatter: RawFrontMatter | undefined;
  if (n > 0 && text.charCodeAt(0) === 45 && frontMatterFence.test(lineText(0, rawEnd(0)))) {
    let p = rawEnd(0) + 1;
    let j = 1;
    while (p < n) {
      const end = rawEnd(p);
      if (text.charCodeAt(p) === 45 && frontMatterFence.test(lineText(p, end))) {
        frontMatter = { value: join(rawEnd(0) + 1, p), line: 2 };
        pos = end + 1;
        lineNo = j + 1;
        break;
      }
      p = end + 1;
      j++;
    }
  }
  const blocks: RawBlock[] = [];
  while (pos < n) {
    const end = rawEnd(pos);
    const first = text.charCodeAt(pos);
    if (mayBeUnsure(first) && unsure.test(lineText(pos, end))) return undefined;
    // An opening fence: three or more of one fence character, then the info string (read without a regular expression; the info string keeps any U+2028, as remark does).
    let q = pos;
    while ((first === 96 || first === 126) && q < end && text.charCodeAt(q) === first) q++;
    const info = q - pos >= 3 ? lineText(q, end) : undefined;
    if (info === undefined || (first === 96 && info.includes("`"))) {
      pos = end + 1;
      lineNo++;
      continue;
    }
    if (info.includes("\\") || info.includes("&")) return undefined;
    const fence = text.slice(pos, q);
    const { lang, meta } = splitInfo(info);
    const start = lineNo;
    const valueStart = end + 1;
    let p = valueStart;
    let closed = false;
    lineNo++;
    while (p < n) {
      const e = rawEnd(p);
      let i = p;
      while (i < p + 3 && text.charCodeAt(i) === 32) i++;
      if (text.charCodeAt(i) === first && closesFence(lineText(p, e), fence)) {
        closed = true;
        break;
      }
      p = e + 1;
      lineNo++;
    }
    blocks.push({ lang, meta, value: join(valueStart, p), line: start + 1, column: 1, closed });
    // Past the closing fence, or at the end of the text.
    pos = closed ? rawEnd(p) + 1 : n;
    lineNo++;
  }
  return { frontMatter, blocks };
}
