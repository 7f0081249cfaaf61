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
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { stripVTControlCharacters } from "node:util";
import type { TestModule, Vitest } from "vitest/node";
import { error, type Diagnostic } from "../core/diagnostics.ts";
import type { TestEvidence } from "../core/evidence.ts";
import { documentEvidence, isIstanbulFile, type IstanbulFile } from "./vitest-evidence.ts";

/** What one run proved, or why it proved nothing. */
export interface DevRun {
  /** The test files that ran (project-relative). */
  readonly ran: readonly string[];
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

  constructor(root: string) {
    this.#root = resolve(root);
  }

  /** The Vitest instance, created on the first call. */
  #instance(): Promise<Vitest> {
    this.#vitest ??= (async () => {
      const { createVitest } = await import("vitest/node");
      const keep = { onCoverage: (coverage: unknown): void => void (this.#coverage = coverage) };
      const signals = ["SIGINT", "SIGTERM"] as const;
      const before = signals.map((signal) => new Set(process.listeners(signal)));
      const vitest = await createVitest("test", {
        root: this.#root,
        watch: false,
        reporters: [keep],
        coverage: { enabled: true, provider: "v8", reporter: [], reportsDirectory: join(this.#root, ".cache", "dev", "coverage") },
      });
      await vitest.standalone();
      // Vitest's logger exits the process on Ctrl-C (with a code of its own); `npm run dev` closes
      // itself, Vitest included, and exits 0.
      signals.forEach((signal, i) => {
        for (const listener of process.listeners(signal)) if (!before[i]?.has(listener)) process.off(signal, listener);
      });
      return vitest;
    })();
    return this.#vitest;
  }

  /** Every test file of the project (project-relative), as the configuration selects them. */
  async testFiles(): Promise<string[]> {
    const vitest = await this.#instance();
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

  /** Runs `files` (project-relative test files) with coverage, after invalidating `changed` (files tangle rewrote). */
  async run(files: readonly string[], changed: readonly string[]): Promise<DevRun> {
    const started = performance.now();
    const startTime = Date.now();
    const vitest = await this.#instance();
    for (const path of changed) vitest.invalidateFile(join(this.#root, path));
    this.#coverage = undefined;
    const specs = (await vitest.globTestSpecifications(files.map((f) => join(this.#root, f)))).filter((s) => files.includes(this.#projectPath(s.moduleId)));
    const result = await vitest.runTestSpecifications(specs, false);
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

  /** Stops the instance (and its workers). */
  async close(): Promise<void> {
    if (this.#vitest === undefined) return;
    const vitest = await this.#vitest.catch(() => undefined);
    await vitest?.close();
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

/** The coverage map as plain istanbul JSON (what `coverage-final.json` holds), or `undefined`. */
function plainCoverage(coverage: unknown): Record<string, IstanbulFile> | undefined {
  if (coverage === undefined || coverage === null) return undefined;
  const plain: unknown = JSON.parse(JSON.stringify(coverage));
  if (typeof plain !== "object" || plain === null) return undefined;
  // An istanbul CoverageMap serializes as `{ data: { file: { data: … } } }` in some versions.
  const record = plain as Record<string, unknown>;
  const files = Object.values(record).every(isIstanbulFile) ? record : undefined;
  return files as Record<string, IstanbulFile> | undefined;
}
