// Per-test evidence for the docs ("tested by …"): around each test, the call counts of the
// functions in generated/ are read with V8's best-effort coverage, and the functions whose count
// went up are recorded under the test's name in coverage/tests-by-function/<test file>.json.
//
// Best-effort coverage only reads the counters; it never resets them (precise coverage's
// `takePreciseCoverage` does), so vitest's own v8 coverage, which verify's rule 4 reads, sees
// exactly the counts it would without this file. tools/lib/docs/attribution.ts reads the result.
//
// A read costs tens of milliseconds once a worker has loaded TypeScript and the toolchain (it
// reports every function of every script the worker loaded), so it is read only where it can
// change: a test file whose imports never reach generated/ (the toolchain's tests) reads nothing
// and records no test, as it would record none if it read; and the count after a test is the
// count before the next one when no hook runs between them (the `beforeAll` and `afterAll` of the
// suites one leaves and the other enters; our `beforeEach` is the first to run and our
// `afterEach` the last, being the file's first).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, afterEach, beforeEach, type RunnerTestSuite, type TestContext } from "vitest";
import { getHooks } from "vitest/suite";
import { attributionFolder } from "../../tools/lib/docs/attribution-folder.ts";

interface ScriptCoverage {
  readonly url: string;
  readonly functions: readonly { readonly functionName: string; readonly ranges: readonly { readonly startOffset: number; readonly count: number }[] }[];
}

const session = new Session();
session.connect();
const generated = `${join(process.cwd(), "generated")}/`;
/** The counts before each running test, by its id. */
const before = new Map<string, Map<string, number>>();
/** The counts read after the last test that ended, and its suite: the next test starts from them when no hook runs in between. */
let last: { readonly suite: RunnerTestSuite | undefined; readonly counts: Map<string, number> } | undefined;
/** Whether this file's tests can call generated/ (see `reachesGenerated`), decided at its first test. */
let measured: boolean | undefined;
const tests: { name: string; functions: { url: string; name: string }[] }[] = [];
let testFile = "";

async function counts(): Promise<Map<string, number>> {
  const { result } = (await session.post("Profiler.getBestEffortCoverage")) as { result: readonly ScriptCoverage[] };
  const out = new Map<string, number>();
  for (const script of result) {
    if (!script.url.includes(generated)) continue;
    for (const fn of script.functions) {
      const range = fn.ranges[0];
      if (range === undefined || fn.functionName === "") continue;
      out.set(`${script.url}\0${fn.functionName}\0${range.startOffset}`, range.count);
    }
  }
  return out;
}

/**
 * Whether a module, through its static and dynamic imports with a literal path (type-only ones
 * included, so erring towards yes), reaches a file of generated/. Follows the relative imports of
 * this repository's own modules; a package cannot import generated/.
 */
function reachesGenerated(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  if (file.startsWith(generated)) return true;
  if (file.includes("/node_modules/") || !existsSync(file)) return false;
  for (const [, spec = ""] of readFileSync(file, "utf8").matchAll(/\b(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    if (reachesGenerated(resolve(dirname(file), spec), seen)) return true;
  }
  return false;
}

/** A suite and the suites around it, outermost first. */
function suitesOf(suite: RunnerTestSuite | undefined): RunnerTestSuite[] {
  const out: RunnerTestSuite[] = [];
  for (let at = suite; at !== undefined; at = at.suite) out.unshift(at);
  return out;
}

/** Whether going from a test of suite `from` to the next test, of suite `to`, runs no hook: no `afterAll` of a suite left, no `beforeAll` of one entered, no around-hook anywhere. */
function noHookBetween(from: RunnerTestSuite | undefined, to: RunnerTestSuite | undefined): boolean {
  const left = suitesOf(from);
  const entered = suitesOf(to);
  let shared = 0;
  while (shared < left.length && left[shared] === entered[shared]) shared++;
  // A suite vitest keeps no hooks for counts as one that has some.
  const hooks = (suite: RunnerTestSuite): Partial<ReturnType<typeof getHooks>> => (getHooks(suite) as ReturnType<typeof getHooks> | undefined) ?? { beforeAll: [() => {}] };
  const none = (list: readonly unknown[] | undefined): boolean => list !== undefined && list.length === 0;
  return (
    [...left, ...entered].every((suite) => none(hooks(suite).aroundEach) && none(hooks(suite).aroundAll)) &&
    left.slice(shared).every((suite) => none(hooks(suite).afterAll)) &&
    entered.slice(shared).every((suite) => none(hooks(suite).beforeAll))
  );
}

function fullName(context: TestContext): string {
  const names: string[] = [context.task.name];
  for (let suite = context.task.suite; suite !== undefined && suite.name !== "" && suite.name !== context.task.file.name; suite = suite.suite) names.unshift(suite.name);
  return names.join(" > ");
}

beforeEach(async (context) => {
  testFile = context.task.file.filepath;
  measured ??= reachesGenerated(testFile);
  if (!measured) return;
  const from = last !== undefined && noHookBetween(last.suite, context.task.suite) ? last.counts : undefined;
  last = undefined;
  before.set(context.task.id, from ?? (await counts()));
});

afterEach(async (context) => {
  testFile = context.task.file.filepath;
  const start = before.get(context.task.id);
  before.delete(context.task.id);
  if (start === undefined) return;
  const after = await counts();
  last = before.size === 0 ? { suite: context.task.suite, counts: after } : undefined;
  const called = new Map<string, { url: string; name: string }>();
  for (const [key, count] of after) {
    if (count <= (start.get(key) ?? 0)) continue;
    const [url = "", name = ""] = key.split("\0");
    called.set(`${url}\0${name}`, { url, name });
  }
  if (called.size > 0) tests.push({ name: fullName(context), functions: [...called.values()] });
});

afterAll(() => {
  session.disconnect();
  if (testFile === "") return;
  const folder = join(process.cwd(), attributionFolder);
  mkdirSync(folder, { recursive: true });
  const name = relative(process.cwd(), testFile).replace(/[^\w.-]+/g, "_");
  // Written whole, then renamed into place: a docs build reading the folder meanwhile (`npm test`
  // warms the docs' caches beside this phase) sees the file as it was or as it is, never half of it.
  const file = join(folder, `${name}.json`);
  writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify({ version: 1, testFile: relative(process.cwd(), testFile), tests }, null, 1)}\n`);
  renameSync(`${file}.${process.pid}.tmp`, file);
});
