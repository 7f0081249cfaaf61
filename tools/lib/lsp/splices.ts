/**
 * `<<name>>` in the editor, read from the splice graph tangle already computed
 * (`TangleResult.references`): go to the blocks a reference splices, find every line that
 * splices a name, and complete block names after `<<`. No `<<name>>` line is parsed again here,
 * except the one under the cursor while it is being typed. Pure.
 */
import type { BookRange } from "./book.ts";
import type { BookMap } from "./book-map.ts";

/** A `<<name>>` line being typed: what precedes the cursor. */
const typing = /^[ \t]*<<([A-Za-z_][\w.-]*)?$/;

/** The block name a Markdown position stands on: a `<<name>>` line, or the fence of a block named `#name`. */
export function spliceNameAt(map: BookMap, doc: string, line: number): string | undefined {
  const { result } = map;
  const index = map.blockAt(doc, line);
  const block = index === undefined ? undefined : result.blocks[index];
  if (index === undefined || block === undefined) return undefined;
  if (line + 1 === block.line) return block.attrs.name;
  return result.references[index]?.find((ref) => block.line + ref.line === line)?.name;
}

/** The fences of the blocks a name splices, in document order. */
export function spliceDefinitions({ result }: BookMap, name: string): BookRange[] {
  return result.blocks.flatMap((block) => (block.attrs.name === name && !block.attrs.noTangle ? [{ doc: block.doc, start: { line: block.line - 1, character: block.column - 1 }, end: { line: block.line - 1, character: block.column + 2 } }] : []));
}

/** Every `<<name>>` line that splices `name`. */
export function spliceReferences({ result }: BookMap, name: string): BookRange[] {
  return result.blocks.flatMap((block, index) =>
    (result.references[index] ?? []).flatMap((ref) => {
      if (ref.name !== name) return [];
      const line = block.line + ref.line;
      const text = block.lines[ref.line] ?? "";
      const start = text.indexOf("<<") + (block.columnShift[ref.line] ?? 0);
      return [{ doc: block.doc, start: { line, character: start }, end: { line, character: start + name.length + 4 } }];
    }),
  );
}

/**
 * The block names to offer at a position whose line, up to the cursor, is `<<` and part of a
 * name, with the range the completion replaces (the typed part of the name, and a `>>` after the
 * cursor); `undefined` when the cursor is not after `<<` in a block.
 */
export function spliceCompletions(map: BookMap, doc: string, line: number, character: number, lineText: string): { names: string[]; replace: BookRange } | undefined {
  const { result } = map;
  const index = map.blockAt(doc, line);
  const block = index === undefined ? undefined : result.blocks[index];
  if (block === undefined || line + 1 <= block.line) return undefined;
  const typed = typing.exec(lineText.slice(0, character));
  if (typed === null) return undefined;
  const start = character - (typed[1] ?? "").length;
  const rest = /^[\w.-]*(>>)?/.exec(lineText.slice(character))?.[0] ?? "";
  const names = [...new Set(result.blocks.flatMap((b) => (b.attrs.name !== undefined && !b.attrs.noTangle ? [b.attrs.name] : [])))].sort();
  return { names, replace: { doc, start: { line, character: start }, end: { line, character: character + rest.length } } };
}
