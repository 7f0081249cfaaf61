/**
 * Finding fenced code blocks in Markdown, two ways that must agree.
 *
 * `scanWithRemark` is the reference: unified + remark-parse (+ front matter, + GFM) decide what
 * counts as a block, wherever it sits (lists, block quotes). It also reports, for each block,
 * whether prose (a heading or a non-empty paragraph) stands between it and the previous block.
 *
 * `scanFast` is a line scanner for the common case: fences at column 1 in a document without
 * block quotes, HTML blocks or indented fences. Whenever a document holds anything it cannot
 * decide exactly, it returns `undefined` and the caller falls back to remark. A differential
 * test over generated documents holds the two equal wherever `scanFast` answers.
 */
import type { Root, RootContent, Code } from "mdast";
import { toString } from "mdast-util-to-string";
import remarkFrontmatter from "remark-frontmatter";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";

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

const remarkProcessor = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]).use(remarkGfm);

/** Parses Markdown into mdast with the project's dialect (CommonMark + GFM + YAML front matter). */
export function parseMarkdown(text: string): Root {
  return remarkProcessor.parse(text);
}

const fenceCloser = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** True when `line` is a closing fence for a block opened with `fence` (same character, at least as long). */
function closesFence(line: string, fence: string): boolean {
  const m = fenceCloser.exec(line);
  return m !== null && m[1] !== undefined && m[1][0] === fence[0] && m[1].length >= fence.length;
}

/**
 * The reference scanner: every fenced `code` node remark finds, in document order, with whether
 * prose preceded it. Indented code blocks are skipped: they carry no attributes and have no fence. Closedness is read back from the source line the node ends on.
 */
export function scanWithRemark(text: string, tree: Root = parseMarkdown(text)): ScanResult {
  const lines = text.split(/\r\n|\r|\n/);
  const blocks: RawBlock[] = [];
  let frontMatter: RawFrontMatter | undefined;
  let sawProse = false;
  const visit = (node: RootContent): void => {
    if (node.type === "yaml") {
      frontMatter = { value: node.value, line: (node.position?.start.line ?? 1) + 1 };
      return;
    }
    if (node.type === "heading") {
      sawProse = true;
      return;
    }
    if (node.type === "paragraph") {
      if (toString(node).trim() !== "") sawProse = true;
      return;
    }
    if (node.type === "code") {
      // mdast calls indented code `code` too; it has no info string, so it is not a block here.
      if (!isFenced(node, text)) return;
      blocks.push(rawBlockFromNode(node, lines, sawProse));
      sawProse = false;
      return;
    }
    if ("children" in node) for (const child of node.children) visit(child);
  };
  for (const child of tree.children) visit(child);
  return { frontMatter, blocks };
}

/** True for a fenced code node; false for an indented code block (which starts with its indentation). */
function isFenced(node: Code, text: string): boolean {
  const offset = node.position?.start.offset;
  return offset === undefined || text.startsWith("```", offset) || text.startsWith("~~~", offset);
}

function rawBlockFromNode(node: Code, lines: readonly string[], proseBefore: boolean): RawBlock {
  const start = node.position?.start ?? { line: 1, column: 1 };
  const endLine = node.position?.end.line ?? start.line;
  const opener = lines[start.line - 1] ?? "";
  const fence = /(`{3,}|~{3,})/.exec(opener.slice(start.column - 1))?.[1] ?? "```";
  const lastLine = lines[endLine - 1] ?? "";
  const closed = endLine > start.line && closesFence(stripContainerPrefix(lastLine, start.column), fence);
  return {
    lang: node.lang ?? "",
    meta: (node.meta ?? "").trim(),
    value: node.value,
    line: start.line,
    column: start.column,
    closed,
    proseBefore,
  };
}

/** Drops what stands before the block's column on its closing line (list indentation, `> `). */
function stripContainerPrefix(line: string, column: number): string {
  const prefix = line.slice(0, column - 1);
  return /^[ \t>]*$/.test(prefix) ? line.slice(column - 1) : line;
}

// `[^]` rather than `.`: remark ends lines only at \r and \n, so U+2028 belongs to the info string.
const fenceOpener = /^(`{3,}|~{3,})([^]*)$/;
const frontMatterFence = /^---[ \t]*$/;
/**
 * Lines that could make a fence mean something else: block quotes, HTML, and any fence that
 * does not stand at column 1 — indented, or behind container syntax (list markers, `>`,
 * footnote labels such as `[^1]:`), in any nesting (`- > \`\`\`ts`).
 */
const unsure = /^(?: {0,3}[<>]|(?:[ \t>*+\-.)0-9]|\[\^[^\]]*\]:)+(?:`{3}|~{3}))/;
/** Info string: remark splits language from meta at the first space or tab, and at nothing else. */
const infoSplit = /^[ \t]*([^ \t]*)[ \t]*([^]*)$/;

/**
 * The fast scanner. Returns `undefined` ("not sure, ask remark") for any document holding a
 * block quote, an HTML block, a fence that is indented or stands behind container syntax
 * (list item, block quote, footnote definition), a lone `\r`, a NUL, a byte-order mark, or an
 * info string with escapes or entities. Values keep the document's line endings, as remark's do.
 */
export function scanFast(text: string): ScanResult | undefined {
  if (/\r(?!\n)|\0/.test(text) || text.startsWith("\uFEFF")) return undefined;
  // Values keep the document's own line endings, as remark's do: split at \n, remember the \r.
  const rawLines = text.split("\n");
  if (rawLines.length > 0 && rawLines[rawLines.length - 1] === "") rawLines.pop();
  const lines = rawLines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  const join = (from: number, to: number): string => rawLines.slice(from, to).join("\n").replace(/\r$/, "");
  let index = 0;
  let frontMatter: RawFrontMatter | undefined;
  if (lines.length > 0 && frontMatterFence.test(lines[0] ?? "")) {
    for (let j = 1; j < lines.length; j++) {
      if (frontMatterFence.test(lines[j] ?? "")) {
        frontMatter = { value: join(1, j), line: 2 };
        index = j + 1;
        break;
      }
    }
  }
  const blocks: RawBlock[] = [];
  while (index < lines.length) {
    const line = lines[index] ?? "";
    if (unsure.test(line)) return undefined;
    const open = fenceOpener.exec(line);
    if (open === null) {
      index++;
      continue;
    }
    const fence = open[1] ?? "```";
    const info = open[2] ?? "";
    if (fence[0] === "`" && info.includes("`")) {
      index++;
      continue;
    }
    if (info.includes("\\") || info.includes("&")) return undefined;
    const split = infoSplit.exec(info);
    const lang = split?.[1] ?? "";
    const meta = (split?.[2] ?? "").trim();
    const start = index;
    let end = index + 1;
    while (end < lines.length && !closesFence(lines[end] ?? "", fence)) end++;
    const closed = end < lines.length;
    blocks.push({ lang, meta, value: join(start + 1, end), line: start + 1, column: 1, closed });
    index = end + 1;
  }
  return { frontMatter, blocks };
}

/**
 * The scanner tangle uses: the fast path when it is sure, remark otherwise. The second field
 * says which one answered, for tests and benchmarks.
 */
export function scanBlocks(text: string): { result: ScanResult; by: "fast" | "remark" } {
  const fast = scanFast(text);
  if (fast !== undefined) return { result: fast, by: "fast" };
  return { result: scanWithRemark(text), by: "remark" };
}
