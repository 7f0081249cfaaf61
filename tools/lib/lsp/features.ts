/**
 * The language features inside a block, each one TypeScript's language service asked at the
 * block's place in its tangled module, its answer mapped back into the book: hover, completion,
 * signature help, definitions, references, the chapter's outline, and rename. A target in a
 * tangled module lands in the `.md` block it came from; a target anywhere else (`node_modules`,
 * the toolchain's own code) is passed through as that file's own place. Pure over the `Book`.
 */
import ts from "typescript";
import type { Book, BookRange, Place } from "./book.ts";
import { pushAt } from "../core/maps.ts";

/** A 0-based position. */
type Position = ts.LineAndCharacter;

/** One completion, with what `resolve` needs to find its details again. */
export interface CompletionAnswer {
  readonly label: string;
  readonly kind: string;
  readonly sortText: string;
  readonly insertText?: string;
  readonly data: { readonly doc: string; readonly line: number; readonly character: number; readonly name: string; readonly source?: string };
}

/** One entry of the chapter's outline. */
export interface OutlineEntry {
  readonly name: string;
  readonly kind: string;
  readonly range: BookRange;
  readonly selectionRange: BookRange;
  readonly children: readonly OutlineEntry[];
}

/** Why a rename cannot be made, said to the author. */
export class RenameRefused extends Error {}

/** Text of TypeScript's display parts. */
function plain(parts: readonly ts.SymbolDisplayPart[] | undefined): string {
  return (parts ?? []).map((p) => p.text).join("");
}

/** The JSDoc tags of an answer, as Markdown lines. */
function tagLines(tags: readonly ts.JSDocTagInfo[] | undefined): string[] {
  return (tags ?? []).map((tag) => `*@${tag.name}*${tag.text === undefined ? "" : ` ${plain(tag.text)}`}`);
}

/** The hover at a Markdown position: the type and documentation TypeScript shows there (Markdown), and the range it covers. */
export function hover(book: Book, doc: string, position: Position): { markdown: string; range?: BookRange } | undefined {
  const at = book.toService(doc, position.line, position.character);
  if (at === undefined) return undefined;
  const info = book.service.getQuickInfoAtPosition(at.fileName, at.offset);
  if (info === undefined) return undefined;
  const documentation = plain(info.documentation);
  const markdown = ["```ts", plain(info.displayParts), "```", ...(documentation === "" ? [] : ["", documentation]), ...tagLines(info.tags).map((t) => `\n${t}`)].join("\n");
  const located = book.locate(at.fileName, info.textSpan.start, info.textSpan.length);
  return located?.kind === "book" ? { markdown, range: located.range } : { markdown };
}

/** The completions at a Markdown position. */
export function completions(book: Book, doc: string, position: Position): CompletionAnswer[] {
  const at = book.toService(doc, position.line, position.character);
  if (at === undefined) return [];
  const found = book.service.getCompletionsAtPosition(at.fileName, at.offset, { includeCompletionsForModuleExports: false, includeCompletionsWithInsertText: true });
  return (found?.entries ?? []).map((entry) => ({
    label: entry.name,
    kind: entry.kind,
    sortText: entry.sortText,
    ...(entry.insertText === undefined ? {} : { insertText: entry.insertText }),
    data: { doc, line: position.line, character: position.character, name: entry.name, ...(entry.source === undefined ? {} : { source: entry.source }) },
  }));
}

/** The details of a completion (its type and documentation), for `completionItem/resolve`. */
export function completionDetails(book: Book, data: CompletionAnswer["data"]): { detail: string; documentation: string } | undefined {
  const at = book.toService(data.doc, data.line, data.character);
  if (at === undefined) return undefined;
  const details = book.service.getCompletionEntryDetails(at.fileName, at.offset, data.name, undefined, data.source, undefined, undefined);
  if (details === undefined) return undefined;
  return { detail: plain(details.displayParts), documentation: [plain(details.documentation), ...tagLines(details.tags)].filter((s) => s !== "").join("\n\n") };
}

/** Signature help at a Markdown position, in the protocol's shape. */
export function signatureHelp(book: Book, doc: string, position: Position) {
  const at = book.toService(doc, position.line, position.character);
  if (at === undefined) return undefined;
  const help = book.service.getSignatureHelpItems(at.fileName, at.offset, undefined);
  if (help === undefined) return undefined;
  return {
    signatures: help.items.map((item) => {
      const parameters = item.parameters.map((p) => ({ label: plain(p.displayParts), documentation: plain(p.documentation) }));
      const label = `${plain(item.prefixDisplayParts)}${parameters.map((p) => p.label).join(plain(item.separatorDisplayParts))}${plain(item.suffixDisplayParts)}`;
      return { label, documentation: plain(item.documentation), parameters };
    }),
    activeSignature: help.selectedItemIndex,
    activeParameter: help.argumentIndex,
  };
}

/** Where the name at a Markdown position is defined, or every reference to it, its definition included (none when it is not code tangle wrote). */
export function placesAt(book: Book, doc: string, position: Position, asked: "definitions" | "references"): Place[] {
  const at = book.toService(doc, position.line, position.character);
  if (at === undefined) return [];
  return places(book, (asked === "definitions" ? book.service.getDefinitionAtPosition(at.fileName, at.offset) : book.service.getReferencesAtPosition(at.fileName, at.offset)) ?? []);
}

/** The places of the service's spans, mapped (a span on a line tangle wrote from nothing is left out), each once. */
export function places(book: Book, spans: readonly { readonly fileName: string; readonly textSpan: ts.TextSpan }[]): Place[] {
  const seen = new Set<string>();
  return spans.flatMap((span) => {
    const place = book.locate(span.fileName, span.textSpan.start, span.textSpan.length);
    if (place === undefined) return [];
    const key = placeKey(place);
    if (seen.has(key)) return [];
    seen.add(key);
    return [place];
  });
}

function placeKey(place: Place): string {
  const where = place.kind === "book" ? place.range.doc : place.fileName;
  return `${where}:${place.range.start.line}:${place.range.start.character}:${place.range.end.line}:${place.range.end.character}`;
}

/** The chapter's definitions as an outline: the top-level declarations of its blocks, with their members. */
export function outline(book: Book, doc: string): OutlineEntry[] {
  book.widen([doc]);
  const entries = book.targetsOf([doc]).flatMap((target) => {
    const fileName = book.host.absolute(target);
    return (book.service.getNavigationTree(fileName).childItems ?? []).flatMap((item) => outlineEntry(book, doc, fileName, item) ?? []);
  });
  return entries.sort((a, b) => a.range.start.line - b.range.start.line);
}

function outlineEntry(book: Book, doc: string, fileName: string, item: ts.NavigationTree): OutlineEntry | undefined {
  const span = item.spans[0];
  if (span === undefined) return undefined;
  const range = book.locate(fileName, span.start, span.length);
  if (range?.kind !== "book" || range.range.doc !== doc) return undefined;
  const nameSpan = item.nameSpan === undefined ? undefined : book.locate(fileName, item.nameSpan.start, item.nameSpan.length);
  const selectionRange = nameSpan?.kind === "book" ? nameSpan.range : range.range;
  const children = (item.childItems ?? []).flatMap((child) => outlineEntry(book, doc, fileName, child) ?? []);
  return { name: item.text, kind: item.kind, range: range.range, selectionRange, children };
}

/** Whether the name at a Markdown position can be renamed: its range, and where the service reads it (`at`); throws `RenameRefused` with TypeScript's reason when not. */
export function prepareRename(book: Book, doc: string, position: Position): { range: BookRange; placeholder: string; at: { fileName: string; offset: number } } {
  const at = book.toService(doc, position.line, position.character);
  if (at === undefined) throw new RenameRefused("nothing to rename here: the position is not in code tangle writes");
  const info = book.service.getRenameInfo(at.fileName, at.offset, { allowRenameOfImportPath: false });
  if (!info.canRename) throw new RenameRefused(info.localizedErrorMessage);
  const place = book.locate(at.fileName, info.triggerSpan.start, info.triggerSpan.length);
  if (place?.kind !== "book") throw new RenameRefused("the name is not in a block of the book");
  return { range: place.range, placeholder: info.displayName, at };
}

/**
 * A rename as edits to every `.md` block that holds the name (a block spliced into two places is
 * edited once). Refused, with the place named, when any occurrence stands on a line that came
 * from no block (the generated header) or in a file the book does not tangle.
 */
export function rename(book: Book, doc: string, position: Position, newName: string): Map<string, { range: BookRange; newText: string }[]> {
  const { at } = prepareRename(book, doc, position);
  const locations = book.service.findRenameLocations(at.fileName, at.offset, false, false, { providePrefixAndSuffixTextForRename: false }) ?? [];
  const edits = new Map<string, { range: BookRange; newText: string }[]>();
  const seen = new Set<string>();
  for (const location of locations) {
    const place = book.locate(location.fileName, location.textSpan.start, location.textSpan.length);
    if (place?.kind !== "book") {
      const where = book.positionIn(location.fileName, location.textSpan.start);
      const file = book.host.tangledPath(location.fileName) ?? location.fileName;
      throw new RenameRefused(`cannot rename: an occurrence at ${file}:${(where?.line ?? 0) + 1} ${place === undefined ? "is on a line tangle wrote from no block of the book" : "is in a file the book does not tangle"}`);
    }
    const key = placeKey(place);
    if (seen.has(key)) continue;
    seen.add(key);
    pushAt(edits, place.range.doc, { range: place.range, newText: `${location.prefixText ?? ""}${newName}${location.suffixText ?? ""}` });
  }
  return edits;
}
