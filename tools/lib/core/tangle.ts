/**
 * Tangling: from literate documents in memory to the files they produce, in memory.
 *
 * Pure: takes document texts, returns file contents, source maps, per-line provenance and
 * diagnostics. It never touches the disk; `plan.ts` decides what to write and `disk/io.ts` writes.
 */
import { posix } from "node:path";
import { error, hasErrors, type Diagnostic } from "./diagnostics.ts";
import { isTypeScript, parseLiterateDocument, type LiterateBlock, type LiterateDocument, type ScanMode } from "./document.ts";
import { checkTargetPath } from "./paths.ts";
import { withoutBom } from "./markdown.ts";
import { MappingsBuilder, inlineSourceMapComment } from "./sourcemap.ts";
import { pushAt, valueAt } from "./maps.ts";

/** One Markdown document to tangle: its project-relative path and its text. */
export interface TangleInput {
  readonly path: string;
  readonly text: string;
}

/** How a target's lines are commented, by file extension. */
export type CommentStyle = "slash" | "hash" | "none";

/** A file tangle produces from blocks, with the provenance of every line. */
export interface TangledTarget {
  readonly path: string;
  readonly content: string;
  /** The documents that contributed, in order. */
  readonly sources: readonly string[];
  /** For each generated line (0-based), the global index of the block it came from, or -1. */
  readonly lineBlock: readonly number[];
  /** For each generated line (0-based), the 1-based Markdown line, or 0 for header and comments. */
  readonly lineSource: readonly number[];
  /** For each generated line, Markdown column of generated column c is c + shift. */
  readonly lineShift: readonly number[];
}

/** Where a block ended up: its target and the context it was spliced into. */
export interface BlockPlacement {
  readonly target: string;
  /** The block it was spliced into (global index), or -1 for a block written at top level. */
  readonly parent: number;
}

export interface TangleResult {
  readonly documents: readonly LiterateDocument[];
  /** Every block of every document, in document order (documents in sorted path order). */
  readonly blocks: readonly LiterateBlock[];
  readonly targets: readonly TangledTarget[];
  /** Every file to write, path → content (a TypeScript or JavaScript target carries its source map inline). */
  readonly files: ReadonlyMap<string, string>;
  /** Global block index → where it was placed (first placement for blocks spliced twice); no entry for a block never written. */
  readonly placements: readonly (BlockPlacement | undefined)[];
  /**
   * The splice graph: for each block (global index), its `<<name>>` lines in order, each with the
   * blocks that name resolves to by tangle's rule (named blocks not marked `no-tangle`, in document
   * order; empty for a name nothing defines). Stamps, verify, the docs and the dev loop read this,
   * and none of them parses `<<name>>` lines again.
   */
  readonly references: readonly (readonly BlockReference[])[];
  readonly diagnostics: readonly Diagnostic[];
  /** True when no diagnostic is an error. */
  readonly ok: boolean;
}

/** One `<<name>>` line of a block: its 0-based line within the block, the name, and the blocks spliced there. */
export interface BlockReference {
  readonly line: number;
  readonly name: string;
  readonly blocks: readonly number[];
}

export interface TangleOptions {
  readonly scan?: ScanMode;
  /** Parsed documents to reuse, keyed by path, when their text is unchanged. */
  readonly parsed?: (input: TangleInput) => LiterateDocument | undefined;
}

const referenceLine = /^([ \t]*)<<([A-Za-z_][\w.-]*)>>[ \t]*$/;

/**
 * How deep `<<name>>` references may nest. Expansion recurses once per level, so a chain
 * thousands of levels deep would exhaust the stack; a hundred is far more than a book needs.
 */
const maxReferenceDepth = 100;

/** The C0 control characters a block may not hold: all but tab, line feed, form feed and carriage return. */
const controlCharacter = /[\0-\x08\x0B\x0E-\x1F]/;

/** A block's `<<name>>` lines, resolved against the named blocks. */
function referencesOf(block: LiterateBlock, named: ReadonlyMap<string, readonly number[]>): BlockReference[] {
  const found: BlockReference[] = [];
  block.lines.forEach((text, line) => {
    const name = text.includes("<<") ? referenceLine.exec(text)?.[2] : undefined;
    if (name !== undefined) found.push({ line, name, blocks: named.get(name) ?? [] });
  });
  return found;
}

/** Chooses the comment style of a target from its extension. */
export function commentStyleFor(path: string): CommentStyle {
  const ext = posix.extname(path).toLowerCase();
  if ([".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx"].includes(ext)) return "slash";
  if ([".sh", ".bash", ".zsh", ".py", ".rb", ".yml", ".yaml", ".toml"].includes(ext) || posix.basename(path) === "run") return "hash";
  return "none";
}

function commentLine(style: CommentStyle, text: string): string {
  return style === "slash" ? `// ${text}` : `# ${text}`;
}

/** Tangles documents into files. Documents are processed in sorted path order. */
export function tangle(inputs: readonly TangleInput[], options: TangleOptions = {}): TangleResult {
  const sorted = [...inputs].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const documents = sorted.map((input) => options.parsed?.(input) ?? parseLiterateDocument(input.path, input.text, options.scan ?? "auto"));
  const diagnostics: Diagnostic[] = [];
  const blocks: LiterateBlock[] = [];
  documents.forEach((d, i) => {
    diagnostics.push(...d.diagnostics);
    for (const block of d.blocks) blocks.push(block);
    const text = sorted[i]?.text ?? "";
    reportControlCharacters(text, d, diagnostics);
  });

  const named = new Map<string, number[]>();
  blocks.forEach((block, i) => {
    const name = block.attrs.name;
    if (name !== undefined && !block.attrs.noTangle) pushAt(named, name, i);
  });

  const references = blocks.map((block) => referencesOf(block, named));
  const roots = collectRoots(documents, blocks, diagnostics);
  // An array indexed by block, not a Map: a large book has tens of thousands of blocks, and a Map's growth shows in the profile.
  const placements: (BlockPlacement | undefined)[] = new Array<BlockPlacement | undefined>(blocks.length).fill(undefined);
  const referenced = new Set<string>();
  const targets: TangledTarget[] = [];
  const files = new Map<string, string>();

  // One source map buffer for all targets: each target's map is copied out when it finishes.
  const mappings = new MappingsBuilder();
  for (const [path, entries] of roots) {
    const comment = commentStyleFor(path);
    const sources = [...new Set(entries.map((i) => blocks[i]?.doc ?? ""))];
    const emitter = new TargetEmitter(path, comment, sources, mappings);
    const ctx: EmitContext = { blocks, named, references, placements, referenced, diagnostics, stack: [] };
    // Every block written at the top level of this target shares one (frozen) placement.
    const topLevel: BlockPlacement = Object.freeze({ target: path, parent: -1 });
    for (const i of entries) {
      placements[i] = topLevel;
      emitter.emitBlock(i, "", ctx);
    }
    const target = emitter.finish();
    targets.push(target);
    files.set(path, target.content);
  }

  // Named blocks nothing written references are checked too: a wrong `<<ref>>` or a cycle is
  // an error wherever it stands. Each group is expanded once, into nothing, from its name.
  const live = new Set(referenced);
  const expanded = new Set<string>();
  for (const [name, indexes] of named) {
    if (live.has(name) || expanded.has(name)) continue;
    expanded.add(name);
    const nowhere = new TargetEmitter(`#${name}`, "none", []);
    const ctx: EmitContext = { blocks, named, references, placements: [], referenced: expanded, diagnostics, stack: [name] };
    for (const i of indexes) nowhere.emitBlock(i, "", ctx);
  }

  for (const [name, indexes] of named) {
    if (live.has(name)) continue;
    const first = blocks[indexes[0] ?? 0];
    if (first === undefined) continue;
    diagnostics.push(
      error(
        { file: first.doc, line: first.line, column: first.column },
        "unused-block",
        `named block \`#${name}\` is never referenced`,
        `splice it with a line \`<<${name}>>\` in another block, or delete it; to keep it only as an illustration, replace \`#${name}\` with \`no-tangle\``,
      ),
    );
  }

  return { documents, blocks, targets, files, placements, references, diagnostics, ok: !hasErrors(diagnostics) };
}

/**
 * Reports each block line holding a C0 control character (a NUL byte, an escape) at the
 * character: written into a target it would be invisible in review and can break the tools
 * that read it, so a block must spell it as an escape sequence instead. The raw text's lines are
 * searched, not the blocks' lines: the Markdown parser has already replaced a NUL there. They are
 * split only when one search of each block's code (a third of a typical document, and a verbatim
 * block is one string), or of the whole text for a NUL, finds one.
 */
function reportControlCharacters(source: string, doc: LiterateDocument, out: Diagnostic[]): void {
  const found = (block: LiterateBlock): boolean => (block.verbatim !== undefined ? controlCharacter.test(block.verbatim) : block.lines.some((line) => controlCharacter.test(line)));
  if (!source.includes("\0") && !doc.blocks.some(found)) return;
  const lines = withoutBom(source).split("\n");
  for (const block of doc.blocks) {
    for (let line = block.line + 1; line <= block.line + block.lines.length; line++) {
      const match = controlCharacter.exec(lines[line - 1] ?? "");
      if (match === null) continue;
      const code = `U+${(match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
      out.push(
        error(
          { file: doc.path, line, column: match.index + 1 },
          "control-character",
          `the block holds the control character ${code}${code === "U+0000" ? " (NUL)" : ""}`,
          "delete it, or write it as an escape in the code (`\\0`, `\\x1b`)",
        ),
      );
    }
  }
}

/** Decides each written block's target, reporting blocks with no target and contested targets. */
function collectRoots(documents: readonly LiterateDocument[], blocks: readonly LiterateBlock[], out: Diagnostic[]): Map<string, number[]> {
  const roots = new Map<string, number[]>();
  // Every block of a document names the same target: check each distinct path once.
  const checks = new Map<string, ReturnType<typeof checkTargetPath>>();
  // Per target, per document claiming it: the line of the front matter key that names it, or `undefined` when every claim is `file=`.
  const claims = new Map<string, Map<string, number | undefined>>();
  const docByPath = new Map(documents.map((d) => [d.path, d]));
  blocks.forEach((block, i) => {
    const at = { file: block.doc, line: block.line, column: block.column };
    const { attrs } = block;
    if (attrs.noTangle) {
      if (attrs.name !== undefined || attrs.file !== undefined) {
        out.push(error(at, "bad-attribute", "`no-tangle` cannot be combined with `file=` or `#name`", "an illustration is never written; drop `no-tangle` or the other attribute"));
      }
      return;
    }
    if (attrs.name !== undefined) return;
    const doc = docByPath.get(block.doc);
    // `file=` names the target of any block; a TypeScript block without it goes to its front matter's.
    const explicit = attrs.file !== undefined;
    if (!explicit && !isTypeScript(block)) return;
    const raw = attrs.file ?? (attrs.test ? doc?.frontMatter.test : doc?.frontMatter.tangle);
    const keyLine = doc?.frontMatter.keyLines[attrs.test ? "test" : "tangle"];
    if (raw === undefined) {
      // Front matter that could not be read explains any missing target: none is reported per block.
      if (doc?.diagnostics.some((d) => d.rule === "front-matter" && d.severity === "error") === true) return;
      if (attrs.test) out.push(error(at, "no-target", "test block has no target", "add `test: test/NAME.test.ts` to the front matter, or `file=PATH` to the fence"));
      else out.push(error(at, "no-target", "TypeScript block has no target", "add `tangle: generated/NAME.ts` to the front matter, `file=PATH` to the fence, or mark it `no-tangle`"));
      return;
    }
    const checked = valueAt(checks, raw, () => checkTargetPath(raw));
    if (!checked.ok) {
      const where = explicit || keyLine === undefined ? at : { file: block.doc, line: keyLine, column: 1 };
      out.push(error(where, "bad-target", checked.reason, "targets are project-relative paths such as `generated/loop.ts`"));
      return;
    }
    pushAt(roots, checked.path, i);
    const byDoc = valueAt(claims, checked.path, () => new Map<string, number | undefined>());
    // A claim through the front matter points at its key (`tangle:` before `test:` when both name the target).
    if (!explicit && (byDoc.get(block.doc) === undefined || !attrs.test)) byDoc.set(block.doc, keyLine ?? 1);
    else if (!byDoc.has(block.doc)) byDoc.set(block.doc, undefined);
  });
  for (const [path, byDoc] of claims) {
    if (byDoc.size < 2 || [...byDoc.values()].every((line) => line === undefined)) continue;
    const docs = [...byDoc.keys()];
    for (const [docPath, line] of byDoc) {
      if (line === undefined) continue;
      out.push(error({ file: docPath, line, column: 1 }, "contested-target", `target \`${path}\` is claimed by ${docs.map((d) => `\`${d}\``).join(" and ")}`, "give each document its own target, or send the shared blocks there with `file=` on every one of them"));
    }
    roots.delete(path);
  }
  return roots;
}

/**
 * Marks every name reachable from `name` as referenced, without expanding anything and without
 * recursion: the blocks below a reference refused as too deep are used all the same, and must
 * not each be reported as never referenced (nor expanded again from their own names).
 */
function markReachable(name: string, ctx: EmitContext): void {
  const pending = [name];
  const seen = new Set(pending);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    ctx.referenced.add(next);
    for (const index of ctx.named.get(next) ?? []) {
      for (const { name: child } of ctx.references[index] ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        pending.push(child);
      }
    }
  }
}

interface EmitContext {
  readonly blocks: readonly LiterateBlock[];
  readonly named: ReadonlyMap<string, readonly number[]>;
  readonly references: readonly (readonly BlockReference[])[];
  readonly placements: (BlockPlacement | undefined)[];
  readonly referenced: Set<string>;
  readonly diagnostics: Diagnostic[];
  /** Names being expanded, outermost first, for cycle reports. */
  readonly stack: string[];
}

/**
 * A target's per-line provenance, recorded as runs of consecutive lines and spelled out line
 * by line only when read: tangle itself never reads it, verify and the docs site do.
 */
class LineRuns {
  /** Four numbers per run: its line count, block, Markdown line of its first line (0: none) and column shift. */
  readonly #runs: number[] = [];
  #tables: { lineBlock: number[]; lineSource: number[]; lineShift: number[] } | undefined;

  /** Adds `count` lines from `block`, the first from Markdown line `source` (0: none), the next ones from the lines after it. */
  add(count: number, block: number, source: number, shift: number): void {
    const runs = this.#runs;
    const last = runs.length - 4;
    const lastSource = runs[last + 2] ?? 0;
    // A line continuing the previous run (the slow path pushes one line at a time) extends it.
    if (last >= 0 && runs[last + 1] === block && runs[last + 3] === shift && (source === 0 ? lastSource === 0 : lastSource !== 0 && lastSource + (runs[last] ?? 0) === source)) {
      runs[last] = (runs[last] ?? 0) + count;
      return;
    }
    runs.push(count, block, source, shift);
  }

  /** The three per-line tables of `TangledTarget`, built on first use. */
  tables(): { lineBlock: number[]; lineSource: number[]; lineShift: number[] } {
    if (this.#tables !== undefined) return this.#tables;
    const lineBlock: number[] = [];
    const lineSource: number[] = [];
    const lineShift: number[] = [];
    const runs = this.#runs;
    for (let r = 0; r < runs.length; r += 4) {
      const source = runs[r + 2] ?? 0;
      for (let k = 0; k < (runs[r] ?? 0); k++) {
        lineBlock.push(runs[r + 1] ?? -1);
        lineSource.push(source === 0 ? 0 : source + k);
        lineShift.push(runs[r + 3] ?? 0);
      }
    }
    this.#tables = { lineBlock, lineSource, lineShift };
    return this.#tables;
  }
}

/** How many lines `text` holds, split at `\n`. */
function lineCount(text: string): number {
  let count = 1;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", nl + 1)) count++;
  return count;
}

/**
 * Accumulates one target's text, provenance and source map. The text is kept as chunks of
 * whole lines: a verbatim block (see `LiterateBlock.verbatim`) written at top level is one
 * chunk, copied whole and mapped in one pass; everything else goes line by line.
 */
class TargetEmitter {
  readonly #path: string;
  readonly #comment: CommentStyle;
  // Grows as blocks of other documents are spliced in: a `#name` block may live in any document.
  readonly #sources: string[];
  readonly #chunks: string[] = [];
  /** Where the header line is in `#chunks`, rewritten in `finish` once every document is known. */
  #headerChunk = -1;
  #lines = 0;
  readonly #runs = new LineRuns();
  /** Only targets commented with `//` carry a source map. */
  readonly #mappings: MappingsBuilder | undefined;

  /** `mappings`: a builder to reuse (reset here); the map is copied out of it in `finish`. */
  constructor(path: string, comment: CommentStyle, sources: readonly string[], mappings?: MappingsBuilder) {
    this.#path = path;
    this.#comment = comment;
    this.#sources = [...sources];
    this.#mappings = comment === "slash" ? (mappings ?? new MappingsBuilder()) : undefined;
    this.#mappings?.reset();
  }

  /**
   * Writes `text`, one line or a verbatim block's whole lines, from Markdown line `sourceLine` of
   * `source` on at column shift `shift`; without a `source`, a line of tangle's own.
   */
  #push(text: string, block: number, sourceLine: number, shift: number, source: string | undefined): void {
    let count = 1;
    if (source === undefined) this.#mappings?.addUnmapped();
    // The map counts the lines as it goes; a target without one counts them itself.
    else count = this.#mappings?.addMappedLines(text, { source: this.#sourceOf(source), line: sourceLine - 1, shift }) ?? lineCount(text);
    this.#chunks.push(text);
    this.#lines += count;
    this.#runs.add(count, block, sourceLine, shift);
  }

  /** The index of `doc` among the target's sources, adding it the first time a line of it is written. */
  #sourceOf(doc: string): number {
    const index = this.#sources.indexOf(doc);
    return index >= 0 ? index : this.#sources.push(doc) - 1;
  }

  #headerText(): string {
    return commentLine(this.#comment, `Generated by tools/tangle.ts from ${this.#sources.join(", ")}. Do not edit: change the Markdown and run \`npm run tangle\`.`);
  }

  /** Writes the header before a commented target's first line, after a shebang it takes from `block`: true when it took one. */
  #header(firstLine: string | undefined, block: LiterateBlock): boolean {
    if (this.#comment === "none" || this.#lines > 0) return false;
    const shebang = firstLine !== undefined && firstLine.startsWith("#!");
    if (shebang) this.#push(firstLine, -1, block.line + 1, block.columnShift[0] ?? 0, block.doc);
    this.#headerChunk = this.#chunks.length;
    this.#push(this.#headerText(), -1, 0, 0, undefined);
    return shebang;
  }

  #provenance(doc: string, line: number, prefix: string): void {
    if (this.#comment === "none") return;
    this.#push(`${prefix}${commentLine(this.#comment, `${doc}:${line}`)}`, -1, 0, 0, undefined);
  }

  /** Emits block `index` with `prefix` before each line, expanding `<<name>>` references. */
  emitBlock(index: number, prefix: string, ctx: EmitContext): void {
    const block = ctx.blocks[index];
    if (block === undefined) return;
    const whole = block.verbatim;
    // Only a first line starting with `#!` matters to the header: a verbatim block need not be split to know.
    const skipFirst = this.#header(whole === undefined || whole.startsWith("#!") ? block.lines[0] : undefined, block);
    if (this.#comment !== "none" && this.#lines > 0 && prefix === "") this.#push("", -1, 0, 0, undefined);
    if (whole !== undefined && !skipFirst && prefix === "" && !whole.includes("<<")) {
      this.#provenance(block.doc, block.line + 1, /^[ \t]*/.exec(whole)?.[0] ?? "");
      this.#push(whole, index, block.line + 1, 0, block.doc);
      return;
    }
    let needProvenance = true;
    // A provenance comment is indented as a formatter indents a comment, so formatting leaves it
    // alone and `npm run stitch` can take the formatting back: like the line it announces, or,
    // after a splice, at the splice's indentation (where a comment before the `}` that closes
    // the spliced members stands).
    let spliceIndent: string | undefined;
    for (let i = skipFirst ? 1 : 0; i < block.lines.length; i++) {
      const text = block.lines[i] ?? "";
      const mdLine = block.line + 1 + i;
      const ref = text.includes("<<") ? referenceLine.exec(text) : null;
      if (ref !== null) {
        const indent = prefix + (ref[1] ?? "");
        this.#splice(ref[2] ?? "", indent, ctx, index, { file: block.doc, line: mdLine, column: (ref[1] ?? "").length + 1 + (block.columnShift[i] ?? 0) });
        needProvenance = true;
        spliceIndent = indent;
        continue;
      }
      if (needProvenance) {
        this.#provenance(block.doc, mdLine, spliceIndent ?? prefix + (/^[ \t]*/.exec(text)?.[0] ?? ""));
        needProvenance = false;
      }
      const shift = (block.columnShift[i] ?? 0) - prefix.length;
      this.#push(text === "" ? "" : prefix + text, index, mdLine, shift, block.doc);
    }
  }

  #splice(name: string, indent: string, ctx: EmitContext, parent: number, at: { file: string; line: number; column: number }): void {
    const found = ctx.named.get(name);
    if (found === undefined) {
      ctx.diagnostics.push(error(at, "unknown-reference", `\`<<${name}>>\` refers to no block`, `name a block with \`#${name}\` in its fence, or fix the spelling`));
      return;
    }
    ctx.referenced.add(name);
    if (ctx.stack.includes(name)) {
      const cycle = [...ctx.stack.slice(ctx.stack.indexOf(name)), name];
      ctx.diagnostics.push(error(at, "reference-cycle", `references form a cycle: ${cycle.map((n) => `<<${n}>>`).join(" -> ")}`, "a block cannot include itself, directly or through others"));
      return;
    }
    if (ctx.stack.length >= maxReferenceDepth) {
      ctx.diagnostics.push(
        error(
          at,
          "reference-depth",
          `\`<<${name}>>\` nests references deeper than ${maxReferenceDepth} levels (from \`<<${ctx.stack[0] ?? name}>>\`)`,
          `tangle expands at most ${maxReferenceDepth} levels of \`<<name>>\` inside one another; splice some of the blocks at a shallower level`,
        ),
      );
      markReachable(name, ctx);
      return;
    }
    ctx.stack.push(name);
    for (const child of found) {
      if (ctx.placements[child] === undefined) ctx.placements[child] = { target: this.#path, parent };
      this.emitBlock(child, indent, ctx);
    }
    ctx.stack.pop();
  }

  /**
   * The finished target. A target commented with `//` ends with its source map, inline: the
   * comment line is unmapped itself, so the map has a (empty) entry for every line.
   */
  finish(): TangledTarget {
    if (this.#headerChunk >= 0) this.#chunks[this.#headerChunk] = this.#headerText();
    const mappings = this.#mappings;
    if (mappings !== undefined) {
      mappings.addUnmapped();
      const dir = posix.dirname(this.#path);
      this.#chunks.push(inlineSourceMapComment(posix.basename(this.#path), this.#sources.map((s) => posix.relative(dir, s)), mappings.bytes()));
      this.#lines++;
      this.#runs.add(1, -1, 0, 0);
    }
    // A final empty chunk gives the last line its newline: one flat string, with no concatenation to flatten later.
    if (this.#lines > 0) this.#chunks.push("");
    const content = this.#chunks.join("\n");
    const runs = this.#runs;
    return {
      path: this.#path,
      content,
      sources: this.#sources,
      get lineBlock() {
        return runs.tables().lineBlock;
      },
      get lineSource() {
        return runs.tables().lineSource;
      },
      get lineShift() {
        return runs.tables().lineShift;
      },
    };
  }
}
