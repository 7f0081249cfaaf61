/**
 * Tangling: from literate documents in memory to the files they produce, in memory.
 *
 * Pure: takes document texts, returns file contents, source maps, per-line provenance and
 * diagnostics. It never touches the disk; `plan.ts` decides what to write and `io.ts` writes.
 */
import { posix } from "node:path";
import { error, hasErrors, type Diagnostic } from "./diagnostics.ts";
import { isTypeScript, parseLiterateDocument, type LiterateBlock, type LiterateDocument, type ScanMode } from "./document.ts";
import { checkTargetPath } from "./paths.ts";
import { MappingsBuilder, type SourceMapV3 } from "./sourcemap.ts";

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
  readonly comment: CommentStyle;
  /** The documents that contributed, in order. */
  readonly sources: readonly string[];
  /** For each generated line (0-based), the global index of the block it came from, or -1. */
  readonly lineBlock: readonly number[];
  /** For each generated line (0-based), the 1-based Markdown line, or 0 for header and comments. */
  readonly lineSource: readonly number[];
  /** For each generated line, Markdown column of generated column c is c + shift. */
  readonly lineShift: readonly number[];
  /** Path of the source map written beside it, when the target is TypeScript or JavaScript. */
  readonly mapPath?: string;
}

/** Where a block ended up: its target and the context it was spliced into. */
export interface BlockPlacement {
  readonly target: string;
  /** The block it was spliced into (global index), or -1 for a block written at top level. */
  readonly parent: number;
}

/** Everything one tangle run computes. */
export interface TangleResult {
  readonly documents: readonly LiterateDocument[];
  /** Every block of every document, in document order (documents in sorted path order). */
  readonly blocks: readonly LiterateBlock[];
  readonly targets: readonly TangledTarget[];
  /** Every file to write (targets and source maps), path → content. */
  readonly files: ReadonlyMap<string, string>;
  /** Global block index → where it was placed (first placement for blocks spliced twice). */
  readonly placements: ReadonlyMap<number, BlockPlacement>;
  readonly diagnostics: readonly Diagnostic[];
  /** True when no diagnostic is an error. */
  readonly ok: boolean;
}

/** Options of a tangle run. */
export interface TangleOptions {
  readonly scan?: ScanMode;
  /** Parsed documents to reuse, keyed by path, when their text is unchanged. */
  readonly parsed?: (input: TangleInput) => LiterateDocument | undefined;
}

const referenceLine = /^([ \t]*)<<([A-Za-z_][\w.-]*)>>[ \t]*$/;
export { referenceLine };

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
  const diagnostics: Diagnostic[] = documents.flatMap((d) => d.diagnostics);
  const blocks: LiterateBlock[] = documents.flatMap((d) => d.blocks);

  const named = new Map<string, number[]>();
  blocks.forEach((block, i) => {
    const name = block.attrs.name;
    if (name === undefined || block.attrs.noTangle) return;
    const list = named.get(name);
    if (list === undefined) named.set(name, [i]);
    else list.push(i);
  });

  const roots = collectRoots(documents, blocks, diagnostics);
  const placements = new Map<number, BlockPlacement>();
  const referenced = new Set<string>();
  const targets: TangledTarget[] = [];
  const files = new Map<string, string>();
  const mapTargets = new Set<string>();

  for (const [path, entries] of roots) {
    const comment = commentStyleFor(path);
    const sources = [...new Set(entries.map((i) => blocks[i]?.doc ?? ""))];
    const emitter = new TargetEmitter(path, comment, sources);
    for (const i of entries) {
      placements.set(i, { target: path, parent: -1 });
      emitter.emitBlock(i, "", { blocks, named, placements, referenced, diagnostics, stack: [] });
    }
    const target = emitter.finish();
    targets.push(target);
    files.set(path, target.content);
    if (target.mapPath !== undefined) {
      files.set(target.mapPath, emitter.sourceMap());
      mapTargets.add(target.mapPath);
    }
  }
  for (const mapPath of mapTargets) {
    if (roots.has(mapPath)) {
      diagnostics.push(error({ file: mapPath, line: 0, column: 0 }, "target-collision", `\`${mapPath}\` is both a target and the source map of another target`, "rename the target"));
    }
  }

  // Named blocks nothing written references are checked too: a wrong `<<ref>>` or a cycle is
  // an error wherever it stands. Each group is expanded once, into nothing, from its name.
  const live = new Set(referenced);
  const expanded = new Set<string>();
  for (const [name, indexes] of named) {
    if (live.has(name) || expanded.has(name)) continue;
    expanded.add(name);
    const nowhere = new TargetEmitter(`#${name}`, "none", []);
    const ctx: EmitContext = { blocks, named, placements: new Map(), referenced: expanded, diagnostics, stack: [name] };
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

  return { documents, blocks, targets, files, placements, diagnostics, ok: !hasErrors(diagnostics) };
}

/** True when a document's front matter could not be read: its error explains any missing target, so none is reported per block. */
function frontMatterBroken(doc: LiterateDocument | undefined): boolean {
  return doc?.diagnostics.some((d) => d.rule === "front-matter" && d.severity === "error") === true;
}

/** Decides each written block's target, reporting blocks with no target and contested targets. */
function collectRoots(documents: readonly LiterateDocument[], blocks: readonly LiterateBlock[], out: Diagnostic[]): Map<string, number[]> {
  const roots = new Map<string, number[]>();
  // Every block of a document names the same target: check each distinct path once.
  const checks = new Map<string, ReturnType<typeof checkTargetPath>>();
  const claims = new Map<string, Map<string, boolean>>();
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
    let raw: string | undefined;
    let explicit = false;
    if (attrs.file !== undefined) {
      raw = attrs.file;
      explicit = true;
    } else if (!isTypeScript(block)) {
      return;
    } else if (attrs.test) {
      raw = doc?.frontMatter.test;
      if (raw === undefined) {
        if (frontMatterBroken(doc)) return;
        out.push(error(at, "no-target", "test block has no target", "add `test: test/NAME.test.ts` to the front matter, or `file=PATH` to the fence"));
        return;
      }
    } else {
      raw = doc?.frontMatter.tangle;
      if (raw === undefined) {
        if (frontMatterBroken(doc)) return;
        out.push(error(at, "no-target", "TypeScript block has no target", "add `tangle: generated/NAME.ts` to the front matter, `file=PATH` to the fence, or mark it `no-tangle`"));
        return;
      }
    }
    let checked = checks.get(raw);
    if (checked === undefined) {
      checked = checkTargetPath(raw);
      checks.set(raw, checked);
    }
    if (!checked.ok) {
      const keyLine = doc?.frontMatter.keyLines[attrs.test ? "test" : "tangle"];
      const where = explicit || keyLine === undefined ? at : { file: block.doc, line: keyLine, column: 1 };
      out.push(error(where, "bad-target", checked.reason, "targets are project-relative paths such as `generated/loop.ts`"));
      return;
    }
    const list = roots.get(checked.path);
    if (list === undefined) roots.set(checked.path, [i]);
    else list.push(i);
    let byDoc = claims.get(checked.path);
    if (byDoc === undefined) {
      byDoc = new Map();
      claims.set(checked.path, byDoc);
    }
    byDoc.set(block.doc, (byDoc.get(block.doc) ?? true) && explicit);
  });
  for (const [path, byDoc] of claims) {
    if (byDoc.size < 2 || [...byDoc.values()].every((explicit) => explicit)) continue;
    const docs = [...byDoc.keys()];
    for (const [docPath, explicit] of byDoc) {
      if (explicit) continue;
      const doc = docByPath.get(docPath);
      // Point at the front matter key that names this target (`test:` for a contested test file).
      const key = (["tangle", "test"] as const).find((k) => {
        const value = doc?.frontMatter[k];
        const checked = value === undefined ? undefined : checkTargetPath(value);
        return checked?.ok === true && checked.path === path;
      });
      const line = (key === undefined ? undefined : doc?.frontMatter.keyLines[key]) ?? 1;
      out.push(error({ file: docPath, line, column: 1 }, "contested-target", `target \`${path}\` is claimed by ${docs.map((d) => `\`${d}\``).join(" and ")}`, "give each document its own target, or send the shared blocks there with `file=` on every one of them"));
    }
    roots.delete(path);
  }
  return roots;
}

interface EmitContext {
  readonly blocks: readonly LiterateBlock[];
  readonly named: ReadonlyMap<string, readonly number[]>;
  readonly placements: Map<number, BlockPlacement>;
  readonly referenced: Set<string>;
  readonly diagnostics: Diagnostic[];
  /** Names being expanded, outermost first, for cycle reports. */
  readonly stack: string[];
}

/** Accumulates one target's lines, provenance and source map. */
class TargetEmitter {
  readonly #path: string;
  readonly #comment: CommentStyle;
  readonly #sources: readonly string[];
  readonly #sourceIndex: Map<string, number>;
  readonly #lines: string[] = [];
  readonly #lineBlock: number[] = [];
  readonly #lineSource: number[] = [];
  readonly #lineShift: number[] = [];
  readonly #mappings = new MappingsBuilder();
  #headerWritten = false;

  constructor(path: string, comment: CommentStyle, sources: readonly string[]) {
    this.#path = path;
    this.#comment = comment;
    this.#sources = sources;
    this.#sourceIndex = new Map(sources.map((s, i) => [s, i]));
  }

  #push(text: string, block: number, sourceLine: number, shift: number, source: string | undefined): void {
    this.#lines.push(text);
    this.#lineBlock.push(block);
    this.#lineSource.push(sourceLine);
    this.#lineShift.push(shift);
    if (source === undefined || this.#comment !== "slash") this.#mappings.addUnmapped();
    else this.#mappings.addMapped(text, { source: this.#sourceIndex.get(source) ?? 0, line: sourceLine - 1, shift });
  }

  #header(firstLine: string | undefined, block: LiterateBlock): boolean {
    if (this.#headerWritten) return false;
    this.#headerWritten = true;
    if (this.#comment === "none") return false;
    let consumedShebang = false;
    if (firstLine !== undefined && firstLine.startsWith("#!")) {
      this.#push(firstLine, -1, block.line + 1, block.columnShift[0] ?? 0, block.doc);
      consumedShebang = true;
    }
    this.#push(commentLine(this.#comment, `Generated by tools/tangle.ts from ${this.#sources.join(", ")}. Do not edit: change the Markdown and run \`npm run tangle\`.`), -1, 0, 0, undefined);
    return consumedShebang;
  }

  #provenance(doc: string, line: number, prefix: string): void {
    if (this.#comment === "none") return;
    this.#push(`${prefix}${commentLine(this.#comment, `${doc}:${line}`)}`, -1, 0, 0, undefined);
  }

  /** Emits block `index` with `prefix` before each line, expanding `<<name>>` references. */
  emitBlock(index: number, prefix: string, ctx: EmitContext): void {
    const block = ctx.blocks[index];
    if (block === undefined) return;
    const skipFirst = this.#header(block.lines[0], block);
    if (this.#comment !== "none" && this.#lines.length > 0 && prefix === "") this.#push("", -1, 0, 0, undefined);
    let needProvenance = true;
    for (let i = skipFirst ? 1 : 0; i < block.lines.length; i++) {
      const text = block.lines[i] ?? "";
      const mdLine = block.line + 1 + i;
      const ref = text.includes("<<") ? referenceLine.exec(text) : null;
      if (ref !== null) {
        const indent = prefix + (ref[1] ?? "");
        this.#splice(ref[2] ?? "", indent, ctx, index, { file: block.doc, line: mdLine, column: (ref[1] ?? "").length + 1 + (block.columnShift[i] ?? 0) });
        needProvenance = true;
        continue;
      }
      if (needProvenance) {
        this.#provenance(block.doc, mdLine, prefix);
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
    ctx.stack.push(name);
    for (const child of found) {
      if (!ctx.placements.has(child)) ctx.placements.set(child, { target: this.#path, parent });
      this.emitBlock(child, indent, ctx);
    }
    ctx.stack.pop();
  }

  /** The finished target. */
  finish(): TangledTarget {
    const slash = this.#comment === "slash";
    const mapPath = slash ? `${this.#path}.map` : undefined;
    if (mapPath !== undefined) this.#push(`//# sourceMappingURL=${posix.basename(mapPath)}`, -1, 0, 0, undefined);
    const content = this.#lines.length === 0 ? "" : `${this.#lines.join("\n")}\n`;
    return {
      path: this.#path,
      content,
      comment: this.#comment,
      sources: this.#sources,
      lineBlock: this.#lineBlock,
      lineSource: this.#lineSource,
      lineShift: this.#lineShift,
      ...(mapPath === undefined ? {} : { mapPath }),
    };
  }

  /** The source map JSON, once `finish` has run. */
  sourceMap(): string {
    const dir = posix.dirname(this.#path);
    const map: SourceMapV3 = {
      version: 3,
      file: posix.basename(this.#path),
      sources: this.#sources.map((s) => posix.relative(dir, s)),
      names: [],
      mappings: this.#mappings.toString(),
    };
    return `${JSON.stringify(map)}\n`;
  }
}
