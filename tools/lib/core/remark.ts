/**
 * The reference scanner, `scanWithRemark`: unified + remark-parse (+ front matter, + GFM) decide
 * what counts as a fenced code block, wherever it sits. Apart from `markdown.ts` because loading
 * this stack costs more than a whole no-change tangle: the compiled CLIs load it only when the
 * fast scanner defers to it (see `tools/build.js`), and `markdown.ts` re-exports it for everyone else.
 */
import type { RootContent, Code } from "mdast";
import { toString } from "mdast-util-to-string";
import remarkFrontmatter from "remark-frontmatter";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { closesFence, withoutBom, type RawBlock, type RawFrontMatter, type ScanResult } from "./markdown.ts";

/** Parses Markdown into mdast with the project's dialect (CommonMark + GFM + YAML front matter). */
const remarkProcessor = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]).use(remarkGfm);

/**
 * The reference scanner: every fenced `code` node remark finds, in document order, with whether
 * prose preceded it. Closedness is read back from the source line the node ends on. Indented
 * code blocks are skipped: they have no fence and no info string, so nothing to tangle.
 */
export function scanWithRemark(source: string): ScanResult {
  // A byte-order mark is no character of the document: remark's offsets skip it, so scan without it.
  const text = withoutBom(source);
  const tree = remarkProcessor.parse(text);
  const lines = text.split(/\r\n|\r|\n/);
  const blocks: RawBlock[] = [];
  let frontMatter: RawFrontMatter | undefined;
  let sawProse = false;
  let prose: string[] = [];
  const visit = (node: RootContent): void => {
    if (node.type === "yaml") {
      frontMatter = { value: node.value, line: (node.position?.start.line ?? 1) + 1 };
      return;
    }
    if (node.type === "heading" || node.type === "paragraph") {
      const said = toString(node).trim();
      if (node.type === "heading" || said !== "") sawProse = true;
      if (said !== "") prose.push(said);
      return;
    }
    if (node.type === "code") {
      // mdast calls indented code `code` too; it has no info string, so it is not a block here.
      if (!isFenced(node, text)) return;
      const start = node.position?.start ?? { line: 1, column: 1 };
      const endLine = node.position?.end.line ?? start.line;
      const fence = /(`{3,}|~{3,})/.exec((lines[start.line - 1] ?? "").slice(start.column - 1))?.[1] ?? "```";
      const closed = endLine > start.line && closesFence(stripContainerPrefix(lines[endLine - 1] ?? "", start.column), fence);
      const found = { lang: node.lang ?? "", meta: (node.meta ?? "").trim(), value: node.value, line: start.line, column: start.column };
      blocks.push({ ...found, closed, proseBefore: sawProse, prose: prose.join("\n") });
      sawProse = false;
      prose = [];
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

/** Drops what stands before the block's column on its closing line (list indentation, `> `). */
function stripContainerPrefix(line: string, column: number): string {
  const prefix = line.slice(0, column - 1);
  return /^[ \t>]*$/.test(prefix) ? line.slice(column - 1) : line;
}
