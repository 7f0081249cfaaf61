/**
 * The project model: the documents of a literate project in memory, and everything derived from
 * them, each computed once, on first use, and kept until a document it depends on changes.
 *
 * Tangle, verify, the docs build and `npm run dev` all read the project through one of these:
 * the documents (path → text → parsed document), the tangle result (blocks, targets, files and
 * the splice graph, `TangleResult.references`), the block hashes, and the facts other modules
 * derive from the tangle result (`Derivation`: the targets' syntax trees and the definition
 * analyses, in `project-code.ts`). `update` and `remove` replace one document: its parse is
 * dropped and the whole-project results recomputed on their next use, while every other
 * document keeps its parse and a derivation may reuse what it computed for unchanged parts.
 *
 * Pure: the texts come in from the caller (`sync`), the disk is never read here.
 */
import { parseLiterateDocument, type LiterateDocument, type ScanMode } from "./document.ts";
import { blockHashes } from "./stamps.ts";
import { tangle, type TangleInput, type TangleResult } from "./tangle.ts";

/** Parses one document; the default is `parseLiterateDocument`, a test may count the calls. */
export type DocumentParser = (path: string, text: string, scan: ScanMode) => LiterateDocument;

export interface ProjectModelOptions {
  /**
   * How every document is scanned. `auto` (the default) takes the fast scanner where it is sure,
   * which gives the same blocks as remark but no prose facts; `remark` always asks remark, which
   * also says whether prose stands before each block (what verify's rule 2 reads).
   */
  readonly scan?: ScanMode;
  readonly parse?: DocumentParser;
}

/**
 * A fact derived from the model's tangle result, computed at most once per tangle result.
 * `previous` is the value computed for the model's last tangle result, if any, so a derivation
 * can reuse what is unchanged (a syntax tree of a target whose text is the same).
 * The derivation object itself is the key: define each once, as a module constant.
 */
export interface Derivation<T> {
  readonly name: string;
  derive(model: ProjectModel, previous: T | undefined): T;
}

interface DocumentEntry {
  readonly text: string;
  parsed?: LiterateDocument;
}

/** The documents of one project and what they tangle to; see the module comment. */
export class ProjectModel {
  readonly scan: ScanMode;
  readonly #parse: DocumentParser;
  readonly #documents = new Map<string, DocumentEntry>();
  #tangled: TangleResult | undefined;
  #hashes: readonly string[] | undefined;
  /** Each derivation's last value, and whether it is of the current tangle result. */
  readonly #derived = new Map<object, { readonly value: unknown; current: boolean }>();
  readonly #counts = { parses: 0, tangles: 0, derivations: {} as Record<string, number> };

  constructor(options: ProjectModelOptions = {}) {
    this.scan = options.scan ?? "auto";
    this.#parse = options.parse ?? parseLiterateDocument;
  }

  /** A model holding exactly `inputs`. */
  static of(inputs: Iterable<TangleInput>, options: ProjectModelOptions = {}): ProjectModel {
    const model = new ProjectModel(options);
    model.sync(inputs);
    return model;
  }

  /** The documents' paths, sorted by UTF-16 code units (tangle's order). */
  get paths(): string[] {
    return [...this.#documents.keys()].sort();
  }

  /** A document's text, or `undefined` when the model does not hold it. */
  text(path: string): string | undefined {
    return this.#documents.get(path)?.text;
  }

  /** Every document's text, by path, in sorted path order. */
  texts(): Map<string, string> {
    return new Map(this.paths.map((path) => [path, this.#documents.get(path)?.text ?? ""]));
  }

  /**
   * Sets one document's text. Returns false, and changes nothing, when the text is the one the
   * model holds; otherwise the document is parsed again on its next use, and the whole-project
   * results are recomputed on theirs.
   */
  update(path: string, text: string): boolean {
    if (this.#documents.get(path)?.text === text) return false;
    this.#documents.set(path, { text });
    this.#invalidate();
    return true;
  }

  /** Drops one document; false when the model does not hold it. */
  remove(path: string): boolean {
    if (!this.#documents.delete(path)) return false;
    this.#invalidate();
    return true;
  }

  /** Makes the model hold exactly `inputs`: updates each, removes the others. Returns the paths that changed, sorted. */
  sync(inputs: Iterable<TangleInput>): string[] {
    const changed: string[] = [];
    const present = new Set<string>();
    for (const { path, text } of inputs) {
      present.add(path);
      if (this.update(path, text)) changed.push(path);
    }
    for (const path of [...this.#documents.keys()]) if (!present.has(path) && this.remove(path)) changed.push(path);
    return changed.sort();
  }

  /** A document parsed with the model's scan mode (once per text), or `undefined` when the model does not hold it. */
  document(path: string): LiterateDocument | undefined {
    const entry = this.#documents.get(path);
    if (entry === undefined) return undefined;
    if (entry.parsed === undefined) {
      this.#counts.parses++;
      entry.parsed = this.#parse(path, entry.text, this.scan);
    }
    return entry.parsed;
  }

  /** The tangle of every document, in memory. */
  tangle(): TangleResult {
    if (this.#tangled !== undefined) return this.#tangled;
    this.#counts.tangles++;
    const inputs = this.paths.map((path) => ({ path, text: this.#documents.get(path)?.text ?? "" }));
    this.#tangled = tangle(inputs, { scan: this.scan, parsed: (input) => this.document(input.path) });
    return this.#tangled;
  }

  /** Every block's hash (`blockHashes`), by global block index of `tangle()`. */
  hashes(): readonly string[] {
    this.#hashes ??= blockHashes(this.tangle());
    return this.#hashes;
  }

  /** The value of `derivation` for the current tangle result, computed on first use. */
  derived<T>(derivation: Derivation<T>): T {
    const known = this.#derived.get(derivation);
    if (known?.current === true) return known.value as T;
    this.#counts.derivations[derivation.name] = (this.#counts.derivations[derivation.name] ?? 0) + 1;
    const value = derivation.derive(this, known?.value as T | undefined);
    this.#derived.set(derivation, { value, current: true });
    return value;
  }

  /** The work done since the model was made (what the model's tests count): documents parsed, tangle runs, derivations computed by name. */
  get counts(): { parses: number; tangles: number; derivations: Record<string, number> } {
    return { ...this.#counts, derivations: { ...this.#counts.derivations } };
  }

  /** Forgets the whole-project results; derivations keep their last value as `previous`. */
  #invalidate(): void {
    this.#tangled = undefined;
    this.#hashes = undefined;
    for (const entry of this.#derived.values()) entry.current = false;
  }
}
