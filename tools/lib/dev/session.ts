/**
 * `npm run dev`'s loop: on every save of a document, tangle, type-check, run the tests of the
 * changed blocks, print a verdict per block and stamp the blocks it proves; then, in the
 * background, run the changed blocks' mutants.
 *
 * One read per save: the watcher names the saved documents, and only they are read into the
 * session's project model (scanned with remark, what verify reads); tangle takes every text from
 * that model (it writes nothing when any document has an error, so the last good output stays).
 * A stamp dev writes goes into the model too, and the watcher's echo of that write is recognised
 * by the file's stat, so it neither reads the document again nor starts a cycle.
 *
 * Verdicts stream, what is known first printed first: after the type-check, a changed block that
 * does not compile gets its verdict at once, at the error's Markdown line and column; then the
 * tests run (the chapters' own test files, then every test file importing a changed module, then
 * Vitest's `related` set, each tier only while a changed block that compiles is left unexecuted:
 * one that does not earns no stamp, so no wider run is sought for it), then every verdict with its
 * evidence, and the stamps; then the chapters' mutants, in a child `mutate` process, and the
 * survivors at their Markdown lines. Every verdict is the judge's
 * (`judge.ts`), the same verify gives. A newer save cancels the older one's mutation run.
 *
 * Cycles are serialized by the caller: saves during a cycle cause exactly one more.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LiterateError, formatDiagnostic, type Diagnostic } from "../core/diagnostics.ts";
import { blockKey, changedBlocks, compileChanges, devTestFacts, directImporters, formatCompileChange, formatVerdict, verdictsOf, wantsStamp, writtenBlockKeys, type BlockVerdict } from "./verdicts.ts";
import { IncrementalTypeChecker } from "../runners/typecheck.ts";
import { DevTestRunner, type DevRun } from "../runners/vitest.ts";
import { listDocuments, readIfExists, statIfExists, writeAtomically, type StatStamp } from "../disk/io.ts";
import { factsOf, judge, judgeAhead, type Facts, type Judgement } from "../rules/judge.ts";
import { describeSurvivor } from "../core/mutation.ts";
import { ProjectModel } from "../core/project.ts";
import { definitionAnalyses } from "../core/project-code.ts";
import { isRuntime } from "../rules/rule.ts";
import { applyStampEdits, type StampEdit } from "../core/stamps.ts";
import type { TangleResult } from "../core/tangle.ts";
import { runTangle } from "../commands/tangle-run.ts";
import { programFiles, readRecords, type VerifyReport } from "../commands/verify.ts";
import { isTypeScriptPath } from "../core/paths.ts";
import { valueAt } from "../core/maps.ts";

/** What a cycle did, for the docs. */
export interface CycleReport {
  /** Tangle's errors when the documents did not tangle (nothing else ran). */
  readonly tangleErrors?: readonly Diagnostic[];
  /** The documents whose blocks changed. */
  readonly documents: readonly string[];
  /** The judge's report of the whole book as dev knows it, for the docs; on the first cycle and on cycles that judged blocks. */
  readonly report?: VerifyReport;
  /** Every document's text as the session holds it after the cycle (its stamps included), for the docs; with `report`. */
  readonly texts?: ReadonlyMap<string, string>;
}

/** Options of a session. */
export interface DevSessionOptions {
  readonly root: string;
  /** Where each line of output goes. */
  readonly log: (line: string) => void;
  readonly compiler?: "native" | "javascript";
  /** Called with the report a background mutation run changed (its survivors now judged); default: nothing. */
  readonly onLateReport?: (report: CycleReport) => void;
  /** Called after a save's documents were read (with every document's text), before its verdicts; default: nothing. */
  readonly onRead?: (documents: ReadonlyMap<string, string>) => void;
  /** What a save's mutation run waits for after its verdicts (`npm run dev`: the docs build of its page); default: nothing. */
  readonly beforeMutation?: () => Promise<void>;
  /** Run the changed blocks' mutants after their verdicts (default true); `--no-mutate` turns it off. */
  readonly mutate?: boolean;
  /**
   * Only keep the docs current (`--docs-only`, `npm run docs:serve`): every save is tangled,
   * type-checked and judged as the first cycle is, on the stamps as they stand; no test runs,
   * no stamp is written, no mutant is run.
   */
  readonly docsOnly?: boolean;
}

/** How long the saves must pause, after a save's page, before its mutants start. */
const mutationQuietMs = 1500;

/** The launcher of the toolchain's CLIs (`tools/run.cjs`), for the children dev starts (`mutate`, the docs worker). */
export const launcher = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "run.cjs");

/** After how long a test run that has not ended is reported, with how to stop it. */
const slowRunNoticeMs = 10_000;

/** One `npm run dev` process's state: the project model, the previous cycle's blocks, the warm type-checker and Vitest. */
export class DevSession {
  readonly #root: string;
  readonly #log: (line: string) => void;
  readonly #options: DevSessionOptions;
  readonly #checker: IncrementalTypeChecker;
  readonly #tests: DevTestRunner;
  readonly #mutate: boolean;
  readonly #docsOnly: boolean;
  #previous: string[] | undefined;
  /** The keys (`blockKey`) of the blocks that failed to compile after the last check. */
  #failingToCompile: ReadonlySet<string> = new Set();
  /** The type-check's errors outside every block (a `tsconfig.json` that does not parse, a hand-written module), as printed. */
  #failingOutside: ReadonlySet<string> = new Set();
  /** Files tangle rewrote since Vitest last ran: a cycle that judges nothing still leaves them to invalidate. */
  readonly #rewritten = new Set<string>();
  /** The documents as the session knows them, and what they tangle to; a cycle updates only the saved ones. */
  readonly #model = new ProjectModel({ scan: "remark" });
  /** The stat of each document as dev's own stamp write left it: the watcher's echo of that write is no save. */
  readonly #ownWrites = new Map<string, StatStamp>();
  /** The files tsconfig.json's program holds, and the stat of tsconfig.json they were listed under. */
  #inProgram: { readonly config: string; readonly files: ReadonlySet<string> } | undefined;
  #records: Map<string, string | undefined> | undefined;
  #reads = 0;
  /** The stat of each document as dev last read it. */
  readonly #readStats = new Map<string, string>();
  /** The documents of a cycle whose tests a newer save stopped: the next cycle judges their blocks again, changed or not. */
  readonly #unjudged = new Set<string>();
  /** The facts of the last judgement, kept for the background re-judge of rule 5 (no second tangle). */
  #lastFacts: Facts | undefined;
  /** The mutation run in the background, if any, and the cycle it is for. */
  #mutation: ChildProcess | undefined;
  #generation = 0;
  #closed = false;

  constructor(options: DevSessionOptions) {
    this.#root = options.root;
    this.#log = options.log;
    this.#options = options;
    this.#docsOnly = options.docsOnly ?? false;
    this.#mutate = !this.#docsOnly && (options.mutate ?? true);
    this.#checker = new IncrementalTypeChecker(options.root, options.compiler === undefined ? {} : { compiler: options.compiler });
    this.#tests = new DevTestRunner(options.root);
  }

  /**
   * Runs one cycle for the saved documents `saved` (project-relative; all of them on the first
   * cycle, or when not named). The first cycle only records the blocks as they are (and warms the
   * type-checker): it judges nothing, since nothing was saved yet.
   */
  async cycle(saved?: readonly string[]): Promise<CycleReport> {
    const started = performance.now();
    const before = { reads: this.#reads, tangles: this.#model.counts.tangles };
    const first = this.#previous === undefined;
    const changedDocs = [...new Set([...this.#read(first || saved === undefined ? undefined : saved), ...this.#unjudged])].sort();
    this.#unjudged.clear();
    if (!first && changedDocs.length === 0) return { documents: [] };
    // Only a cycle that read a change is newer than a mutation run in the background: the
    // watcher's echo of dev's own stamp write must not make that run's survivors go unreported.
    this.#generation++;
    if (!first) this.#options.onRead?.(this.#model.texts());
    // A newer save: the older one's mutants are of code that is gone.
    this.#cancelMutation();
    try {
      const report = runTangle({ root: this.#root, model: this.#model });
      for (const w of report.warnings) this.#log(formatDiagnostic(w));
      for (const action of report.actions) this.#rewritten.add(action.path);
    } catch (caught) {
      if (!(caught instanceof LiterateError)) throw caught;
      for (const d of caught.diagnostics) this.#log(formatDiagnostic(d));
      this.#log("dev: tangle stopped on the problem(s) above; the generated files are kept as they were");
      return { tangleErrors: caught.diagnostics, documents: [] };
    }
    const result = this.#model.tangle();
    const hashes = this.#model.hashes();
    const changed = changedBlocks(this.#previous ?? [], result, hashes);
    const removed = (this.#previous?.length ?? 0) + changed.length - result.placements.filter((p) => p !== undefined).length;
    this.#previous = writtenBlockKeys(result, hashes);

    // The book's program: what a block's verdict depends on (verify checks the whole project).
    const modules = result.targets.map((t) => t.path).filter(isTypeScriptPath);
    const checking = this.#checker.check(modules);
    // Listed again when tsconfig.json changed or a module is not in the list (a chapter added since).
    const config = JSON.stringify(statIfExists(join(this.#root, "tsconfig.json")) ?? null);
    if (this.#inProgram === undefined || this.#inProgram.config !== config || modules.some((m) => !this.#inProgram?.files.has(m))) this.#inProgram = { config, files: programFiles(this.#root) };
    const inProgram = this.#inProgram.files;
    this.#records ??= readRecords(this.#root, this.#model.paths);
    const { analyses } = this.#model.derived(definitionAnalyses);
    const runtime = (i: number): boolean => result.placements[i] !== undefined && isRuntime(analyses[i]?.kind ?? "other", analyses[i]?.typeOnly ?? false);
    if (first || this.#docsOnly) {
      const known = { checked: await checking, inProgram, records: this.#records };
      const unstamped = result.blocks.filter((b, i) => runtime(i) && b.attrs.tested !== hashes[i]);
      if (first && unstamped.length > 0) {
        const where = unstamped.slice(0, 3).map((b) => `${b.doc}:${b.line}`);
        const when = this.#docsOnly ? "`npm run dev` or `npm run verify -- --stamp` judges it" : "each is judged when its chapter is next saved";
        this.#log(`dev: ${unstamped.length} block(s) carry no current stamp (${where.join(", ")}${unstamped.length > 3 ? ", …" : ""}); ${when}`);
      }
      const judged = judge(factsOf(this.#model, { ...known, tests: devTestFacts(new Set(), undefined, () => undefined) }));
      if (!this.#docsOnly) this.#reportCompileChanges(judged, result, hashes, new Set(), `dev: {n} block(s) do not compile:`);
      // Vitest starts while the author reads the first lines, not on the first save (about a
      // second of it); a failure to start is the first run's to report.
      if (first && !this.#docsOnly) this.#tests.testFiles().catch(() => undefined);
      return { documents: first ? [] : changedDocs, report: this.#report(judged, known.checked), texts: this.#model.texts() };
    }
    // A saved chapter's blocks that carry no current stamp (a failed run's, or edited while dev
    // was not running) are judged with the changed ones; only changed blocks widen the tests.
    const changedSet = new Set(changed);
    const savedSet = new Set(changedDocs);
    const carried = result.blocks.flatMap((b, i) => (!changedSet.has(i) && savedSet.has(b.doc) && runtime(i) && b.attrs.tested !== hashes[i] ? [i] : []));
    const blocks = [...changed, ...carried].sort((a, b) => a - b);
    if (blocks.length === 0) {
      // No block to judge (a block removed, prose edited), but the book may compile differently now.
      const checked = await checking;
      const judged = judge(factsOf(this.#model, { checked, inProgram, records: this.#records, tests: devTestFacts(new Set(), undefined, () => undefined) }));
      const failing = this.#reportCompileChanges(judged, result, hashes, new Set(), "dev: this save changed whether {n} other block(s) compile:");
      const what = removed > 0 ? `${removed} block(s) removed, none changed` : "no block changed";
      this.#log(`dev: ${changedDocs.join(", ")}: ${what} (type-check ${Math.round(checked.milliseconds)} ms)${failing > 0 ? `; ${failing} block(s) do not compile` : ""}`);
      return { documents: [] };
    }
    const scope = new Set(blocks);
    const runtimeChanged = blocks.filter(runtime);
    const tests = new Set(changed.flatMap((i) => (analyses[i]?.kind === "test" ? (result.placements[i]?.target ?? []) : [])));
    const docs = new Set(runtimeChanged.map((i) => result.blocks[i]?.doc));
    const ownTests = result.blocks.flatMap((b, i) => (docs.has(b.doc) && b.attrs.test ? (result.placements[i]?.target ?? []) : []));
    const testing = runtimeChanged.length > 0 || tests.size > 0;
    // While the compiler runs (on one thread, in its own process): the test files are listed, and
    // what needs neither the type-check nor the tests is judged. The tests run after the check:
    // beside it, on two cores, they slowed it by as much as they saved.
    const listing = testing ? this.#tests.testFiles() : Promise.resolve([]);
    listing.catch(() => {});
    judgeAhead(this.#model, { inProgram, records: this.#records });
    const checked = await checking;
    const known = { checked, inProgram, records: this.#records };

    // What is known first: a block that does not compile has its verdict now, before any test result.
    const judgedEarly = judge(factsOf(this.#model, { ...known, tests: devTestFacts(scope, undefined, () => undefined) }));
    const early = verdictsOf(judgedEarly, result, blocks, undefined);
    const broken = new Set(blocks.filter((_, k) => early[k]?.compiles === false));
    for (const [k, v] of early.entries()) if (broken.has(blocks[k] ?? -1)) this.#log(formatVerdict(v));
    // And the blocks elsewhere it broke (an export renamed) or mended, which no test run judges.
    const failingElsewhere = this.#reportCompileChanges(judgedEarly, result, hashes, scope, "dev: this save changed whether {n} other block(s) compile:");

    // Its tests still run with the others' (what they prove is shown), but no wider run is sought
    // for it: a block that does not compile earns no stamp, whatever ran.
    let run: DevRun | undefined;
    /** The judgement of the last run's evidence, made to decide on a wider run: the verdicts reuse it. */
    let judgedRun: { readonly run: DevRun; readonly judged: Judgement } | undefined;
    if (testing) {
      const all = new Set(await listing);
      for (const f of ownTests) if (all.has(f)) tests.add(f);
      run = tests.size > 0 ? await this.#runTests([...tests].sort()) : undefined;
      const unexecutedAfter = (done: DevRun | undefined): number[] => {
        judgedRun = done === undefined ? undefined : { run: done, judged: this.#judge(known, scope, done) };
        const executed = judgedRun?.judged.tested.executed ?? new Set<number>();
        return runtimeChanged.filter((i) => changedSet.has(i) && !broken.has(i) && !executed.has(i));
      };
      // A failed run proves nothing more by widening: its failures are the verdict.
      let unexecuted = run !== undefined && run.evidence === undefined ? [] : unexecutedAfter(run);
      for (const tier of ["importers", "related"] as const) {
        if (unexecuted.length === 0) break;
        const modules = [...new Set(unexecuted.flatMap((i) => result.placements[i]?.target ?? []).filter(isTypeScriptPath))];
        const found = tier === "importers" ? directImporters([...all].map((path) => ({ path, text: readIfExists(join(this.#root, path)) ?? "" })), new Set(modules)) : await this.#tests.relatedTestFiles(modules);
        const more = found.filter((f) => all.has(f) && !tests.has(f));
        if (more.length === 0) continue;
        for (const f of more) tests.add(f);
        this.#log(`dev: ${unexecuted.length} block(s) not executed yet; adding ${more.join(", ")}`);
        run = await this.#runTests([...tests].sort());
        if (run.evidence === undefined) break;
        unexecuted = unexecutedAfter(run);
      }
    }
    if (run?.stopped === true) {
      // A newer save stopped the tests: what they ran is no evidence. Its cycle judges these blocks again.
      this.#forget(blocks, result, hashes);
      for (const doc of blocks.flatMap((i) => result.blocks[i]?.doc ?? [])) this.#unjudged.add(doc);
      this.#log(`dev: ${run.problems[0]?.message ?? "the run was stopped"}; its ${blocks.length} block(s) are judged with that save`);
      return { documents: [] };
    }
    let judged = judgedRun !== undefined && judgedRun.run === run ? judgedRun.judged : this.#judge(known, scope, run);
    const ran = new Set(run?.evidence === undefined ? [] : run.ran);
    let verdicts = verdictsOf(judged, result, blocks, ran);
    const texts = this.#model.texts();
    const written = this.#stamp(verdicts, blocks, result, hashes, texts);
    if (written.size > 0) {
      judged = this.#judge(known, scope, run, written);
      verdicts = verdictsOf(judged, result, blocks, ran);
    }
    for (const v of verdicts) this.#log(formatVerdict(v));
    const documents = [...new Set(blocks.flatMap((i) => result.blocks[i]?.doc ?? []))].sort();
    const milliseconds = performance.now() - started;
    const work = `${this.#reads - before.reads} document(s) read, book tangled ${this.#model.counts.tangles - before.tangles} time(s)`;
    const elsewhere = failingElsewhere > 0 ? `; ${failingElsewhere} other block(s) do not compile` : "";
    this.#log(`dev: ${verdicts.length} block(s) judged in ${Math.round(milliseconds)} ms (type-check ${Math.round(checked.milliseconds)} ms${run === undefined ? "" : `, tests ${Math.round(run.milliseconds)} ms: ${run.ran.length} file(s)`}; ${work})${elsewhere}`);
    const cycle: CycleReport = { documents, report: this.#report(judged, checked), texts };
    // The model takes the stamped texts now that every judgement of this save is made: the next save tangles them.
    const facts = this.#lastFacts;
    for (const [doc, text] of texts) this.#model.update(doc, text);
    if (this.#mutate && facts !== undefined) this.#mutateLater(cycle, judged, blocks, facts);
    return cycle;
  }

  /**
   * The documents dev stamped whose file has changed since (their stat is no longer that of dev's
   * write): saves the watcher may not have reported. An author's save a few tens of milliseconds
   * after dev's atomic stamp write reached no watcher event (chokidar folds the events of a path
   * replaced by a rename), so the caller asks this once the events have settled. Each is then read
   * by the next cycle like any save.
   */
  unseenSaves(): string[] {
    return [...this.#ownWrites.keys()].filter((path) => !this.#isOwnWrite(path, statIfExists(join(this.#root, path)))).sort();
  }

  /** Whether `stat` of `path` is that of dev's own last write of it; when not, dev's write is forgotten (the file is someone's save). */
  #isOwnWrite(path: string, stat: StatStamp | undefined): boolean {
    const own = this.#ownWrites.get(path);
    if (own !== undefined && stat !== undefined && stat.size === own.size && stat.mtimeMs === own.mtimeMs) return true;
    this.#ownWrites.delete(path);
    return false;
  }

  /** Stops Vitest and a mutation run. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelMutation();
    await this.#tests.close();
  }

  /**
   * Prints the blocks outside `scope` whose compile state this check changed (`compileChanges`),
   * under `heading` (`{n}` is their number), and remembers which fail now; returns how many
   * blocks outside `scope` fail to compile.
   */
  #reportCompileChanges(judged: Judgement, result: TangleResult, hashes: readonly string[], scope: ReadonlySet<number>, heading: string): number {
    const changes = compileChanges(judged, result, hashes, scope, this.#failingToCompile);
    this.#failingToCompile = changes.failing;
    // Errors in no block are no block's verdict, yet may be why blocks fail (the options of a
    // broken configuration): each is printed when it appears, and their end is said once.
    const outside = new Set(judged.problems.filter((p) => p.rule === "compiles" && p.severity === "error" && !p.file.endsWith(".md")).map(formatDiagnostic));
    const appeared = [...outside].filter((line) => !this.#failingOutside.has(line));
    if (appeared.length > 0) this.#log(`dev: the type-check reports ${appeared.length} error(s) outside the blocks:\n${appeared.join("\n")}`);
    else if (outside.size === 0 && this.#failingOutside.size > 0) this.#log("dev: the type-check's errors outside the blocks are gone");
    this.#failingOutside = outside;
    const shown = [...changes.broken, ...changes.mended].sort((a, b) => a - b);
    if (shown.length > 0) this.#log(heading.replace("{n}", String(shown.length)));
    for (const i of shown) {
      const report = judged.blocks[i];
      if (report !== undefined) this.#log(formatCompileChange(report));
    }
    return result.blocks.filter((_, i) => !scope.has(i) && judged.blocks[i]?.checks.compiles === false).length;
  }

  /** The judge over the model, with a dev run's evidence for `scope`, and the stamps written this cycle. */
  #judge(known: Pick<Facts, "checked" | "inProgram" | "records">, scope: ReadonlySet<number>, run: DevRun | undefined, stamps: ReadonlyMap<number, string> = new Map()): Judgement {
    const why = (): string => "no test file imports its module, directly or through other modules";
    const tests = { ...devTestFacts(scope, run, why), stamps };
    this.#lastFacts = factsOf(this.#model, { ...known, tests });
    return judge(this.#lastFacts);
  }

  #report(judged: Judgement, checked: { readonly compiler: string; readonly milliseconds: number }): VerifyReport {
    return { ok: judged.ok, blocks: judged.blocks, documents: judged.documents, problems: judged.problems, typeCheck: { compiler: checked.compiler, milliseconds: checked.milliseconds }, mutation: judged.mutation };
  }

  /**
   * Reads the documents `paths` (every document when undefined) into the model, skipping the
   * watcher's echo of dev's own stamp writes; returns the paths whose text changed.
   */
  #read(paths: readonly string[] | undefined): string[] {
    const listed = paths ?? listDocuments(this.#root);
    const changed: string[] = [];
    for (const path of listed) {
      const stat = statIfExists(join(this.#root, path));
      if (this.#isOwnWrite(path, stat)) continue;
      if (stat !== undefined) this.#reads++;
      this.#readStats.set(path, JSON.stringify(stat ?? null));
      const text = stat === undefined ? undefined : readIfExists(join(this.#root, path));
      if (text === undefined ? this.#model.remove(path) : this.#model.update(path, text)) changed.push(path);
    }
    if (paths === undefined) for (const path of this.#model.paths) if (!listed.includes(path) && this.#model.remove(path)) changed.push(path);
    return changed.sort();
  }

  async #runTests(files: readonly string[]): Promise<DevRun> {
    this.#log(`dev: running ${files.join(", ")}`);
    const rewritten = [...this.#rewritten];
    this.#rewritten.clear();
    const notice = setTimeout(() => this.#log(`dev: the tests have run for ${slowRunNoticeMs / 1000} s; if one never ends (a loop that never exits), saving a chapter stops them`), slowRunNoticeMs);
    try {
      return await this.#tests.run(files, rewritten);
    } finally {
      clearTimeout(notice);
    }
  }

  /**
   * Stops the tests in progress when `path` (a document) was saved by someone other than dev: the
   * save is judged next, and a test that never ends (a loop that never exits) would hold it forever.
   */
  stopTestsFor(path: string): void {
    const stat = statIfExists(join(this.#root, path));
    // A late event of the save this cycle read, or the echo of dev's own write, is no newer save.
    if (this.#readStats.get(path) === JSON.stringify(stat ?? null) || this.#isOwnWrite(path, stat)) return;
    this.#tests.stop(`${path} was saved again`);
  }

  /**
   * Writes the stamps the verdicts earn, one document at a time, each only if the document on
   * disk is still the model's text; `texts` takes the stamped text (the model takes it once the
   * cycle's judgements are made). A document edited meanwhile is left alone and its blocks
   * forgotten, so the next cycle judges them again.
   * Returns the stamp written for each block stamped.
   */
  #stamp(verdicts: readonly BlockVerdict[], blocks: readonly number[], result: TangleResult, hashes: readonly string[], texts: Map<string, string>): Map<number, string> {
    const edits = new Map<string, { readonly edit: StampEdit; readonly index: number }[]>();
    verdicts.forEach((v, k) => {
      if (wantsStamp(v)) valueAt(edits, v.doc, () => []).push({ edit: { line: v.line, stamp: v.hash }, index: blocks[k] ?? -1 });
    });
    const stamped = new Map<number, string>();
    for (const [doc, list] of edits) {
      const text = this.#model.text(doc) ?? "";
      if (readIfExists(join(this.#root, doc)) !== text) {
        this.#log(`${doc}: changed while its tests ran, so its stamps were not written; judging it again`);
        this.#forget(blocks.filter((i) => result.blocks[i]?.doc === doc), result, hashes);
        continue;
      }
      const next = applyStampEdits(text, list.map((e) => e.edit));
      writeAtomically(join(this.#root, doc), next);
      // Dev's own write is no save: the model holds it, and the watcher's echo is skipped by its stat.
      const stat = statIfExists(join(this.#root, doc));
      if (stat !== undefined) this.#ownWrites.set(doc, stat);
      texts.set(doc, next);
      for (const e of list) stamped.set(e.index, e.edit.stamp ?? "");
    }
    return stamped;
  }

  /** Removes blocks from the previous cycle's record, so the next cycle sees them as changed. */
  #forget(blocks: readonly number[], result: TangleResult, hashes: readonly string[]): void {
    for (const i of blocks) {
      const key = blockKey(result.blocks[i]?.doc ?? "", hashes[i] ?? "");
      const at = this.#previous?.indexOf(key) ?? -1;
      if (at >= 0) this.#previous?.splice(at, 1);
    }
  }

  /**
   * The background step of a cycle: the chapters whose judged blocks are not pinned (a changed
   * block's record is stale) are mutated by `npm run mutate -- --chapter NAME` in a child, which
   * reruns only the blocks whose code changed; then the judge runs again over the new records,
   * and each block's survivors are printed at their Markdown place. Only chapters that keep a
   * record are mutated (a book that never ran `mutate` is not judged by rule 5).
   */
  #mutateLater(cycle: CycleReport, judged: Judgement, blocks: readonly number[], facts: Facts): void {
    const records = this.#records ?? new Map<string, string | undefined>();
    const chapters = [...new Set(blocks.filter((i) => judged.blocks[i]?.checks.pinned === false && judged.blocks[i]?.checks.compiles === true).map((i) => judged.blocks[i]?.doc ?? ""))].filter((doc) => records.get(doc) !== undefined);
    if (chapters.length === 0) return;
    const generation = this.#generation;
    const started = performance.now();
    this.#log(`dev: mutating ${chapters.join(", ")} in the background`);
    void (async () => {
      // Once the caller's work for this save is done (the docs build of its page): StrykerJS on
      // both cores would hold that up. Then once the saves pause: a run started between two
      // quick saves is cancelled by the second, after costing its verdict both cores. A newer
      // save, or the end of the session, meanwhile: no run.
      await new Promise((resolve) => setImmediate(resolve));
      await this.#options.beforeMutation?.();
      await new Promise((resolve) => setTimeout(resolve, mutationQuietMs));
      if (generation !== this.#generation || this.#closed) return;
      const names = chapters.map((doc) => doc.replace(/^literate\//, "").replace(/\.md$/, ""));
      // Its own process group, so that a newer save stops StrykerJS's workers with it.
      const child = spawn(process.execPath, [launcher, "mutate", "--root", this.#root, ...names.flatMap((n) => ["--chapter", n])], { cwd: this.#root, stdio: ["ignore", "pipe", "pipe"], detached: true });
      this.#mutation = child;
      let output = "";
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      child.once("close", (code) => {
        if (this.#mutation === child) this.#mutation = undefined;
        if (generation !== this.#generation) return;
        if (code !== 0) {
          this.#log(`dev: the mutation run failed (exit ${code ?? "killed"}):\n${output.trim().split("\n").slice(-5).join("\n")}`);
          return;
        }
        this.#records = readRecords(this.#root, this.#model.paths);
        const again = judge({ ...facts, records: this.#records });
        for (const i of blocks) {
          const report = again.blocks[i];
          if (report?.mutation === undefined || !chapters.includes(report.doc)) continue;
          const m = report.mutation;
          const head = `${report.doc}:${report.line} pinned ${report.checks.pinned ? "✓" : "✗"} mutants ${m.score === undefined ? "none" : `${m.score.toFixed(0)}%`} (${m.killed} killed, ${m.survived} survive${m.equivalent > 0 ? `, ${m.equivalent} declared equivalent${m.assumed > 0 ? ` (${m.assumed} under an assumption)` : ""}` : ""}) after ${Math.round(performance.now() - started)} ms`;
          this.#log([head, ...m.survivors.map((s) => `    ${describeSurvivor(report.doc, s)}`)].join("\n"));
        }
        this.#options.onLateReport?.({ ...cycle, report: this.#report(again, cycle.report?.typeCheck ?? { compiler: "", milliseconds: 0 }) });
      });
    })();
  }

  #cancelMutation(): void {
    const child = this.#mutation;
    this.#mutation = undefined;
    if (child === undefined || child.exitCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      child.kill("SIGTERM");
    }
  }
}
