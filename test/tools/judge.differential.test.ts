// One judge, three views: a book with one chapter per broken rule, judged by the verify CLI
// (`--json`), by `npm run dev` (the verdict line it prints for each saved block) and by the page
// dev serves (the block's badges). For every block, the three must name the same failing rules.
// Real parts throughout: dev as a child process on a real project folder, saved as an editor
// saves, its page fetched over HTTP; the project's tests run by a real Vitest with coverage.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatChapterRecord, mutationCandidates, blockId } from "../../tools/lib/core/mutation.ts";
import { ProjectModel } from "../../tools/lib/core/project.ts";
import { definitionAnalyses } from "../../tools/lib/core/project-code.ts";
import type { VerifyReport } from "../../tools/lib/commands/verify.ts";
import { Project, launcher } from "./verify-project.ts";

const fence = "```";

/** A chapter writing `generated/NAME.ts`, tested by `test/NAME.test.ts`, at `order` in the book. */
function chapter(name: string, order: number, ...body: string[]): string {
  return ["---", `tangle: generated/${name}.ts`, `test: test/${name}.test.ts`, `order: ${order}`, "---", `# ${name}`, "", ...body, ""].join("\n");
}

/** A code block with its prose before it. */
const block = (prose: string, ...code: string[]): string[] => [prose, "", `${fence}ts`, ...code, fence, ""];

/** The test block of chapter `name`, importing `names` and running `calls`. */
const tests = (name: string, names: string, ...calls: string[]): string[] => [
  "The tests.",
  "",
  `${fence}ts test`,
  'import { expect, it } from "vitest";',
  `import { ${names} } from "../generated/${name}.ts";`,
  `it("runs ${name}", () => {`,
  ...calls.map((c) => `  ${c}`),
  "});",
  fence,
];

/** Each chapter, and the rules its marked block (the line `// fault: NAME`) breaks. */
const book: Record<string, { readonly text: string; readonly fails: readonly string[] }> = {
  ok: { text: chapter("ok", 1, ...block("Adds one, the smallest step there is.", "// fault: ok", "export function ok(n: number): number {", "  return n + 1;", "}"), ...tests("ok", "ok", "expect(ok(1)).toBe(2);")), fails: [] },
  two: {
    text: chapter("two", 2, ...block("Two functions where one belongs.", "// fault: two", "export function a(): number {", "  return 1;", "}", "export function b(): number {", "  return 2;", "}"), ...tests("two", "a, b", "expect(a() + b()).toBe(3);")),
    fails: ["one definition"],
  },
  prose: {
    text: chapter("prose", 3, ...block("The first step.", "export function first(): number {", "  return 1;", "}"), `${fence}ts`, "// fault: prose", "export function second(): number {", "  return 2;", "}", fence, "", ...tests("prose", "first, second", "expect(first() + second()).toBe(3);")),
    fails: ["prose"],
  },
  typed: {
    text: chapter("typed", 4, ...block("A number said to be a string.", "// fault: typed", "export function typed(n: number): string {", "  return n + 1;", "}"), ...tests("typed", "typed", "expect(typed(1)).toBe(2);")),
    fails: ["compiles", "tested"],
  },
  untested: {
    text: chapter("untested", 5, ...block("The one the tests call.", "export function used(): number {", "  return 1;", "}"), ...block("The one they never call.", "// fault: untested", "export function unused(): number {", "  return 2;", "}"), ...tests("untested", "used", "expect(used()).toBe(1);")),
    fails: ["tested"],
  },
  early: {
    text: chapter("early", 6, ...block("What comes later in the book, needed early.", "// fault: early", 'import { late } from "./late.ts";'), ...block("One past the late value.", "export function early(): number {", "  return late() + 1;", "}"), ...tests("early", "early", "expect(early()).toBe(2);")),
    fails: ["order"],
  },
  late: { text: chapter("late", 7, ...block("The late value.", "// fault: late", "export function late(): number {", "  return 1;", "}"), ...tests("late", "late", "expect(late()).toBe(1);")), fails: [] },
  repeat: {
    text: chapter(
      "repeat",
      8,
      ...block(
        "Triples the given number: multiplies the given number by three and returns the tripled number.",
        "// fault: repeat",
        "/** Triples the given number: multiplies the given number by three and returns the tripled number. */",
        "export function triple(n: number): number {",
        "  return n * 3;",
        "}",
      ),
      ...tests("repeat", "triple", "expect(triple(2)).toBe(6);"),
    ),
    fails: ["doc comment"],
  },
  pinned: {
    text: chapter("pinned", 9, ...block("Never below zero.", "// fault: pinned", "export function clamp(n: number): number {", "  return n > 0 ? n : 0;", "}"), ...tests("pinned", "clamp", "expect(clamp(2)).toBe(2);")),
    fails: ["pinned"],
  },
};

/** The save an author makes: the marked line of every chapter changes (so its block's hash does). */
const saved = (text: string): string => text.replace(/\/\/ fault: (\w+)/, "// fault: $1 (saved)");

/**
 * Mutation records, current for the saved texts: every runtime block with no mutants (nothing to
 * count, so it passes), but `clamp`, with one mutant killed and one surviving (50%: it fails).
 */
function records(): Record<string, string> {
  const model = ProjectModel.of(Object.entries(book).map(([name, c]) => ({ path: `literate/${name}.md`, text: saved(c.text) })), { scan: "remark" });
  const result = model.tangle();
  const { analyses } = model.derived(definitionAnalyses);
  const hashes = model.hashes();
  const files: Record<string, string> = {};
  for (const name of Object.keys(book)) {
    const doc = `literate/${name}.md`;
    const blocks = mutationCandidates(result, analyses, doc).map((index) => {
      const analysis: { readonly names: readonly string[] } = analyses[index] ?? { names: [] };
      const survivor = analysis.names.includes("clamp");
      const mutants = survivor
        ? [
            { line: 3, column: 10, endLine: 3, endColumn: 15, mutator: "EqualityOperator", replacement: "n >= 0", status: "survived" as const, killedBy: [] },
            { line: 3, column: 10, endLine: 3, endColumn: 15, mutator: "ConditionalExpression", replacement: "false", status: "killed" as const, killedBy: ["runs pinned"] },
          ]
        : [];
      return { id: blockId(analysis, result.blocks[index]?.line ?? 0), hash: hashes[index] ?? "", mutants };
    });
    files[`mutation/${name}.json`] = formatChapterRecord({ doc, tests: `test/${name}.test.ts`, testsHash: "", blocks });
  }
  return files;
}

/** The environment of a child: ours without what the Vitest running this file set for its workers. */
function childEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("VITEST") && key !== "NODE_V8_COVERAGE" && key !== "TEST") env[key] = value;
  env["NO_COLOR"] = "1";
  return env;
}

/** The Markdown line of the fence opening the block marked `// fault: NAME` in `text`. */
function faultLine(text: string, name: string): number {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith(`// fault: ${name}`));
  for (let i = at; i >= 0; i--) if (lines[i]?.startsWith(fence)) return i + 1;
  throw new Error(`no block marked \`// fault: ${name}\``);
}

/** The rules a printed verdict line says the block fails. */
function failingInLine(line: string): string[] {
  const fails: string[] = [];
  if (line.includes("compiles ✗")) fails.push("compiles");
  if (/tested [✗–]|stamped ✗/.test(line)) fails.push("tested");
  for (const rule of ["one definition", "prose", "order", "pinned"]) if (line.includes(`${rule} ✗`)) fails.push(rule);
  if (line.includes("doc comment ⚠")) fails.push("doc comment");
  return fails.sort();
}

/** The rules verify's report says the block fails. */
function failingInReport(b: VerifyReport["blocks"][number]): string[] {
  const c = b.checks;
  const fails: string[] = [];
  if (!c.compiles) fails.push("compiles");
  if (c.tested !== "tested" && c.tested !== "exempt") fails.push("tested");
  if (!c.oneDefinition) fails.push("one definition");
  if (!c.prose) fails.push("prose");
  if (!c.order) fails.push("order");
  if (!c.pinned) fails.push("pinned");
  if (!c.docComment) fails.push("doc comment");
  return fails.sort();
}

/** The rules the badges of the block at `doc:line` on a page say it fails. */
function failingOnPage(html: string, doc: string, line: number): string[] {
  const figure = html.split("<figure").find((f) => f.includes(`title="${doc}:${line}"`));
  if (figure === undefined) throw new Error(`no block ${doc}:${line} on its page`);
  const head = figure.slice(0, figure.indexOf("</figcaption>"));
  const fails: string[] = [];
  for (const [, kind, text] of head.matchAll(/<span class="badge (ok|bad|warn)"[^>]*>([^<]*)<\/span>/g)) {
    if (kind === "ok" || text === undefined) continue;
    if (text.startsWith("compiles")) fails.push("compiles");
    else if (text.startsWith("tested") || text === "stale" || text === "unstamped") fails.push("tested");
    else if (text.startsWith("mutants") || text.startsWith("pinned")) {
      if (kind === "bad") fails.push("pinned");
    } else if (text.startsWith("one definition")) fails.push("one definition");
    else if (text.startsWith("prose")) fails.push("prose");
    else if (text.startsWith("order")) fails.push("order");
    else if (text.startsWith("doc comment")) fails.push("doc comment");
  }
  return fails.sort();
}

describe("the verify CLI, npm run dev's verdict and its page's badges", () => {
  let project: Project;
  let dev: ChildProcessWithoutNullStreams | undefined;
  let output = "";
  const fromDev = new Map<string, string[]>();
  const fromPage = new Map<string, string[]>();
  let report: VerifyReport;

  const waitFor = async (pattern: RegExp, from: number): Promise<RegExpExecArray> => {
    const until = Date.now() + 240_000;
    for (;;) {
      const found = pattern.exec(output.slice(from));
      if (found !== null) return found;
      if (Date.now() > until || dev?.exitCode !== null) throw new Error(`no match for ${String(pattern)} in:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  beforeAll(async () => {
    project = new Project({ ...Object.fromEntries(Object.entries(book).map(([name, c]) => [`literate/${name}.md`, c.text])), ...records() });
    project.tangleNow();
    dev = spawn(process.execPath, [launcher, "dev", "--root", project.root, "--port", "0", "--no-mutate"], { cwd: project.root, env: childEnvironment() });
    dev.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    dev.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    const url = (await waitFor(/dev: watching .*docs at (http:\S+)/, 0))[1] ?? "";
    await waitFor(/dev: docs updated/, 0);
    const from = output.length;
    for (const [name, c] of Object.entries(book)) project.write(`literate/${name}.md`, saved(c.text));
    // Every marked block gets its verdict (the last line printed for it counts: a compile error comes first, alone).
    for (const [name, c] of Object.entries(book)) {
      const doc = `literate/${name}.md`;
      const line = faultLine(saved(c.text), name);
      await waitFor(new RegExp(`${doc}:${line} compiles . (tested|tests pass|type-only)?`), from);
    }
    // The cycle's summary line comes after its verdicts: wait for it rather than read where it is
    // now (under load it may not be printed yet), then for the build that follows it.
    const lastVerdict = Math.max(...Object.entries(book).map(([name, c]) => output.lastIndexOf(`literate/${name}.md:${faultLine(saved(c.text), name)} compiles`)));
    const judged = lastVerdict + (await waitFor(/block\(s\) judged/, lastVerdict)).index;
    await waitFor(/dev: docs updated/, judged);
    const lines = output.slice(from).split("\n");
    for (const [name, c] of Object.entries(book)) {
      const doc = `literate/${name}.md`;
      const line = faultLine(saved(c.text), name);
      const printed = lines.filter((l) => l.startsWith(`${doc}:${line} `)).at(-1) ?? "";
      fromDev.set(name, failingInLine(printed));
      const page = await (await fetch(new URL(`chapters/${name}.html`, url))).text();
      fromPage.set(name, failingOnPage(page, doc, line));
    }
    dev.kill("SIGINT");
    await new Promise((resolve) => dev?.once("close", resolve));
    // verify judges the same texts (dev's stamps included) on a whole run's evidence.
    expect((await project.test()).code).toBe(0);
    report = JSON.parse((await project.verify("--json")).stdout) as VerifyReport;
  }, 600_000);

  afterAll(() => {
    if (dev !== undefined && dev.exitCode === null) dev.kill("SIGKILL");
    project.remove();
  });

  it.each(Object.keys(book))("agree on the rules the block marked %s fails, and name exactly the one it breaks", (name) => {
    const c = book[name];
    if (c === undefined) throw new Error(name);
    const doc = `literate/${name}.md`;
    const line = faultLine(saved(c.text), name);
    const judged = report.blocks.find((b) => b.doc === doc && b.line === line);
    if (judged === undefined) throw new Error(`verify reports no block at ${doc}:${line}`);
    const expected = [...c.fails].sort();
    expect({ verify: failingInReport(judged), dev: fromDev.get(name), page: fromPage.get(name) }).toEqual({ verify: expected, dev: expected, page: expected });
  });
});
