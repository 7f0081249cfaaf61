/**
 * Positions both ways between the book and what it tangles to, read from one tangle result: each
 * generated line knows the Markdown line it came from (`TangledTarget.lineSource`) and the
 * column shift of its block (`lineShift`: the indentation of a block inside a list, less the
 * indentation a `<<name>>` splice added). Nothing is parsed again. Pure; positions are 0-based,
 * as the language server protocol and TypeScript count them.
 */
import type { TangleResult, TangledTarget } from "../core/tangle.ts";
import { pushAt } from "../core/maps.ts";

/** A place in a tangled file. */
export interface GeneratedSpot {
  readonly target: string;
  readonly line: number;
  readonly character: number;
}

/** A place in a `literate/*.md` document. */
export interface BookSpot {
  readonly doc: string;
  readonly line: number;
  readonly character: number;
}

/** Where one Markdown line of a block was first written. */
interface Written {
  readonly target: string;
  readonly line: number;
  readonly shift: number;
}

/** The two-way map of one tangle result; see the module comment. */
export class BookMap {
  readonly result: TangleResult;
  readonly #targets: ReadonlyMap<string, TangledTarget>;
  /** `doc:line` (1-based Markdown line) → where it was first written. */
  readonly #written = new Map<string, Written>();
  /** doc → its blocks' global indices, in document order. */
  readonly #blocksOf = new Map<string, number[]>();

  constructor(result: TangleResult) {
    this.result = result;
    this.#targets = new Map(result.targets.map((t) => [t.path, t]));
    result.blocks.forEach((block, index) => pushAt(this.#blocksOf, block.doc, index));
    for (const target of result.targets) {
      const { lineBlock, lineSource, lineShift } = target;
      lineSource.forEach((source, line) => {
        const block = result.blocks[lineBlock[line] ?? -1];
        if (source === 0 || block === undefined) return;
        const key = `${block.doc}:${source}`;
        if (!this.#written.has(key)) this.#written.set(key, { target: target.path, line, shift: lineShift[line] ?? 0 });
      });
    }
  }

  /** Where a Markdown position was (first) written; `undefined` for prose, fences, `<<name>>` lines and blocks never written. */
  toGenerated(doc: string, line: number, character: number): GeneratedSpot | undefined {
    const written = this.#written.get(`${doc}:${line + 1}`);
    if (written === undefined) return undefined;
    return { target: written.target, line: written.line, character: Math.max(0, character - written.shift) };
  }

  /** The Markdown position a tangled position came from; `undefined` for the header, provenance comments and the source map line. */
  toBook(target: string, line: number, character: number): BookSpot | undefined {
    const t = this.#targets.get(target);
    if (t === undefined) return undefined;
    const source = t.lineSource[line] ?? 0;
    const block = this.result.blocks[t.lineBlock[line] ?? -1];
    if (source === 0 || block === undefined) return undefined;
    return { doc: block.doc, line: source - 1, character: Math.max(0, character + (t.lineShift[line] ?? 0)) };
  }

  /** The global indices of `doc`'s blocks, in document order. */
  blocksOf(doc: string): readonly number[] {
    return this.#blocksOf.get(doc) ?? [];
  }

  /** The block of `doc` whose fences enclose 0-based `line` (its fences included), if any. */
  blockAt(doc: string, line: number): number | undefined {
    return this.blocksOf(doc).find((index) => {
      const block = this.result.blocks[index];
      // From the opening fence's line to the closing fence's, the line after its last code line (1-based).
      return block !== undefined && line + 1 >= block.line && line + 1 <= block.line + block.lines.length + 1;
    });
  }
}
