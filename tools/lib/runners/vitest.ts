/**
 * The tests of `npm run dev`: one Vitest instance kept alive in the process, created on the
 * first run, that runs a few test files with coverage on each save.
 *
 * It is the project's own `vitest.config.ts` with three things overridden: coverage is on (v8,
 * remapped to Markdown lines by tangle's source maps, as in `npm test`), its report goes to
 * `.cache/dev/coverage` so the evidence of the last full run in `coverage/` is never replaced by
 * a partial one, and the only reporter is one that keeps the run's coverage map in memory. The
 * files tangle rewrote are invalidated in Vite's module graph before a run, so a test imports
 * the code as it is now.
 */
import { existsSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { stripVTControlCharacters } from "node:util";
import type { CoverageProvider, TestModule, Vitest } from "vitest/node";
import { LiterateError, error, type Diagnostic } from "../core/diagnostics.ts";
import type { TestEvidence } from "../core/evidence.ts";
import { StoppableForks } from "./stoppable-forks.ts";
import { documentEvidence, isIstanbulFile, type IstanbulFile } from "./vitest-evidence.ts";

/** What one run proved, or why it proved nothing. */
export interface DevRun {
  /** The test files that ran (project-relative). */
  readonly ran: readonly string[];
  /** Set when `stop` ended the run before its tests did: it proves nothing, and `problems` says why. */
  readonly stopped?: true;
  /** The evidence, when every test passed and the coverage was collected. */
  readonly evidence?: TestEvidence;
  /** Why there is no evidence: the failed tests, each at its test file. */
  readonly problems: readonly Diagnostic[];
  readonly milliseconds: number;
}

/** A long-lived Vitest for a project root. Runs are serialized by the caller. */
export class DevTestRunner {
  readonly #root: string;
  #vitest: Promise<Vitest> | undefined;
  #coverage: unknown;
  /** The run in progress, which `close` lets end (stopped) before it closes Vitest, and why `stop` ended it, once it has. */
  #inFlight: Promise<DevRun> | undefined;
  #stoppedBecause: string | undefined;
  readonly #forks = new StoppableForks();

  constructor(root: string) {
    this.#root = resolve(root);
  }

  /**
   * The Vitest instance, created on the first call. One that cannot start (a broken
   * `vitest.config.ts`) is the user's error, at the configuration file; the next call tries again.
   */
  #instance(): Promise<Vitest> {
    this.#vitest ??= this.#start().catch((caught: unknown) => {
      this.#vitest = undefined;
      throw startFailure(this.#root, caught);
    });
    return this.#vitest;
  }

  async #start(): Promise<Vitest> {
    const { createVitest } = await import("vitest/node");
    const keep = { onCoverage: (coverage: unknown): void => void (this.#coverage = coverage) };
    const signals = ["SIGINT", "SIGTERM"] as const;
    const before = signals.map((signal) => new Set(process.listeners(signal)));
    try {
      const vitest = await createVitest("test", {
        root: this.#root,
        watch: false,
        reporters: [keep],
        pool: this.#forks.pool,
        coverage: { enabled: true, provider: "v8", reporter: [], reportsDirectory: join(this.#root, ".cache", "dev", "coverage") },
      });
      await vitest.standalone();
      settleCoverageWrites(await vitest.createCoverageProvider());
      return vitest;
    } finally {
      // Vitest's logger exits the process on Ctrl-C (with a code of its own); `npm run dev` closes
      // itself, Vitest included, and exits 0.
      signals.forEach((signal, i) => {
        for (const listener of process.listeners(signal)) if (!before[i]?.has(listener)) process.off(signal, listener);
      });
    }
  }

  /**
   * Every test file of the project (project-relative), as the configuration selects them now:
   * Vitest keeps the list it globbed first, which would leave out a chapter's test file tangled
   * since (a new chapter's tests never ran) and keep a deleted one.
   */
  async testFiles(): Promise<string[]> {
    const vitest = await this.#instance();
    vitest.clearSpecificationsCache();
    const specs = await vitest.globTestSpecifications();
    return [...new Set(specs.map((s) => this.#projectPath(s.moduleId)))].sort();
  }

  /**
   * The test files that import one of `modules` (project-relative), directly or through other
   * modules: Vitest's `related` selection, from its module graph.
   */
  async relatedTestFiles(modules: readonly string[]): Promise<string[]> {
    const vitest = await this.#instance();
    const config = vitest.config as { related?: string[] };
    config.related = modules.map((m) => join(this.#root, m));
    try {
      const specs = await vitest.getRelevantTestSpecifications();
      return [...new Set(specs.map((s) => this.#projectPath(s.moduleId)))].sort();
    } finally {
      delete config.related;
    }
  }

  /** Runs `files` (project-relative test files) with coverage, after invalidating `changed` (files tangle rewrote); `stop` ends it early. */
  run(files: readonly string[], changed: readonly string[]): Promise<DevRun> {
    this.#stoppedBecause = undefined;
    this.#forks.resume();
    const run = this.#run(files, changed).finally(() => {
      if (this.#inFlight === run) this.#inFlight = undefined;
    });
    this.#inFlight = run;
    return run;
  }

  async #run(files: readonly string[], changed: readonly string[]): Promise<DevRun> {
    const started = performance.now();
    const startTime = Date.now();
    const vitest = await this.#instance();
    for (const path of changed) vitest.invalidateFile(join(this.#root, path));
    this.#coverage = undefined;
    vitest.clearSpecificationsCache();
    const specs = (await vitest.globTestSpecifications(files.map((f) => join(this.#root, f)))).filter((s) => files.includes(this.#projectPath(s.moduleId)));
    const found = new Set(specs.map((s) => this.#projectPath(s.moduleId)));
    const missing = files.filter((f) => !found.has(f));
    if (missing.length > 0) {
      const problems = missing.map((f) => error({ file: f, line: 0, column: 0 }, "tested", `\`${f}\` is not a test file Vitest runs`, "check that it exists and that `include` in vitest.config.ts selects it"));
      return { ran: [], problems, milliseconds: performance.now() - started };
    }
    let result: Awaited<ReturnType<Vitest["runTestSpecifications"]>> | undefined;
    // Stopped before its tests started (`stop` came while the files were listed), it starts none.
    if (this.#stoppedBecause === undefined) {
      try {
        result = await vitest.runTestSpecifications(specs, false);
      } catch (failed) {
        return { ran: [], problems: [failedRun(this.#root, failed)], milliseconds: performance.now() - started };
      }
    }
    const because = this.#stoppedBecause;
    if (because !== undefined || result === undefined) {
      const problem = error({ file: "test run", line: 0, column: 0 }, "tested", `the run was stopped: ${because ?? "?"}`, "a test that never ends (a loop that never exits) is stopped the same way");
      return { ran: [], stopped: true, problems: [problem], milliseconds: performance.now() - started };
    }
    // Vitest's state keeps every file any run of this instance ran: this run's are the ones asked for.
    const modules = result.testModules.filter((m) => files.includes(this.#projectPath(m.moduleId)));
    const ran = modules.map((m) => this.#projectPath(m.moduleId));
    const problems = [...modules.flatMap((m) => this.#failures(m)), ...result.unhandledErrors.map((e) => error({ file: "test run", line: 0, column: 0 }, "tested", `unhandled error: ${errorMessage(e)}`, "an error escaped a test; fix it so the run can pass"))];
    const milliseconds = performance.now() - started;
    if (problems.length > 0) return { ran, problems, milliseconds };
    const coverage = plainCoverage(this.#coverage);
    if (coverage === undefined) return { ran, problems: [error({ file: "test run", line: 0, column: 0 }, "tested", "the run collected no coverage", "check `coverage` in vitest.config.ts")], milliseconds };
    const tests = modules.reduce((n, m) => n + [...m.children.allTests()].length, 0);
    const evidence: TestEvidence = { tests: { total: tests, passed: tests, failed: 0 }, startTime, testFiles: ran, documents: documentEvidence(this.#root, coverage) };
    return { ran, evidence, problems: [], milliseconds };
  }

  /**
   * Ends the run in progress, if any, for `because`: its workers are killed, as a test that never
   * returns (a loop that never exits) answers nothing else, and the run returns `stopped`. The
   * next run starts new workers.
   */
  stop(because: string): void {
    if (this.#inFlight === undefined || this.#stoppedBecause !== undefined) return;
    this.#stoppedBecause = because;
    this.#forks.stop();
  }

  /** Stops the instance (and its workers, first, should a test never end). */
  async close(): Promise<void> {
    this.stop("dev is closing");
    await this.#inFlight?.catch(() => undefined);
    if (this.#vitest === undefined) return;
    const vitest = await this.#vitest.catch(() => undefined);
    // Closing waits for Vitest's own work too: the wait is bounded, and any worker still there is killed.
    await Promise.race([vitest?.close(), new Promise((resolve) => setTimeout(resolve, closeWaitMs).unref())]);
    this.#forks.stop();
  }

  /** A test module's failures, each at its test file (and test name). */
  #failures(module: TestModule): Diagnostic[] {
    const file = this.#projectPath(module.moduleId);
    const at = { file, line: 0, column: 0 };
    const out: Diagnostic[] = module.errors().map((e) => error(at, "tested", `the test file failed: ${errorMessage(e)}`, "fix the test file so it loads and runs"));
    for (const test of module.children.allTests()) {
      const outcome = test.result();
      if (outcome.state !== "failed") continue;
      const location = markdownPlace(this.#root, outcome.errors?.[0]) ?? (test.location === undefined ? at : { file, line: test.location.line, column: test.location.column });
      out.push(error(location, "tested", `failed: ${test.fullName}: ${errorMessage(outcome.errors?.[0])}`, "a block counts as tested only when every test of the run passed"));
    }
    if (out.length === 0 && module.state() === "failed") out.push(error(at, "tested", "the test file failed", "run it with `npx vitest run` to see why"));
    return out;
  }

  #projectPath(file: string): string {
    return relative(this.#root, file).split(sep).join("/");
  }
}

/**
 * Why Vitest did not start, as the user's error at the configuration file (at the line and
 * column its message names, when it names one).
 */
function startFailure(root: string, caught: unknown): LiterateError {
  const message = errorMessage(caught);
  const config = vitestConfigNames.find((name) => existsSync(join(root, name))) ?? vitestConfigNames[0];
  const place = /vitest\.config\.[cm]?[jt]s:(\d+):(\d+)/.exec(message);
  const at = { file: config, line: Number(place?.[1] ?? 0), column: Number(place?.[2] ?? 0) };
  return new LiterateError([error(at, "tested", `Vitest could not start: ${message}`, "fix what it names; the next save starts Vitest again")]);
}

/** The names Vitest looks for its configuration under, the project's own first. */
const vitestConfigNames = ["vitest.config.ts", "vitest.config.mts", "vitest.config.cts", "vitest.config.js", "vitest.config.mjs", "vitest.config.cjs"] as const;

/** How long closing waits for Vitest to close. */
const closeWaitMs = 3_000;

/**
 * Keeps a coverage file that could not be written (a full disk) from escaping as an unhandled
 * rejection, which Vitest answers by exiting the process: `npm run dev` would stop mid-save.
 * Vitest writes each test file's coverage as the file ends and awaits those writes when the run
 * ends, so the failed write still fails that run, which `run` reports; the next run writes anew.
 * The pending writes are Vitest's own (`pendingPromises`, not in its types, a new list each run):
 * a Vitest that no longer keeps them fails here, loudly, rather than leaving dev to be stopped by a full disk.
 */
function settleCoverageWrites(provider: CoverageProvider | null): void {
  if (provider === null) return;
  const pending = (): unknown[] => {
    const writes: unknown = Reflect.get(provider, "pendingPromises");
    if (!Array.isArray(writes)) throw new Error("vitest's coverage provider keeps no `pendingPromises`: settleCoverageWrites in tools/lib/runners/vitest.ts needs updating for this Vitest");
    return writes;
  };
  pending();
  const afterFile = provider.onAfterSuiteRun.bind(provider);
  provider.onAfterSuiteRun = (meta) => {
    const returned = afterFile(meta);
    const write = pending().at(-1);
    if (write instanceof Promise) write.catch(() => undefined);
    return returned;
  };
}

/**
 * A run that Vitest could not finish, as the problem dev prints: a file-system error (the
 * coverage of a full disk) at the file it names, anything else at the run.
 */
function failedRun(root: string, failed: unknown): Diagnostic {
  const path = typeof failed === "object" && failed !== null && "path" in failed && typeof failed.path === "string" ? failed.path : undefined;
  const code = typeof failed === "object" && failed !== null && "code" in failed && typeof failed.code === "string" ? failed.code : undefined;
  const file = path === undefined ? "test run" : relative(root, path).split(sep).join("/");
  const hint = code === "ENOSPC" ? "the disk is full: free some space and save again" : code === undefined ? "save again to run the tests anew" : "fix what the file system reported and save again";
  return error({ file, line: 0, column: 0 }, "tested", `the test run failed: ${errorMessage(failed)}`, hint);
}

/**
 * Where in a document a test failed: the first `literate/*.md` place in the error's stack
 * (Vitest maps stacks through tangle's source maps, so a failed assertion names its Markdown line).
 */
function markdownPlace(root: string, e: unknown): { file: string; line: number; column: number } | undefined {
  const stack = typeof e === "object" && e !== null && "stack" in e && typeof e.stack === "string" ? e.stack : "";
  const found = /([^\s()]*literate\/[^\s():]+\.md):(\d+):(\d+)/.exec(stack);
  if (found === null) return undefined;
  const path = found[1] ?? "";
  const file = isAbsolute(path) ? relative(root, path).split(sep).join("/") : path;
  return { file, line: Number(found[2]), column: Number(found[3]) };
}

/** An error's message on one line, without terminal colours: its first three non-empty lines (a transform error says where on the second). */
function errorMessage(e: unknown): string {
  const message = typeof e === "object" && e !== null && "message" in e && typeof e.message === "string" ? e.message : String(e);
  return stripVTControlCharacters(message)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(0, 3)
    .join(" ");
}

/**
 * The coverage map as plain istanbul JSON (what `coverage-final.json` holds), or `undefined`: none
 * collected, or a map that serializes otherwise (as `{ data: { file: { data: … } } }` in some istanbul versions).
 */
function plainCoverage(coverage: unknown): Record<string, IstanbulFile> | undefined {
  const plain: unknown = coverage === undefined ? undefined : JSON.parse(JSON.stringify(coverage));
  return typeof plain === "object" && plain !== null && Object.values(plain).every(isIstanbulFile) ? (plain as Record<string, IstanbulFile>) : undefined;
}
