// Per-test evidence for the docs ("tested by …"): around each test, the call counts of the
// functions in generated/ are read with V8's best-effort coverage, and the functions whose count
// went up are recorded under the test's name in coverage/tests-by-function/<test file>.json.
//
// Best-effort coverage only reads the counters; it never resets them (precise coverage's
// `takePreciseCoverage` does), so vitest's own v8 coverage, which verify's rule 4 reads, sees
// exactly the counts it would without this file. tools/lib/docs/attribution.ts reads the result.
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join, relative } from "node:path";
import { afterAll, afterEach, beforeEach, type TestContext } from "vitest";
import { attributionFolder } from "../../tools/lib/docs/attribution-folder.ts";

interface ScriptCoverage {
  readonly url: string;
  readonly functions: readonly { readonly functionName: string; readonly ranges: readonly { readonly startOffset: number; readonly count: number }[] }[];
}

const session = new Session();
session.connect();
const generated = `${join(process.cwd(), "generated")}/`;
let before = new Map<string, number>();
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

function fullName(context: TestContext): string {
  const names: string[] = [context.task.name];
  for (let suite = context.task.suite; suite !== undefined && suite.name !== "" && suite.name !== context.task.file.name; suite = suite.suite) names.unshift(suite.name);
  return names.join(" > ");
}

beforeEach(async () => {
  before = await counts();
});

afterEach(async (context) => {
  testFile = context.task.file.filepath;
  const after = await counts();
  const called = new Map<string, { url: string; name: string }>();
  for (const [key, count] of after) {
    if (count <= (before.get(key) ?? 0)) continue;
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
  writeFileSync(join(folder, `${name}.json`), `${JSON.stringify({ version: 1, testFile: relative(process.cwd(), testFile), tests }, null, 1)}\n`);
});
