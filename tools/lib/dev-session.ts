/**
 * `npm run dev`'s loop: on every save of a document, tangle, type-check, run the tests of the
 * changed blocks, print a verdict per block and stamp the blocks it proves.
 *
 * Order of work in a cycle: read the documents into the session's project model (scanned with
 * remark, what verify reads, with prose before blocks; only the saved documents are parsed
 * again); tangle them to disk with the ordinary incremental tangle, over that model (it writes
 * nothing when any document has an error, so the last good output stays); compare block hashes with the previous cycle (the blocks of a saved
 * document that carry no current stamp are judged too); type-check; pick the test
 * files (those that import a changed module directly, and a changed test block's own file; when
 * they leave a block unexecuted, the rest of Vitest's `related` set); run them with coverage;
 * judge; stamp. A stamp is written only if the document is still the text the cycle started
 * from; otherwise the block stays unseen, and the cycle the new save started judges it again.
 *
 * Cycles are serialized: saves during a cycle cause exactly one more.
 */
import { join } from "node:path";
import { LiterateError, formatDiagnostic, type Diagnostic } from "./diagnostics.ts";
import { blockKey, changedBlocks, devReport, directImporters, formatVerdict, judgeBlocks, wantsStamp, writtenBlockKeys, type BlockVerdict } from "./dev.ts";
import { IncrementalTypeChecker } from "./dev-typecheck.ts";
import { DevTestRunner, type DevRun } from "./dev-tests.ts";
import { listDocuments, readIfExists, writeAtomically } from "./io.ts";
import { ProjectModel } from "./project.ts";
import { definitionAnalyses, targetTrees } from "./project-code.ts";
import { applyStampEdits, type StampEdit } from "./stamps.ts";
import type { TangleResult } from "./tangle.ts";
import { runTangle } from "./tangle-run.ts";
import { isRuntime, type VerifyReport } from "./verify.ts";
import { isTypeScriptPath } from "./paths.ts";

/** What a cycle did, for the docs and for tests. */
export interface CycleReport {
  /** Tangle's errors when the documents did not tangle (nothing else ran). */
  readonly tangleErrors?: readonly Diagnostic[];
  readonly verdicts: readonly BlockVerdict[];
  /** The documents whose blocks changed. */
  readonly documents: readonly string[];
  /** The in-memory tangle of this cycle, when the documents tangled. */
  readonly result?: TangleResult;
  readonly hashes?: readonly string[];
  /** The book as dev knows it (rule 4 from the stamps), for the docs; on the first cycle and on cycles that judged blocks. */
  readonly report?: VerifyReport;
  readonly milliseconds: number;
}

/** Options of a session. */
export interface DevSessionOptions {
  readonly root: string;
  /** Where each line of output goes. */
  readonly log: (line: string) => void;
  readonly compiler?: "native" | "javascript";
}


/** One `npm run dev` process's state: the project model, the previous cycle's blocks, the warm type-checker and Vitest. */
export class DevSession {
  readonly #root: string;
  readonly #log: (line: string) => void;
  readonly #checker: IncrementalTypeChecker;
  readonly #tests: DevTestRunner;
  #previous: string[] | undefined;
  /** The documents' texts as the previous cycle left them (its stamps included). */
  #texts = new Map<string, string>();
  /** Files tangle rewrote since Vitest last ran: a cycle that judges nothing still leaves them to invalidate. */
  readonly #rewritten = new Set<string>();
  /** The documents as the last cycle read them, and what they tangle to; a cycle updates only the saved ones. */
  readonly #model = new ProjectModel({ scan: "remark" });

  constructor(options: DevSessionOptions) {
    this.#root = options.root;
    this.#log = options.log;
    this.#checker = new IncrementalTypeChecker(options.root, options.compiler === undefined ? {} : { compiler: options.compiler });
    this.#tests = new DevTestRunner(options.root);
  }

  /**
   * Runs one cycle. The first cycle only records the blocks as they are (and warms the
   * type-checker): it judges nothing, since nothing was saved yet.
   */
  async cycle(): Promise<CycleReport> {
    const started = performance.now();
    this.#model.sync(listDocuments(this.#root).map((path) => ({ path, text: readIfExists(join(this.#root, path)) ?? "" })));
    try {
      const report = runTangle({ root: this.#root, model: this.#model });
      for (const w of report.warnings) this.#log(formatDiagnostic(w));
      for (const action of report.actions) this.#rewritten.add(action.path);
    } catch (caught) {
      if (!(caught instanceof LiterateError)) throw caught;
      for (const d of caught.diagnostics) this.#log(formatDiagnostic(d));
      this.#log("dev: the documents do not tangle; the generated files are kept as they were");
      return { tangleErrors: caught.diagnostics, verdicts: [], documents: [], milliseconds: performance.now() - started };
    }
    // The texts the model holds: those tangle read when it tangled, else this cycle's own read.
    const texts = this.#model.texts();
    const result = this.#model.tangle();
    if (!result.ok) {
      // Tangle found nothing to do on disk, but a document changed after it looked; the save that changed it starts another cycle.
      return { tangleErrors: result.diagnostics.filter((d) => d.severity === "error"), verdicts: [], documents: [], milliseconds: performance.now() - started };
    }
    const hashes = this.#model.hashes();
    const first = this.#previous === undefined;
    const changed = changedBlocks(this.#previous ?? [], result, hashes);
    this.#previous = writtenBlockKeys(result, hashes);
    const saved = new Set([...texts].flatMap(([path, text]) => (this.#texts.get(path) === text ? [] : [path])));
    this.#texts = new Map(texts);
    if (!first && changed.length === 0 && saved.size === 0) return { verdicts: [], documents: [], result, hashes, milliseconds: performance.now() - started };

    const checked = await this.#checker.check();
    const sources = this.#model.derived(targetTrees);
    const { analyses, diagnostics: definitionProblems } = this.#model.derived(definitionAnalyses);
    if (first) {
      const unstamped = result.blocks.filter((b, i) => result.placements[i] !== undefined && isRuntime(analyses[i]?.kind ?? "other", analyses[i]?.typeOnly ?? false) && b.attrs.tested !== hashes[i]);
      if (unstamped.length > 0) {
        const where = unstamped.slice(0, 3).map((b) => `${b.doc}:${b.line}`);
        this.#log(`dev: ${unstamped.length} block(s) carry no current stamp (${where.join(", ")}${unstamped.length > 3 ? ", …" : ""}); each is judged when its chapter is next saved`);
      }
      const report = devReport({ result, hashes, analyses, definitionProblems, checked }, []);
      return { verdicts: [], documents: [], result, hashes, report, milliseconds: performance.now() - started };
    }
    // A saved chapter's blocks that carry no current stamp (a failed run's, or edited while dev
    // was not running) are judged with the changed ones; only changed blocks widen the tests.
    const changedSet = new Set(changed);
    const carried = result.blocks.flatMap((b, i) =>
      !changedSet.has(i) && saved.has(b.doc) && result.placements[i] !== undefined && isRuntime(analyses[i]?.kind ?? "other", analyses[i]?.typeOnly ?? false) && b.attrs.tested !== hashes[i] ? [i] : [],
    );
    const blocks = [...changed, ...carried].sort((a, b) => a - b);
    if (blocks.length === 0) return { verdicts: [], documents: [], result, hashes, milliseconds: performance.now() - started };
    const judged = (run: DevRun | undefined): BlockVerdict[] =>
      judgeBlocks(
        { result, hashes, analyses, definitionProblems, sources, checked, evidence: run?.evidence, noEvidence: run === undefined ? [] : run.problems, ran: new Set(run?.ran ?? []) },
        blocks,
      );
    // The tests to run, in widening tiers, each only while a changed block is left unexecuted
    // by a passing run: the chapters' own test files (and a changed test block's file), then
    // every test file importing a changed module, then Vitest's `related` set (through other modules).
    const runtimeChanged = blocks.filter((i) => isRuntime(analyses[i]?.kind ?? "other", analyses[i]?.typeOnly ?? false));
    const tests = new Set(changed.flatMap((i) => (analyses[i]?.kind === "test" ? (result.placements[i]?.target ?? []) : [])));
    let verdicts = judged(undefined);
    let run: DevRun | undefined;
    if (runtimeChanged.length > 0 || tests.size > 0) {
      const all = new Set(await this.#tests.testFiles());
      const docs = new Set(runtimeChanged.map((i) => result.blocks[i]?.doc));
      const ownTests = result.blocks.flatMap((b, i) => (docs.has(b.doc) && b.attrs.test ? (result.placements[i]?.target ?? []) : []));
      const modulesOf = (indices: readonly number[]): string[] => [...new Set(indices.flatMap((i) => result.placements[i]?.target ?? []).filter(isTypeScriptPath))];
      const tiers: ((unexecuted: readonly number[]) => Promise<string[]>)[] = [
        async () => ownTests,
        async (unexecuted) => directImporters([...all].map((path) => ({ path, text: readIfExists(join(this.#root, path)) ?? "" })), new Set(modulesOf(unexecuted))),
        async (unexecuted) => await this.#tests.relatedTestFiles(modulesOf(unexecuted)),
      ];
      let unexecuted: number[] = runtimeChanged.filter((i) => changedSet.has(i));
      for (const tier of tiers) {
        const more = (await tier(unexecuted)).filter((f) => all.has(f) && !tests.has(f));
        if (more.length === 0 && run !== undefined) continue;
        for (const f of more) tests.add(f);
        if (tests.size === 0) continue;
        if (run !== undefined) this.#log(`dev: ${unexecuted.length} block(s) not executed yet; adding ${more.join(", ")}`);
        run = await this.#runTests([...tests].sort());
        verdicts = judged(run);
        if (run.evidence === undefined) break;
        unexecuted = blocks.filter((i, k) => changedSet.has(i) && verdicts[k]?.kind === "code" && verdicts[k]?.tested !== true);
        if (unexecuted.length === 0) break;
      }
    }
    verdicts = this.#stamp(verdicts, texts, result, hashes, blocks);
    for (const v of verdicts) this.#log(formatVerdict(v));
    const documents = [...new Set(blocks.map((i) => result.blocks[i]?.doc ?? ""))].filter((d) => d !== "").sort();
    const milliseconds = performance.now() - started;
    this.#log(`dev: ${verdicts.length} block(s) judged in ${Math.round(milliseconds)} ms (type-check ${Math.round(checked.milliseconds)} ms${run === undefined ? "" : `, tests ${Math.round(run.milliseconds)} ms: ${run.ran.length} file(s)`})`);
    const report = devReport({ result, hashes, analyses, definitionProblems, checked }, verdicts);
    return { verdicts, documents, result, hashes, report, milliseconds };
  }

  /** Stops Vitest. */
  async close(): Promise<void> {
    await this.#tests.close();
  }

  async #runTests(files: readonly string[]): Promise<DevRun> {
    this.#log(`dev: running ${files.join(", ")}`);
    const rewritten = [...this.#rewritten];
    this.#rewritten.clear();
    return await this.#tests.run(files, rewritten);
  }

  /**
   * Writes the stamps the verdicts earn, one document at a time, each only if the document is
   * still `texts`' version; a document edited meanwhile is left alone and its blocks forgotten,
   * so the next cycle judges them again.
   */
  #stamp(verdicts: BlockVerdict[], texts: ReadonlyMap<string, string>, result: TangleResult, hashes: readonly string[], changed: readonly number[]): BlockVerdict[] {
    const edits = new Map<string, StampEdit[]>();
    for (const v of verdicts) if (wantsStamp(v)) edits.set(v.doc, [...(edits.get(v.doc) ?? []), { line: v.line, stamp: v.hash }]);
    const stampedDocs = new Set<string>();
    for (const [doc, list] of edits) {
      const text = texts.get(doc) ?? "";
      if (readIfExists(join(this.#root, doc)) !== text) {
        this.#log(`${doc}: changed while its tests ran, so its stamps were not written; judging it again`);
        this.#forget(changed.filter((i) => result.blocks[i]?.doc === doc), result, hashes);
        continue;
      }
      const stamped = applyStampEdits(text, list);
      writeAtomically(join(this.#root, doc), stamped);
      // Dev's own write is no save: the cycle it starts must not judge the document again.
      this.#texts.set(doc, stamped);
      stampedDocs.add(doc);
    }
    return verdicts.map((v) => (wantsStamp(v) && stampedDocs.has(v.doc) ? { ...v, stamped: true } : v));
  }

  /** Removes blocks from the previous cycle's record, so the next cycle sees them as changed. */
  #forget(blocks: readonly number[], result: TangleResult, hashes: readonly string[]): void {
    for (const i of blocks) {
      const key = blockKey(result.blocks[i]?.doc ?? "", hashes[i] ?? "");
      const at = this.#previous?.indexOf(key) ?? -1;
      if (at >= 0) this.#previous?.splice(at, 1);
    }
  }
}
