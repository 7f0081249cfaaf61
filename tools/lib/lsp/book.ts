/**
 * The book as the language server holds it: every document's text (the editor's unsaved text for
 * an open one, the disk's for the others) in one project model, tangled in memory by the same
 * `tangle()` `npm run tangle` runs, the tangled TypeScript served to TypeScript's language
 * service (`TangledHost`), and positions mapped both ways (`BookMap`). Its verdicts are the one
 * judge's (`judge.ts`, in `judge-worker.ts`), over facts made of the service's diagnostics and
 * the evidence verify reads; none is decided here.
 *
 * Nothing is written to disk. An edit re-tangles (the model parses again only the changed
 * document) and the service re-checks only the files whose text changed.
 */
import ts from "typescript";
import { error, type Diagnostic } from "../core/diagnostics.ts";
import type { Judgement } from "../rules/judge.ts";
import { isTypeScriptPath } from "../core/paths.ts";
import { ProjectModel } from "../core/project.ts";
import type { TangleInput } from "../core/tangle.ts";
import type { CompilerDiagnostic, TypeCheckResult } from "../core/evidence.ts";
import { BookMap, type BookSpot } from "./book-map.ts";
import { TangledHost } from "./tangled-host.ts";

/** A range of a file, 0-based. */
export interface Span {
  readonly start: ts.LineAndCharacter;
  readonly end: ts.LineAndCharacter;
}

/** A Markdown range. */
export interface BookRange extends Span {
  readonly doc: string;
}

/** Where a span of a file the service reads stands: a Markdown range of the book, or a range of another file (absolute path). */
export type Place = { readonly kind: "book"; readonly range: BookRange } | { readonly kind: "file"; readonly fileName: string; readonly range: Span };

/** One problem of a document, at its Markdown range. */
export interface BookProblem {
  readonly range: BookRange;
  readonly diagnostic: Diagnostic;
}

/** What the judge needs from the book's side for one judgement: the type-check, and the texts' version it was made on. */
export interface JudgeInput {
  /** The open documents the type-check covered. */
  readonly key: string;
  readonly version: number;
  readonly checked: TypeCheckResult;
  /** Each type error's Markdown range, by span key. */
  readonly spans: ReadonlyMap<string, BookRange>;
}

/** The book in the server; see the module comment. */
export class Book {
  /** The texts, scanned fast: what is tangled for the language service and the position map. */
  readonly model = new ProjectModel();
  readonly host: TangledHost;
  readonly service: ts.LanguageService;
  #tangled: BookMap | undefined;
  /** Each module's last type errors, with their Markdown ranges (by span key). */
  readonly #checked = new Map<string, { readonly diagnostics: readonly CompilerDiagnostic[]; readonly spans: readonly (readonly [string, BookRange])[] }>();
  /** The modules whose text changed since they were last checked. */
  readonly #edited = new Set<string>();
  /** The judge's latest verdict and what it was asked with: the problems' while its texts are current, the lenses' after. */
  #judged: (JudgeInput & { readonly judgement: Judgement }) | undefined;
  #version = 0;

  constructor(root: string, options: ts.CompilerOptions, inputs: Iterable<TangleInput>) {
    this.host = new TangledHost(root, options);
    this.service = ts.createLanguageService(this.host, ts.createDocumentRegistry());
    this.model.sync(inputs);
  }

  /** Sets one document's text (an editor's edit, or the disk's after a close); false when unchanged. */
  setText(doc: string, text: string): boolean {
    if (!this.model.update(doc, text)) return false;
    this.#tangled = undefined;
    this.#version++;
    return true;
  }

  /**
   * Takes the disk's texts of the documents no editor holds open (`inputs`: every document on
   * disk), dropping those gone from it: what a checkout or another tool changed.
   */
  syncClosed(inputs: readonly TangleInput[], open: ReadonlySet<string>): void {
    const held = this.model.paths.filter((path) => open.has(path)).map((path) => ({ path, text: this.model.text(path) ?? "" }));
    if (this.model.sync([...inputs.filter((input) => !open.has(input.path)), ...held]).length === 0) return;
    this.#tangled = undefined;
    this.#version++;
  }

  /** The tangle of the current texts, served to the language service. Never throws for a document that does not tangle: its errors are in the result. */
  tangled(): BookMap {
    if (this.#tangled !== undefined) return this.#tangled;
    const result = this.model.tangle();
    for (const path of this.host.update(result.files)) this.#edited.add(path);
    this.#tangled = new BookMap(result);
    return this.#tangled;
  }

  /** Lets the language service start from the modules of `docs` (their imports come along), or from every module (`undefined`), as `TangledHost.widen`. */
  widen(docs: readonly string[] | undefined): void {
    this.tangled();
    this.host.widen(docs === undefined ? undefined : this.targetsOf(docs));
  }

  /** The 0-based line and character of an offset in a file the service reads. */
  positionIn(fileName: string, offset: number): ts.LineAndCharacter | undefined {
    const source = this.service.getProgram()?.getSourceFile(fileName);
    return source?.getLineAndCharacterOfPosition(offset);
  }

  /** The service's file and offset for a Markdown position, when the position is code tangle wrote. */
  toService(doc: string, line: number, character: number): { fileName: string; offset: number } | undefined {
    const spot = this.tangled().toGenerated(doc, line, character);
    if (spot === undefined) return undefined;
    this.host.widen([spot.target]);
    const fileName = this.host.absolute(spot.target);
    const source = this.service.getProgram()?.getSourceFile(fileName);
    const starts = source?.getLineStarts();
    const start = starts?.[spot.line];
    if (source === undefined || start === undefined) return undefined;
    return { fileName, offset: Math.min(start + spot.character, starts?.[spot.line + 1] ?? source.text.length) };
  }

  /**
   * Where a span of a file the service reads stands: a Markdown range for a tangled file (or
   * `undefined` when a line of it came from no Markdown line, such as the generated header),
   * the file's own range for any other file (`node_modules`, the toolchain's own code).
   */
  locate(fileName: string, start: number, length: number): Place | undefined {
    const from = this.positionIn(fileName, start);
    const to = this.positionIn(fileName, start + length);
    if (from === undefined || to === undefined) return undefined;
    const target = this.host.tangledPath(fileName);
    if (target === undefined) return { kind: "file", fileName, range: { start: from, end: to } };
    const map = this.tangled();
    const a = map.toBook(target, from.line, from.character);
    const b = map.toBook(target, to.line, to.character);
    if (a === undefined || b === undefined || a.doc !== b.doc) return undefined;
    return { kind: "book", range: { doc: a.doc, start: at(a), end: at(b) } };
  }

  /** The tangled TypeScript files that hold a block of one of `docs`. */
  targetsOf(docs: Iterable<string>): string[] {
    const map = this.tangled();
    const targets = new Set<string>();
    for (const doc of docs) {
      for (const index of map.blocksOf(doc)) {
        const target = map.result.placements[index]?.target;
        if (target !== undefined && isTypeScriptPath(target)) targets.add(target);
      }
    }
    return [...targets].sort();
  }

  /** A number that moves with every change of the texts, so a judgement made elsewhere can be matched to the texts it judged. */
  get version(): number {
    return this.#version;
  }

  /**
   * What the judge needs from this side, for the current texts: the type-check of the modules
   * that hold a block of one of `docs` (what an editor shows), each error's Markdown range kept
   * in `spans`; `undefined` while the book does not tangle (its tangle errors are the verdict).
   */
  judgeInput(docs: readonly string[]): JudgeInput | undefined {
    if (!this.tangled().result.ok) return undefined;
    const spans = new Map<string, BookRange>();
    const checked = this.#typeCheck(this.targetsOf(docs), spans);
    return { key: [...docs].sort().join("\0"), version: this.#version, checked, spans };
  }

  /** Takes the judge's verdict on the texts `input` was made of; a verdict on older texts is only the lenses' until a current one comes. */
  accept(input: JudgeInput, judgement: Judgement | undefined): void {
    if (judgement !== undefined) this.#judged = { ...input, judgement };
  }

  /** The latest verdict the judge gave, on these texts or on slightly older ones (for the lenses). */
  get latestJudgement(): Judgement | undefined {
    return this.#judged?.judgement;
  }

  /**
   * What is known first, before the judge runs: the tangle's problems in `doc` (errors while the
   * book does not tangle, warnings always) and the type errors in its blocks. With `editedOnly`,
   * only the modules whose text changed are checked now, the others' errors are the last ones
   * found: the edited module's errors are shown a check sooner, and the others follow.
   */
  quickProblems(doc: string, editedOnly = false): BookProblem[] {
    const { result } = this.tangled();
    const spans = new Map<string, BookRange>();
    const tangleProblems = result.diagnostics.filter((d) => !result.ok || d.severity === "warning");
    const typeErrors = this.#typeCheck(this.targetsOf([doc]), spans, editedOnly ? this.#edited : undefined).diagnostics.flatMap((d) => this.#bookDiagnostic(d, spans) ?? []);
    return this.#placed(doc, [...tangleProblems, ...typeErrors], spans);
  }

  /**
   * Every problem to show in `doc`: the judge's verdicts (type errors among them) with tangle's
   * warnings, once the judge has judged the current texts (`accept`); until then, and while the
   * book does not tangle, `quickProblems`.
   */
  problems(doc: string, open: readonly string[]): BookProblem[] {
    const { result } = this.tangled();
    const key = [...open].sort().join("\0");
    const judged = this.#judged;
    if (!result.ok || judged === undefined || judged.version !== this.#version || judged.key !== key) return this.quickProblems(doc);
    const warnings = result.diagnostics.filter((d) => d.severity === "warning");
    return this.#placed(doc, [...warnings, ...judged.judgement.problems], judged.spans);
  }

  /** The diagnostics of `doc` among `found`, each at its recorded span, else from its point to the end of its line. */
  #placed(doc: string, found: readonly Diagnostic[], spans: ReadonlyMap<string, BookRange>): BookProblem[] {
    return found.filter((d) => d.file === doc).map((diagnostic) => ({ diagnostic, range: spans.get(spanKey(diagnostic)) ?? this.#pointRange(diagnostic) }));
  }

  /** A diagnostic of the type-check as the compiles rule places it, for `quickProblems` (where the judge does not run). */
  #bookDiagnostic(d: CompilerDiagnostic, spans: Map<string, BookRange>): Diagnostic | undefined {
    const spot = this.tangled().toBook(d.file, d.line - 1, d.column - 1);
    if (spot === undefined) return undefined;
    const diagnostic = error({ file: spot.doc, line: spot.line + 1, column: spot.character + 1 }, "compiles", `TS${d.code}: ${d.message}`, "fix the code in this block; the whole program is checked at once");
    return spans.has(spanKey(diagnostic)) ? diagnostic : undefined;
  }

  /**
   * The service's errors in `targets`, as the type-check result the compiles rule reads; each
   * one's Markdown range is recorded in `spans`. With `fresh`, a target outside it that was
   * checked before keeps its last errors.
   */
  #typeCheck(targets: readonly string[], spans: Map<string, BookRange>, fresh?: ReadonlySet<string>): TypeCheckResult {
    const started = performance.now();
    const diagnostics: CompilerDiagnostic[] = [];
    this.host.widen(targets);
    for (const target of targets) {
      let known = fresh !== undefined && !fresh.has(target) ? this.#checked.get(target) : undefined;
      if (known === undefined) {
        this.#edited.delete(target);
        const own: CompilerDiagnostic[] = [];
        const ownSpans: [string, BookRange][] = [];
        const fileName = this.host.absolute(target);
        const found = [...this.service.getSyntacticDiagnostics(fileName), ...this.service.getSemanticDiagnostics(fileName)];
        for (const d of found) {
          if (d.category !== ts.DiagnosticCategory.Error || d.start === undefined) continue;
          const from = this.positionIn(fileName, d.start);
          if (from === undefined) continue;
          const message = ts.flattenDiagnosticMessageText(d.messageText, " ");
          own.push({ file: target, line: from.line + 1, column: from.character + 1, code: d.code, message });
          const located = this.locate(fileName, d.start, d.length ?? 0);
          const a = this.tangled().toBook(target, from.line, from.character);
          if (a === undefined) continue;
          const key = spanKey({ file: a.doc, line: a.line + 1, column: a.character + 1, message: `TS${d.code}: ${message}` });
          ownSpans.push([key, located?.kind === "book" ? located.range : { doc: a.doc, start: at(a), end: at(a) }]);
        }
        known = { diagnostics: own, spans: ownSpans };
        this.#checked.set(target, known);
      }
      diagnostics.push(...known.diagnostics);
      for (const [key, range] of known.spans) spans.set(key, range);
    }
    return { compiler: "javascript", diagnostics, milliseconds: performance.now() - started };
  }

  /** A verdict without a span of its own: from its point to the end of that Markdown line. */
  #pointRange(d: Diagnostic): BookRange {
    const line = Math.max(0, d.line - 1);
    const text = (this.model.text(d.file) ?? "").split("\n")[line] ?? "";
    const character = Math.max(0, d.column - 1);
    return { doc: d.file, start: { line, character }, end: { line, character: Math.max(character, text.replace(/\r$/, "").length) } };
  }
}

function at(spot: BookSpot): { line: number; character: number } {
  return { line: spot.line, character: spot.character };
}

/** The key a type error's Markdown range is kept under: where the compiles rule places it, and its message. */
function spanKey(d: { readonly file: string; readonly line: number; readonly column: number; readonly message: string }): string {
  return `${d.file}:${d.line}:${d.column}:${d.message}`;
}
