/**
 * The docs model: tangle's blocks joined with verify's report, the cross-references, the tests
 * that ran each block and the API pages, keyed by global block index. Pure.
 */
import { byChapterOrder, scanBlocks, type LiterateBlock } from "../core/document.ts";
import { withoutBom } from "../core/markdown.ts";
import type { TangleResult, TangledTarget } from "../core/tangle.ts";
import type { VerifyReport } from "../commands/verify.ts";
import type { BlockReport, DocumentSummary } from "../rules/judge.ts";
import { blockAnchor, chapterPath } from "./html.ts";
import type { XrefResult } from "./xref.ts";
import { pushAt, valueAt } from "../core/maps.ts";

/** An identifier inside a block, in block coordinates. */
export interface BlockIdentifier {
  /** 0-based line within the block's code. */
  readonly line: number;
  /** 0-based column within that line. */
  readonly column: number;
  readonly length: number;
  /** Index into the cross-reference symbols. */
  readonly symbol: number;
  readonly isDefinition: boolean;
  /** The global index of the block that defines the symbol, when the project defines it. */
  readonly definedIn?: number;
}

/** One block as the site shows it. */
export interface BlockModel {
  /** Global block index (tangle order). */
  readonly global: number;
  readonly block: LiterateBlock;
  /** The site path of its chapter page with its anchor, e.g. `chapters/loop.html#block-3`. */
  readonly href: string;
  readonly report?: BlockReport;
  readonly identifiers: readonly BlockIdentifier[];
  /** Global indexes of the other blocks whose identifiers name something this block defines. */
  readonly usedBy: readonly number[];
  /** Names of the tests that executed this block, when per-test evidence exists. */
  readonly tests: readonly string[];
  /** The API page of the block's export, as a site path. */
  readonly apiHref?: string;
  /** Typedoc's complaints about what this block exports (undocumented, not exported). */
  readonly apiProblems: readonly string[];
  /** Global indexes of the blocks whose `<<name>>` lines splice this (named) block in. */
  readonly splicedInto: readonly number[];
  /** For each `<<name>>` line of the block (0-based line in the block), the blocks named so. */
  readonly chunkRefs: readonly { readonly line: number; readonly name: string; readonly blocks: readonly number[] }[];
}

/** One chapter. */
export interface ChapterModel {
  readonly doc: string;
  /** Site path of its page. */
  readonly path: string;
  readonly title: string;
  readonly description?: string;
  /** Global indexes of its blocks, in order. */
  readonly blocks: readonly number[];
  readonly summary?: DocumentSummary;
}

/** An entry of the definition index. */
export interface DefinitionEntry {
  /** The name, qualified by its class when the block is spliced into one (`Agent.constructor`). */
  readonly name: string;
  readonly block: number;
}

/** Everything the pages are rendered from. */
export interface DocsModel {
  readonly chapters: readonly ChapterModel[];
  readonly blocks: readonly BlockModel[];
  readonly definitions: readonly DefinitionEntry[];
  readonly xref: XrefResult;
  readonly report: VerifyReport;
  readonly targets: readonly TangledTarget[];
}

/** What the model is built from. */
export interface ModelInput {
  readonly tangle: TangleResult;
  readonly report: VerifyReport;
  readonly xref: XrefResult;
  /** Global block index → names of the tests that executed it. */
  readonly tests?: ReadonlyMap<number, readonly string[]>;
  /** The API reference: global block index → site path of its API page, and typedoc's validation messages with their blocks. */
  readonly api?: { readonly pages: ReadonlyMap<number, string>; readonly problems: readonly { readonly message: string; readonly block?: number }[] };
  /** The documents' texts by path, for the title of a chapter whose front matter has none (its first heading). */
  readonly texts?: ReadonlyMap<string, string>;
}

/** Where generated line `line` (0-based) and `character` of `target` fall in the blocks. */
function locateInBlock(target: TangledTarget, blocks: readonly LiterateBlock[], line: number, character: number): { block: number; line: number; column: number } | undefined {
  const global = target.lineBlock[line] ?? -1;
  const block = blocks[global];
  if (global < 0 || block === undefined) return undefined;
  const k = (target.lineSource[line] ?? 0) - block.line - 1;
  if (k < 0 || k >= block.lines.length) return undefined;
  const column = character + (target.lineShift[line] ?? 0) - (block.columnShift[k] ?? 0);
  if (column < 0) return undefined;
  return { block: global, line: k, column };
}

/** Builds the model. */
export function buildModel(input: ModelInput): DocsModel {
  const { tangle, report, xref } = input;
  const targets = new Map(tangle.targets.map((t) => [t.path, t]));
  const reports = new Map(report.blocks.map((r) => [`${r.doc}\0${r.index}`, r]));

  const definitionBlock = xref.symbols.map((s) => {
    if (s.definition === undefined) return undefined;
    const target = targets.get(s.definition.file);
    const block = target?.lineBlock[s.definition.line] ?? -1;
    return block >= 0 ? block : undefined;
  });

  const identifiers = new Map<number, Map<string, BlockIdentifier>>();
  const usedBy = new Map<number, Set<number>>();
  for (const o of xref.occurrences) {
    const target = targets.get(o.file);
    if (target === undefined) continue;
    const at = locateInBlock(target, tangle.blocks, o.line, o.character);
    if (at === undefined) continue;
    const definedIn = definitionBlock[o.symbol];
    // A block spliced twice is seen twice; keep one identifier per position.
    valueAt(identifiers, at.block, () => new Map()).set(`${at.line}:${at.column}`, { line: at.line, column: at.column, length: o.length, symbol: o.symbol, isDefinition: o.isDefinition, ...(definedIn === undefined ? {} : { definedIn }) });
    if (definedIn !== undefined && definedIn !== at.block) {
      valueAt(usedBy, definedIn, () => new Set()).add(at.block);
    }
  }

  const apiProblems = new Map<number, string[]>();
  for (const p of input.api?.problems ?? []) if (p.block !== undefined) pushAt(apiProblems, p.block, p.message);
  // Tangle's splice graph: for each named block, the blocks whose `<<name>>` lines splice it in.
  const splicedInto = tangle.blocks.map(() => new Set<number>());
  tangle.references.forEach((refs, host) => {
    for (const ref of refs) for (const n of ref.blocks) splicedInto[n]?.add(host);
  });
  const blocks: BlockModel[] = tangle.blocks.map((block, global) => {
    const blockReport = reports.get(`${block.doc}\0${block.index}`);
    const ids = [...(identifiers.get(global)?.values() ?? [])].sort((a, b) => a.line - b.line || a.column - b.column);
    const apiHref = input.api?.pages.get(global);
    return {
      global,
      block,
      href: `${chapterPath(block.doc)}#${blockAnchor(block.index)}`,
      ...(blockReport === undefined ? {} : { report: blockReport }),
      identifiers: ids,
      usedBy: [...(usedBy.get(global) ?? [])].sort((a, b) => a - b),
      tests: input.tests?.get(global) ?? [],
      apiProblems: apiProblems.get(global) ?? [],
      ...(apiHref === undefined ? {} : { apiHref }),
      splicedInto: [...(splicedInto[global] ?? [])],
      chunkRefs: tangle.references[global] ?? [],
    };
  });

  const chapters: ChapterModel[] = [...tangle.documents].sort(byChapterOrder).map((doc) => {
    const summary = report.documents.find((d) => d.path === doc.path);
    const text = input.texts?.get(doc.path);
    const title = doc.frontMatter.title ?? (text === undefined ? undefined : firstHeading(text)) ?? doc.path.replace(/^literate\//, "").replace(/\.md$/, "");
    return {
      doc: doc.path,
      path: chapterPath(doc.path),
      title,
      ...(doc.frontMatter.description === undefined ? {} : { description: doc.frontMatter.description }),
      blocks: blocks.filter((b) => b.block.doc === doc.path).map((b) => b.global),
      ...(summary === undefined ? {} : { summary }),
    };
  });

  // Members are spliced into their class's body (an indented `<<name>>` line): qualify them with
  // the nearest definition above. A block spliced at the top level defines top-level names.
  const owner = (global: number, seen = new Set<number>()): string | undefined => {
    const name = blocks[global]?.block.attrs.name;
    for (const parent of blocks[global]?.splicedInto ?? []) {
      if (seen.has(parent)) continue;
      seen.add(parent);
      const p = blocks[parent];
      const ref = p?.chunkRefs.find((r) => r.name === name);
      if (p === undefined || ref === undefined || !/^[ \t]+</.test(p.block.lines[ref.line] ?? "")) continue;
      if (p.report?.kind === "definition" && p.report.names.length > 0) return p.report.names[0];
      const above = owner(parent, seen);
      if (above !== undefined) return above;
    }
    return undefined;
  };
  const definitions: DefinitionEntry[] = blocks
    .flatMap((b) => {
      if (b.report === undefined || (b.report.kind !== "definition" && b.report.kind !== "fragment")) return [];
      const cls = b.block.attrs.name === undefined ? undefined : owner(b.global);
      return b.report.names.map((name) => ({ name: cls === undefined || cls === name ? name : `${cls}.${name}`, block: b.global }));
    })
    .sort((a, b) => compareDefinitionNames(a.name, b.name) || a.block - b.block);

  return { chapters, blocks, definitions, xref, report, targets: tangle.targets };
}

/**
 * A chapter's title when its front matter has none: its first `# ` heading outside the front
 * matter and the fenced code blocks (found by the document scanner, so fences agree with tangle's).
 */
export function firstHeading(text: string): string | undefined {
  const { result } = scanBlocks(text);
  const skipped: [number, number][] = result.blocks.map((b) => [b.line, b.line + (b.value === "" ? 0 : b.value.split("\n").length) + (b.closed ? 1 : 0)]);
  const fm = result.frontMatter;
  if (fm !== undefined) skipped.push([1, fm.line + (fm.value === "" ? 0 : fm.value.split("\n").length)]);
  const outside = withoutBom(text).split("\n").filter((_line, i) => !skipped.some(([from, to]) => i + 1 >= from && i + 1 <= to));
  const heading = outside.map((line) => /^ {0,3}# +(.+?)(?: +#+)? *$/.exec(line)?.[1]).find((h) => h !== undefined);
  return heading?.replace(/[`*_]/g, "");
}

/** The key a definition sorts and groups by: its name without a private `#`. */
export function definitionSortKey(name: string): string {
  return name.replace(/(^|\.)#/g, "$1");
}

/** Alphabetical, ignoring case and `#`; the letter groups then come out in order. */
export function compareDefinitionNames(a: string, b: string): number {
  const ka = definitionSortKey(a);
  const kb = definitionSortKey(b);
  return collator.compare(ka, kb) || (ka < kb ? -1 : ka > kb ? 1 : 0);
}

/** One collator for every comparison: `localeCompare` builds one per call. */
const collator = new Intl.Collator("en", { sensitivity: "base" });
