/**
 * HTML text helpers for the docs site: escaping and relative links. Pure.
 */
import { posix } from "node:path";

/** Escapes text for an HTML text node or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;"));
}

/** The link from the page at site path `from` to the site path `to` (`chapters/a.html#x`). */
export function relativeHref(from: string, to: string): string {
  const [path = "", hash] = to.split("#", 2);
  const base = posix.dirname(from);
  const rel = path === from ? "" : posix.relative(base, path) || posix.basename(path);
  return hash === undefined ? rel : `${rel}#${hash}`;
}

/** Site path of a chapter page for a document path: `literate/loop.md` → `chapters/loop.html`. */
export function chapterPath(doc: string): string {
  return `chapters/${doc.replace(/^literate\//, "").replace(/\.md$/, "")}.html`;
}

/** Site path of a source page: `generated/loop.ts` → `source/generated/loop.ts.html`. */
export function sourcePath(file: string): string {
  return `source/${file}.html`;
}

/** The anchor id of a block on its chapter page. */
export function blockAnchor(index: number): string {
  return `block-${index}`;
}

/** The anchor id of a line on a source page. */
export function lineAnchor(line: number): string {
  return `L${line}`;
}
