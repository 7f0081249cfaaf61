import { existsSync, readFileSync, readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Records which test called which function of generated/, for the docs' "tested by" lists; absent
// from the scratch projects the toolchain's tests copy this file into.
const attribution = fileURLToPath(new URL("test/docs/attribution.setup.ts", import.meta.url));

// The JSON results are verify's evidence together with the coverage, so they are written only by
// runs that collect coverage: a partial run of a few test files must not overwrite them.
const collectsCoverage = process.argv.some((arg) => arg === "--coverage" || arg.startsWith("--coverage."));

// Where the tests' temporary folders go (`os.tmpdir()` reads TMPDIR): the memory-backed
// `/dev/shm` where there is one, as the tests write thousands of small files and sync many of
// them, unless TMPDIR already names a folder.
const scratch = process.env["TMPDIR"] ?? (existsSync("/dev/shm") ? "/dev/shm" : undefined);

// The test files that take longest, longest first (wall time in `vitest run --coverage` with its
// three workers, measured 2026-11-27 on the shared two-core machine). They start first, so on two
// cores no long file is left to run alone at the end: before this list named mcp, stitch's
// differential, mock-llm and walkthrough, they started last and ran alone for the last minute.
// Several of them mostly wait (on child processes, servers and vitest runs in scratch projects:
// dev-cli, end-to-end, mcp, bench-dev, process-signals), beside files that keep the cores busy.
// The other files follow in vitest's own order (longest first once it has timings in its cache;
// a clean clone has none). `SlowestFirst` says how the two projects below share the order.
const slowest = [
  "test/tools/dev-cli.test.ts",
  "test/tools/dev-cli.saves.test.ts",
  "test/end-to-end.test.ts",
  "test/tools/verify.test.ts",
  "test/mcp.test.ts",
  "test/tools/lsp.test.ts",
  "test/tools/docs-build.test.ts",
  "test/tools/stitch.differential.test.ts",
  "test/mock-llm.test.ts",
  "test/walkthrough.test.ts",
  "test/tools/bench-dev.test.ts",
  "test/process-signals.test.ts",
  "test/operating.test.ts",
  "test/agent-tools.test.ts",
  "test/tools/judge.differential.test.ts",
  "test/tools/markdown.differential.test.ts",
  "test/tools/verify-reading.test.ts",
  "test/tools/dev.test.ts",
  "test/repair.test.ts",
  "test/tools/docs-xref.test.ts",
  "test/tools/tangle-cli.test.ts",
  "test/tools/typecheck.test.ts",
  "test/reply.test.ts",
  "test/tools/stitch.test.ts",
  "test/tools/mutation.test.ts",
  "test/tools/docs-worker.test.ts",
  "test/schema.test.ts",
  "test/thinking.test.ts",
  "test/daemon-door.test.ts",
];

/**
 * Starts the files in `slowest` first, in that order, the project without coverage's before the
 * other's past the first `mixedHead` files. A worker runs the next file only if that file is of
 * its own project (otherwise Vitest ends it and starts another, which loads every module again),
 * so past the head, whose files are long enough to be worth a new worker, the two projects'
 * files are not interleaved: the toolchain's go first, as they hold the longest. The head keeps
 * the two long book files that mostly wait on their child processes (end-to-end, mcp) beside the
 * toolchain's busy ones: started after them, they ran alone for the last 40 s of the phase.
 */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
      const index = slowest.indexOf(relative(spec.project.config.root, spec.moduleId).split("\\").join("/"));
      if (index >= 0 && index < mixedHead) return index;
      return mixedHead + (spec.project.name === uncoveredProject ? 0 : slowest.length + 1) + (index < 0 ? slowest.length : index);
    };
    const rest = await super.sort(files);
    return [...rest].sort((a, b) => rank(a) - rank(b));
  }
}

/** How many of the `slowest` files start in that order whatever their project. */
const mixedHead = 5;

// Coverage only where it is evidence. Verify's rule 4 reads the coverage of generated/ and
// test/helpers/, which only a test file that loads them in its own worker can add to (vitest
// covers no child process: the agent a test starts as a process adds nothing). V8's precise
// coverage makes the rest, the toolchain's tests (TypeScript in-process, the docs build, the
// language server), cost 30–40% more CPU for nothing: they run in a second project whose workers
// start no coverage. A test file is in it when, following the relative imports of its own
// modules (type-only ones and `import("...")` of a literal path included, so erring towards
// coverage), it reaches neither folder. A test file written after the configuration was loaded
// (`npm run dev` keeps one Vitest alive) falls in the covered project.
const root = fileURLToPath(new URL(".", import.meta.url));
const coveredFolders = ["generated", join("test", "helpers")].map((folder) => `${join(root, folder)}${sep}`);
const excluded = ["test/docs/**", "test/after-verify/**", "**/node_modules/**"];
const uncoveredProject = "toolchain";

/**
 * Whether `file`, through the relative imports of this repository's modules, reaches a folder
 * whose coverage is evidence. `clean` holds the files a finished walk found reaching none: the
 * test files share most of their modules, which are then read once.
 */
function reachesCovered(file: string, seen: Set<string>, clean: ReadonlySet<string>): boolean {
  if (seen.has(file) || clean.has(file)) return false;
  seen.add(file);
  if (coveredFolders.some((folder) => file.startsWith(folder))) return true;
  if (file.includes(`${sep}node_modules${sep}`) || !existsSync(file)) return false;
  for (const [, spec = ""] of readFileSync(file, "utf8").matchAll(/\b(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    if (reachesCovered(resolve(dirname(file), spec), seen, clean)) return true;
  }
  return false;
}

/** The test files (root-relative, `/`-separated) that never load a covered folder: those are run without coverage. */
function uncoveredTestFiles(): string[] {
  const tests = join(root, "test");
  if (!existsSync(tests)) return [];
  const clean = new Set<string>();
  return readdirSync(tests, { recursive: true, encoding: "utf8" })
    .map((file) => `test/${file.split(sep).join("/")}`)
    .filter((file) => file.endsWith(".test.ts") && !file.startsWith("test/docs/") && !file.startsWith("test/after-verify/") && !file.includes("/node_modules/"))
    .filter((file) => {
      const seen = new Set<string>();
      if (reachesCovered(join(root, file), seen, clean)) return false;
      for (const walked of seen) clean.add(walked);
      return true;
    })
    .sort();
}
const uncovered = uncoveredTestFiles();

/**
 * Vitest starts coverage in every worker of a run with coverage, from each project's copy of the
 * root's coverage options (`coverage` cannot be set per project): this plugin turns it off in its
 * project's copy, so that project's workers start none and add nothing to the report.
 */
const withoutCoverage: Plugin = {
  name: "passepartout:without-coverage",
  configureVitest({ project }) {
    project.config.coverage = { ...project.config.coverage, enabled: false };
  },
};

// Coverage is collected on generated/ and on the tangled test helpers (vitest never covers the
// test files themselves), and remapped through tangle's source maps, so the report (and verify's
// rule 4) speaks in literate/*.md lines. The helpers are covered because rule 4 asks of a
// constant that code which ran reads it. The json reporter copies the run's coverage into the
// results file: that copy is what ties `coverage-final.json` to the results it sits beside.
export default defineConfig({
  test: {
    // The browser tests of the docs site and the re-check of recorded kills run after verify, with
    // vitest.docs.config.ts. Each project below adds its `include` (a project's arrays extend the
    // root's, so the root has none).
    exclude: excluded,
    projects: [
      { extends: true, test: { name: "book", include: ["test/**/*.test.ts"], exclude: uncovered } },
      ...(uncovered.length === 0 ? [] : [{ extends: true as const, plugins: [withoutCoverage], test: { name: uncoveredProject, include: uncovered } }]),
    ],
    setupFiles: existsSync(attribution) ? [attribution] : [],
    reporters: collectsCoverage ? ["default", "json"] : ["default"],
    outputFile: { json: "coverage/vitest-results.json" },
    testTimeout: 30_000,
    // Setting up a scratch project (a copy, a tangle, a vitest run in it) can pass vitest's 10 s
    // on a loaded two-core machine; a hook that hangs still fails, after a minute.
    hookTimeout: 60_000,
    // vitest's default is one worker fewer than the cores, so one on two cores. Many test files
    // wait on child processes, servers and nested vitest runs, so one worker more than the cores
    // keeps them busy while one of the workers waits.
    maxWorkers: availableParallelism() + 1,
    // A worker keeps the modules it loaded from one test file to the next instead of loading
    // them again for each. The tests share no mocks and no global state: time, randomness and
    // the disk are injected or per test; the few files that change the process's environment
    // put it back. The docs' "tested by" lists, best-effort, then miss a few calls of functions
    // that earlier files made hot (bench/NOTES.md); verify's evidence is precise coverage.
    isolate: false,
    sequence: { sequencer: SlowestFirst },
    env: scratch === undefined ? {} : { TMPDIR: scratch },
    coverage: {
      provider: "v8",
      include: ["generated/**/*.ts", "test/helpers/**/*.ts"],
      reporter: ["json", "text-summary"],
      reportsDirectory: "coverage",
    },
  },
});
