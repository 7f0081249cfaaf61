// verify, end to end: real project folders in the temp folder, the commands the CLIs run (in this
// process, see `commandInProcess`; the real CLI as a child process where the process itself is
// the point: a bad root, a root through a link), a real vitest run with coverage in each project.
// Every case the issue's "done when" names is here: a good document passes after `tangle` and
// `verify --stamp`, and a broken, untested, stale-stamped, multi-definition or prose-less block
// fails at its Markdown location.
//
// A vitest run inside a project costs seconds, so the suites below run side by side
// (`concurrent`), and the life of the good document is one sequential story over one folder:
// each step starts from where the previous one left it, as a developer's working copy would.
import { existsSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../tools/lib/core/diagnostics.ts";
import { parseLiterateDocument } from "../../tools/lib/core/document.ts";
import { ProjectModel } from "../../tools/lib/core/project.ts";
import { blockHashes } from "../../tools/lib/core/stamps.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";
import { verifyProject, type VerifyReport } from "../../tools/lib/commands/verify.ts";
import { Project, edit, launcher, lineOf, repository, run, type Run } from "./verify-project.ts";

const slow = 120_000;

/**
 * The good document: a function, an interface, a class assembled from one block per method, a
 * function whose body is a fragment, and tests that call every runtime block.
 */
const good = `---
tangle: generated/x.ts
test: test/x.test.ts
---

# Arithmetic

**add** sums two numbers.

\`\`\`ts
export function add(a: number, b: number): number {
  return a + b;
}
\`\`\`

A **Pair** is two numbers; a type needs no test, the compiler checks it.

\`\`\`ts
export interface Pair {
  readonly a: number;
  readonly b: number;
}
\`\`\`

A **Counter** counts; its methods follow one by one.

\`\`\`ts
export class Counter {
  #count = 0;
  <<counter-methods>>
}
\`\`\`

**increment** adds one.

\`\`\`ts #counter-methods
increment(): void {
  this.#count += 1;
}
\`\`\`

**value** reads the count.

\`\`\`ts #counter-methods
value(): number {
  return this.#count;
}
\`\`\`

**clamp** keeps a number in a range; its body comes next.

\`\`\`ts
export function clamp(n: number, low: number, high: number): number {
  <<clamp-body>>
}
\`\`\`

The body checks each bound in turn.

\`\`\`ts #clamp-body
if (n < low) return low;
return n > high ? high : n;
\`\`\`

The tests call every function and method.

\`\`\`ts test
import { expect, it } from "vitest";
import { Counter, add, clamp } from "../generated/x.ts";

it("adds two numbers", () => {
  expect(add(1, 2)).toBe(3);
});

it("counts", () => {
  const counter = new Counter();
  counter.increment();
  expect(counter.value()).toBe(1);
});

it("clamps", () => {
  expect(clamp(5, 0, 3)).toBe(3);
});
\`\`\`
`;

const doc = "literate/x.md";

/** The 1-based line of the fence opening the block whose first code line contains `firstLine`. */
const fenceOf = (text: string, firstLine: string): number => lineOf(text, firstLine) - 1;

/** The first code line of each runtime block of the good document, in order. */
const runtimeBlocks = ["export function add", "export class Counter", "increment(): void", "value(): number", "export function clamp", "if (n < low)"];

/** Every block's current hash, as verify computes it. */
const hashesOf = (text: string): string[] => blockHashes(tangle([{ path: doc, text }]));

/** The opening fence lines of a document. */
const fenceLines = (text: string): string[] => text.split("\n").filter((line) => line.startsWith("```ts"));

/** The problem verify reports at each runtime block of the good document when no test results exist. */
const untestedForLackOfResults = (text: string): string =>
  runtimeBlocks
    .map((first, i) => {
      const names = ["add", "Counter", "increment", "value", "clamp", undefined][i];
      return (
        `${doc}:${fenceOf(text, first)}:1 tested: no test results exist, so this block${names === undefined ? "" : ` (\`${names}\`)`} is not known to be tested\n` +
        "  hint: run `npm test`, then `npm run verify -- --stamp`\n"
      );
    })
    .join("");

const summary = (definitions: number, typeOnly: number, tested: number, problems: number, path = doc): string =>
  `${path}: ${definitions} definition blocks (${typeOnly} type-only), ${tested}/${definitions - typeOnly} tested, ${problems} problem(s)\n`;

describe("verify over the life of a good document", { concurrent: true }, () => {
  let project: Project;
  let stamped = "";
  beforeAll(() => {
    project = new Project({ [doc]: good });
  });
  afterAll(() => project.remove());

  it.sequential(
    "fails before any test has run, naming each untested block at its location under one line saying there are no test results",
    async () => {
      expect((await project.tangle("--quiet")).code).toBe(0);
      const verified = await project.verify();
      expect(verified.stdout).toBe(
        untestedForLackOfResults(good) +
          "test run tested: no test results found at `coverage/vitest-results.json`, so no block counts as tested\n" +
          "  hint: run `npm test`, or `npm run verify -- --stamp`\n\n" +
          summary(7, 1, 0, 6) +
          "FAIL: 7 problems\n",
      );
      expect(verified.code).toBe(1);
    },
    slow,
  );

  it.sequential(
    "reports each executed block that carries no stamp, and writes no stamp itself",
    async () => {
      expect((await project.test()).code).toBe(0);
      const verified = await project.verify();
      const unstamped = runtimeBlocks.map(
        (first) =>
          `${doc}:${fenceOf(good, first)}:1 tested: the tests execute this block but it carries no \`tested=\` stamp\n` +
          "  hint: run `npm run verify -- --stamp` to stamp it from the evidence\n",
      );
      expect(verified.stdout).toBe(`${unstamped.join("")}\n${summary(7, 1, 0, 6)}FAIL: 6 problems\n`);
      expect(verified.code).toBe(1);
      expect(project.read(doc)).toBe(good);
    },
    slow,
  );

  it.sequential(
    "stamps, with --stamp, every block the tests executed with its hash, and passes",
    async () => {
      const verified = await project.verify("--stamp");
      expect(verified.stdout).toBe(`${summary(7, 1, 6, 0)}stamps: 6 written, 0 removed\nPASS: 7 blocks in 1 documents\n`);
      expect(verified.code).toBe(0);
      stamped = project.read(doc);
      const hashes = hashesOf(good);
      expect(fenceLines(stamped)).toEqual([
        `\`\`\`ts tested=${hashes[0]}`,
        "```ts",
        `\`\`\`ts tested=${hashes[2]}`,
        `\`\`\`ts #counter-methods tested=${hashes[3]}`,
        `\`\`\`ts #counter-methods tested=${hashes[4]}`,
        `\`\`\`ts tested=${hashes[5]}`,
        `\`\`\`ts #clamp-body tested=${hashes[6]}`,
        "```ts test",
      ]);
      expect(stamped.replace(/ tested=[0-9a-f]{12}/g, "")).toBe(good);
    },
    slow,
  );

  it.sequential(
    "then passes without running anything, the type-only block needing no stamp",
    async () => {
      const verified = await project.verify();
      expect(verified).toEqual({ code: 0, stdout: `${summary(7, 1, 6, 0)}PASS: 7 blocks in 1 documents\n`, stderr: "" });
    },
    slow,
  );

  it.sequential(
    "prints with --json a report whose blocks carry their checks",
    async () => {
      const verified = await project.verify("--json");
      expect(verified.code).toBe(0);
      const report = JSON.parse(verified.stdout) as VerifyReport;
      expect(report.ok).toBe(true);
      expect(report.problems).toEqual([]);
      expect(report.tests).toEqual({ total: 3, passed: 3, failed: 0 });
      expect(report.documents).toEqual([{ path: doc, blocks: 8, definitions: 7, typeOnly: 1, tested: 6, problems: 0, warnings: 0 }]);
      const passed = { oneDefinition: true, prose: true, compiles: true, order: true, pinned: true, docComment: true };
      expect(report.blocks.map((b) => ({ line: b.line, kind: b.kind, names: b.names, typeOnly: b.typeOnly, checks: b.checks, stamped: b.stamp !== undefined }))).toEqual([
        { line: fenceOf(good, "export function add"), kind: "definition", names: ["add"], typeOnly: false, checks: { ...passed, tested: "tested" }, stamped: true },
        { line: fenceOf(good, "export interface Pair"), kind: "definition", names: ["Pair"], typeOnly: true, checks: { ...passed, tested: "exempt" }, stamped: false },
        { line: fenceOf(good, "export class Counter"), kind: "definition", names: ["Counter"], typeOnly: false, checks: { ...passed, tested: "tested" }, stamped: true },
        { line: fenceOf(good, "increment(): void"), kind: "definition", names: ["increment"], typeOnly: false, checks: { ...passed, tested: "tested" }, stamped: true },
        { line: fenceOf(good, "value(): number"), kind: "definition", names: ["value"], typeOnly: false, checks: { ...passed, tested: "tested" }, stamped: true },
        { line: fenceOf(good, "export function clamp"), kind: "definition", names: ["clamp"], typeOnly: false, checks: { ...passed, tested: "tested" }, stamped: true },
        { line: fenceOf(good, "if (n < low)"), kind: "fragment", names: [], typeOnly: false, checks: { ...passed, tested: "tested" }, stamped: true },
        { line: fenceOf(good, 'import { expect, it } from "vitest"'), kind: "test", names: [], typeOnly: false, checks: { ...passed, tested: "exempt" }, stamped: false },
      ]);
      expect(report.blocks.every((b) => b.stamp === undefined || b.stamp === b.hash)).toBe(true);
    },
    slow,
  );

  it.sequential(
    "writes with --report the same JSON report to a file, and still prints its text",
    async () => {
      const verified = await project.verify("--report", join(project.root, "coverage", "verify-report.json"));
      expect(verified).toEqual({ code: 0, stdout: `${summary(7, 1, 6, 0)}PASS: 7 blocks in 1 documents\n`, stderr: "" });
      const written = JSON.parse(project.read("coverage/verify-report.json")) as VerifyReport;
      expect(written.ok).toBe(true);
      expect(written.problems).toEqual([]);
      expect(written.tests).toEqual({ total: 3, passed: 3, failed: 0 });
      expect(written.documents).toEqual([{ path: doc, blocks: 8, definitions: 7, typeOnly: 1, tested: 6, problems: 0, warnings: 0 }]);
      expect(written.blocks).toHaveLength(8);
    },
    slow,
  );

  it.sequential(
    "refuses the old evidence once a block is edited and re-tangled",
    async () => {
      project.write(doc, edit(stamped, "  return a + b;", "  return b + a;"));
      project.tangleNow();
      const verified = await project.verify();
      expect(verified.stdout).toBe(
        "test run tested: the latest test run is older than `generated/x.ts`\n" +
          "  hint: run the tests again: `npm test`, or `npm run verify -- --stamp`\n\n" +
          summary(7, 1, 0, 0) +
          "FAIL: 1 problems\n",
      );
      expect(verified.code).toBe(1);
    },
    slow,
  );

  it.sequential(
    "fails on the edited block's stale stamp once the tests have run again",
    async () => {
      expect((await project.test()).code).toBe(0);
      const text = project.read(doc);
      const before = hashesOf(good)[0] ?? "";
      const now = hashesOf(text)[0] ?? "";
      expect(now).not.toBe(before);
      const verified = await project.verify();
      expect(verified.stdout).toBe(
        `${doc}:${fenceOf(text, "export function add")}:1 tested: stamp \`tested=${before}\` is stale: the block changed since it was tested (now \`${now}\`)\n` +
          "  hint: run the tests and `npm run verify -- --stamp`\n\n" +
          summary(7, 1, 5, 1) +
          "FAIL: 1 problems\n",
      );
      expect(verified.code).toBe(1);
    },
    slow,
  );

  it.sequential(
    "removes, with --stamp, the stamps of blocks no test executes any more",
    async () => {
      const text = edit(project.read(doc), '\nit("clamps", () => {\n  expect(clamp(5, 0, 3)).toBe(3);\n});\n', "");
      project.write(doc, edit(text, "import { Counter, add, clamp }", "import { Counter, add }"));
      project.tangleNow();
      // `add`, stale since the previous step, is stamped again (1 written); the stamps still
      // current are not rewritten; `clamp` and its body lose theirs (2 removed).
      const verified = await project.verify("--stamp");
      const after = project.read(doc);
      expect(verified.stdout).toBe(
        `${doc}:${fenceOf(after, "export function clamp")}:1 tested: no passing test executed this block (\`clamp\`)\n` +
          "  hint: write a test that runs it, then `npm run verify -- --stamp`\n" +
          `${doc}:${fenceOf(after, "if (n < low)")}:1 tested: no passing test executed this block\n` +
          "  hint: write a test that runs it, then `npm run verify -- --stamp`\n\n" +
          summary(7, 1, 4, 2) +
          "stamps: 1 written, 2 removed\n" +
          "FAIL: 2 problems\n",
      );
      expect(verified.code).toBe(1);
      const hashes = hashesOf(after);
      expect(fenceLines(after)).toEqual([
        `\`\`\`ts tested=${hashes[0]}`,
        "```ts",
        `\`\`\`ts tested=${hashes[2]}`,
        `\`\`\`ts #counter-methods tested=${hashes[3]}`,
        `\`\`\`ts #counter-methods tested=${hashes[4]}`,
        "```ts",
        "```ts #clamp-body",
        "```ts test",
      ]);
    },
    slow,
  );
});

/**
 * One faulty variant of the good document, and the one problem verify must report for it. The
 * variants are documents side by side in one project, each tangling to its own files and tested
 * by its own test file: `verify --stamp` stamps the blocks that are fine, so what fails after it
 * is the faults and nothing else, each in its own document.
 */
interface Fault {
  readonly fault: string;
  readonly text: string;
  /** The problem, as printed (location, rule, message and hint), in the document at `path`. */
  readonly problem: (text: string, path: string) => string;
  /** The document's summary line. */
  readonly summary: (path: string) => string;
}

const brokenAdd = edit(good, "  return a + b;", "  const total: string = a + b;\n  return Number(total);");
const inList = edit(
  good,
  "**add** sums two numbers.\n\n```ts\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n```",
  "1. **add** sums two numbers:\n\n   ```ts\n   export function add(a: number, b: number): number {\n     const total: string = a + b;\n     return Number(total);\n   }\n   ```",
);
const sub = "**sub** subtracts; no test calls it.\n\n```ts\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n```\n\n";
const twoTypes = "**Small** and **Large** share a block, which rule 1 forbids.\n\n```ts\nexport type Small = 1 | 2;\nexport type Large = 3 | 4;\n```\n\n";

const faults: readonly Fault[] = [
  {
    fault: "a broken block, at the Markdown line and column of its type error",
    text: brokenAdd,
    problem: (text, path) => `${path}:${lineOf(text, "const total")}:9 compiles: TS2322: Type 'number' is not assignable to type 'string'.\n  hint: fix the code in this block; the whole program is checked at once\n`,
    summary: (path) => summary(7, 1, 6, 1, path),
  },
  {
    fault: "a broken block inside a list item, at the column the error has in the Markdown",
    text: inList,
    problem: (text, path) => `${path}:${lineOf(text, "const total")}:12 compiles: TS2322: Type 'number' is not assignable to type 'string'.\n  hint: fix the code in this block; the whole program is checked at once\n`,
    summary: (path) => summary(7, 1, 6, 1, path),
  },
  {
    fault: "an untested block, a function no test calls",
    text: edit(good, "A **Pair**", `${sub}A **Pair**`),
    problem: (text, path) => `${path}:${fenceOf(text, "export function sub")}:1 tested: no passing test executed this block (\`sub\`)\n  hint: write a test that runs it, then \`npm run verify -- --stamp\`\n`,
    summary: (path) => summary(8, 1, 6, 1, path),
  },
  {
    fault: "a block with two definitions",
    text: edit(good, "A **Pair**", `${twoTypes}A **Pair**`),
    problem: (text, path) => `${path}:${fenceOf(text, "export type Small")}:1 one-definition: block declares 2 definitions (\`Small\`, \`Large\`)\n  hint: split it into one block per definition, each with its own prose\n`,
    summary: (path) => summary(8, 2, 6, 1, path),
  },
  {
    fault: "a method block with no prose between it and the previous block",
    text: edit(good, "**value** reads the count.\n\n", ""),
    problem: (text, path) => `${path}:${fenceOf(text, "value(): number")}:1 prose: no prose before this block\n  hint: write a heading or a paragraph that says why this code exists, between it and the previous block\n`,
    summary: (path) => summary(7, 1, 6, 1, path),
  },
];

/**
 * The i-th fault as a document of its own: it tangles to `generated/fault-i.ts`, is tested by
 * `test/fault-i.test.ts`, and names its fragments apart, as fragment names are the project's.
 */
const faultDocument = (text: string, i: number): { path: string; text: string } => {
  const targets = edit(text, "tangle: generated/x.ts\ntest: test/x.test.ts", `tangle: generated/fault-${i}.ts\ntest: test/fault-${i}.test.ts`);
  const fragments = targets.replaceAll("counter-methods", `counter-methods-${i}`).replaceAll("clamp-body", `clamp-body-${i}`);
  return { path: `literate/fault-${i}.md`, text: edit(fragments, "../generated/x.ts", `../generated/fault-${i}.ts`) };
};

describe("verify fails on a document with one faulty block", { concurrent: true }, () => {
  const documents = faults.map((f, i) => faultDocument(f.text, i + 1));
  let project: Project;
  let stamping: Run;
  let verified: Run;
  beforeAll(async () => {
    project = new Project(Object.fromEntries(documents.map((d) => [d.path, d.text])));
    project.tangleNow();
    stamping = await project.verify("--stamp");
    // With every other block stamped, plain verify (the gate `npm test` runs) fails on the faults alone.
    verified = await project.verify();
  }, slow);
  afterAll(() => project.remove());

  faults.forEach(({ fault, problem, summary: summaryOf }, i) => {
    it(`fails on ${fault}`, ({ expect }) => {
      const { path, text } = documents[i] ?? { path: "", text: "" };
      for (const output of [stamping.stdout, verified.stdout]) {
        expect(output).toContain(problem(text, path));
        expect(output).toContain(summaryOf(path));
      }
      expect(stamping.code).toBe(1);
      expect(verified.code).toBe(1);
    });
  });

  it("stamps every block that is fine, each fault being the one problem of its document", ({ expect }) => {
    const problems = documents.map((d, i) => faults[i]?.problem(d.text, d.path) ?? "").join("");
    const summaries = documents.map((d, i) => faults[i]?.summary(d.path) ?? "").join("");
    expect(stamping.stdout).toBe(`${problems}\n${summaries}stamps: ${6 * faults.length} written, 0 removed\nFAIL: ${faults.length} problems\n`);
    expect(verified.stdout).toBe(`${problems}\n${summaries}FAIL: ${faults.length} problems\n`);
  });
});

describe("verify --stamp with a failing test", { concurrent: true }, () => {
  const stale = edit(edit(good, "```ts\nexport function add", "```ts tested=0123456789ab\nexport function add"), 'toBe(3);\n});\n\nit("counts"', 'toBe(4);\n});\n\nit("counts"');
  let project: Project;
  beforeAll(() => {
    project = new Project({ [doc]: stale });
  });
  afterAll(() => project.remove());

  it(
    "exits 1 and changes no stamp, not even a stale one",
    async ({ expect }) => {
      project.tangleNow();
      const verified = await project.verify("--stamp");
      expect(verified.code).toBe(1);
      expect(verified.stdout).toBe("");
      expect(verified.stderr).toMatch(/FAIL .*test\/x\.test\.ts/);
      expect(verified.stderr.endsWith("test run tested: tests failed, so nothing counts as tested; no stamp was changed\n  hint: fix the failing tests, then run `npm run verify -- --stamp` again\n")).toBe(true);
      expect(project.read(doc)).toBe(stale);
    },
    slow,
  );
});

describe("verify stops before checking anything", { concurrent: true }, () => {
  const projects: Project[] = [];
  afterAll(() => {
    for (const p of projects) p.remove();
  });
  const fresh = (text: string): Project => {
    const project = new Project({ [doc]: text });
    projects.push(project);
    return project;
  };

  it(
    "when generated files are out of date, naming each one",
    async ({ expect }) => {
      const project = fresh(good);
      project.tangleNow();
      project.write(doc, edit(good, "  return a + b;", "  return b + a;"));
      project.write("test/x.test.ts", "// edited by hand\n");
      const verified = await project.verify();
      expect(verified).toEqual({
        code: 1,
        stdout: "",
        stderr:
          "generated/x.ts out-of-date: `generated/x.ts` is not what the documents tangle to\n  hint: run `npm run tangle` first\n" +
          "test/x.test.ts out-of-date: `test/x.test.ts` is not what the documents tangle to\n  hint: run `npm run tangle` first\n",
      });
    },
    slow,
  );

  it(
    "and still prints a JSON report with --json, holding the problems that stopped it",
    async ({ expect }) => {
      const project = fresh(good);
      project.tangleNow();
      project.write(doc, edit(good, "  return a + b;", "  return b + a;"));
      const verified = await project.verify("--json");
      expect(verified.code).toBe(1);
      expect(JSON.parse(verified.stdout)).toEqual({
        ok: false,
        stopped: true,
        blocks: [],
        documents: [],
        problems: [{ file: "generated/x.ts", line: 0, column: 0, severity: "error", rule: "out-of-date", message: "`generated/x.ts` is not what the documents tangle to", hint: "run `npm run tangle` first" }],
      });
      expect(verified.stderr).toBe("generated/x.ts out-of-date: `generated/x.ts` is not what the documents tangle to\n  hint: run `npm run tangle` first\n");
    },
    slow,
  );

  it(
    "and removes the file --report names, so an earlier run's report cannot stand for this one",
    async ({ expect }) => {
      const project = fresh(good);
      project.tangleNow();
      project.write("coverage/verify-report.json", '{ "ok": true }\n');
      project.write(doc, edit(good, "  return a + b;", "  return b + a;"));
      const verified = await project.verify("--report", join(project.root, "coverage", "verify-report.json"));
      expect(verified.code).toBe(1);
      expect(verified.stderr).toContain("generated/x.ts out-of-date:");
      expect(existsSync(join(project.root, "coverage", "verify-report.json"))).toBe(false);
    },
    slow,
  );

  it(
    "when a document does not tangle, at the offending attribute",
    async ({ expect }) => {
      const text = edit(good, "```ts #clamp-body", "```ts #clamp-body no-tangel");
      const project = fresh(text);
      const verified = await project.verify();
      expect(verified).toEqual({
        code: 1,
        stdout: "",
        stderr: `${doc}:${lineOf(text, "no-tangel")}:19 unknown-attribute: unknown block attribute \`no-tangel\`\n  hint: known attributes: \`file=PATH\`, \`#name\`, \`test\`, \`no-tangle\`, \`tested=HASH\`\n`,
      });
    },
    slow,
  );

  it(
    "when the root is not a folder",
    async ({ expect }) => {
      const project = fresh(good);
      const missing = join(project.root, "nowhere");
      const verified = await run(process.execPath, [launcher, "verify", "--root", missing], project.root);
      expect(verified).toEqual({ code: 1, stdout: "", stderr: `${missing} bad-root: \`${missing}\` is not a folder\n  hint: run verify in the project root, or name it with \`--root DIR\`\n` });
    },
    slow,
  );

  it(
    "when --compiler names no compiler",
    async ({ expect }) => {
      const verified = await fresh(good).verify("--compiler", "tsc");
      expect(verified).toEqual({ code: 1, stdout: "", stderr: "verify: --compiler must be `native` or `javascript`, not `tsc`\n" });
    },
    slow,
  );
});

describe("verify --stamp and its evidence", { concurrent: true }, () => {
  const projects: Project[] = [];
  afterAll(() => {
    for (const p of projects) p.remove();
  });
  const fresh = (text: string): Project => {
    const project = new Project({ [doc]: text });
    projects.push(project);
    project.tangleNow();
    return project;
  };

  it(
    "finds the evidence when the root is reached through a symbolic link",
    async ({ expect }) => {
      // Vitest names covered files by their real path; a root given through a link must still match them.
      const project = fresh(good);
      const link = `${project.root}-link`;
      symlinkSync(project.root, link, "dir");
      try {
        const verified = await run(process.execPath, [launcher, "verify", "--stamp", "--root", link], link);
        expect(verified.stdout).toBe(`${summary(7, 1, 6, 0)}stamps: 6 written, 0 removed\nPASS: 7 blocks in 1 documents\n`);
        expect(verified.code).toBe(0);
      } finally {
        unlinkSync(link);
      }
    },
    slow,
  );

  it(
    "touches no stamp when the test run leaves no evidence to judge by",
    async ({ expect }) => {
      const text = edit(good, "```ts\nexport function add", "```ts tested=0123456789ab\nexport function add");
      const project = fresh(text);
      // A vitest configuration without the json reporter: the run passes but writes no results file.
      project.write(
        "vitest.config.ts",
        'import { defineConfig } from "vitest/config";\nexport default defineConfig({ test: { include: ["test/**/*.test.ts"], coverage: { provider: "v8", include: ["generated/**/*.ts"], reporter: ["json"], reportsDirectory: "coverage" } } });\n',
      );
      const verified = await project.verify("--stamp");
      expect(verified.stdout).toBe(
        untestedForLackOfResults(text) +
          "test run tested: no test results found at `coverage/vitest-results.json`, so no block counts as tested\n" +
          "  hint: run `npm test`, or `npm run verify -- --stamp`\n\n" +
          summary(7, 1, 0, 6) +
          "stamps: 0 written, 0 removed\n" +
          "FAIL: 7 problems\n",
      );
      expect(verified.code).toBe(1);
      expect(project.read(doc)).toBe(text);
    },
    slow,
  );
});

describe("verify --stamp while someone edits a document", () => {
  it(
    "keeps an edit made while the tests ran, writes no stamp over it, and says so",
    async () => {
      const project = new Project({ [doc]: good });
      try {
        project.tangleNow();
        expect((await project.test()).code).toBe(0);
        const edited = `${good}\nA sentence typed while the tests ran.\n`;
        const report = verifyProject({
          root: project.root,
          stamp: true,
          runTests: () => {
            project.write(doc, edited);
            return true;
          },
        });
        expect(project.read(doc)).toBe(edited);
        expect(report.ok).toBe(false);
        expect(report.problems.map(formatDiagnostic)).toContain(
          `${doc} tested: the document changed while verify ran, so its stamps were not written\n  hint: run \`npm run verify -- --stamp\` again`,
        );
      } finally {
        project.remove();
      }
    },
    slow,
  );
});

describe("verify over a project model its caller holds", () => {
  it(
    "judges the documents as the model holds them, without reading or tangling them again, and refuses a model without prose facts",
    () => {
      const project = new Project({ [doc]: good });
      try {
        project.tangleNow();
        // The model's text has a blank line for the prose before \`Pair\`; the file on disk has the prose, and tangles to the same files.
        const withoutProse = good.replace("A **Pair** is two numbers; a type needs no test, the compiler checks it.", "");
        const parsed: string[] = [];
        const model = ProjectModel.of([{ path: doc, text: withoutProse }], {
          scan: "remark",
          parse: (path, text, scan) => {
            parsed.push(path);
            return parseLiterateDocument(path, text, scan);
          },
        });
        const fromModel = verifyProject({ root: project.root, model });
        const fromDisk = verifyProject({ root: project.root });
        const fence = lineOf(withoutProse, "export interface Pair") - 1;
        expect(fromModel.problems.map(formatDiagnostic)).toContain(
          `${doc}:${fence}:1 prose: no prose before this block\n  hint: write a heading or a paragraph that says why this code exists, between it and the previous block`,
        );
        expect(fromDisk.problems.filter((p) => p.rule === "prose")).toEqual([]);
        expect(model.counts.tangles).toBe(1);
        expect(parsed).toEqual([doc]);
        expect(() => verifyProject({ root: project.root, model: ProjectModel.of([{ path: doc, text: good }]) })).toThrow("verifyProject needs a model scanned with remark");
      } finally {
        project.remove();
      }
    },
    slow,
  );
});

/**
 * A document each of whose blocks ran only in part: a class one of whose methods no test calls,
 * a function whose returned closure no test calls, and a constant nothing reads. Module loading
 * and the parts that did run once made each of them count as tested.
 */
const partial = `---
tangle: generated/x.ts
test: test/x.test.ts
---

# Parts

**step** is what a count goes up by; the counter reads it.

\`\`\`ts
export const step = 1;
\`\`\`

**limit** is the largest count; nothing reads it.

\`\`\`ts
export const limit = 10;
\`\`\`

A **Counter** counts up, and can start again; no test starts it again.

\`\`\`ts
export class Counter {
  #count = 0;
  increment(): number {
    this.#count += step;
    return this.#count;
  }
  reset(): void {
    this.#count = 0;
  }
}
\`\`\`

**evens** keeps the even numbers and can say why it dropped one; no test asks why.

\`\`\`ts
export function evens(xs: readonly number[]): { kept: number[]; why: (n: number) => string } {
  return { kept: xs.filter((x) => x % 2 === 0), why: (n) => \`\${n} is odd\` };
}
\`\`\`

The tests call some of it.

\`\`\`ts test
import { expect, it } from "vitest";
import { Counter, evens } from "../generated/x.ts";

it("counts", () => expect(new Counter().increment()).toBe(1));
it("keeps the even numbers", () => expect(evens([1, 2, 3, 4]).kept).toEqual([2, 4]));
\`\`\`
`;

describe("verify asks every part of a block to have run", { concurrent: true }, () => {
  it(
    "fails naming a method never called, a closure never run and a constant nothing reads, and stamps only the constant that is read",
    async ({ expect }) => {
      const project = new Project({ [doc]: partial });
      try {
        project.tangleNow();
        const verified = await project.verify("--stamp");
        const hint = (what: string): string => `  hint: ${what}\n`;
        const calls = hint("add a test that calls it, stating the behaviour that needs it (or remove it, if nothing can), then `npm run verify -- --stamp`");
        expect(verified.stdout).toBe(
          `${doc}:${fenceOf(partial, "export const limit")}:1 tested: the constant \`limit\` (line ${lineOf(partial, "export const limit")}) is never read by code that ran\n` +
            hint("add a test that uses it, or the code that reads it (or remove it, if nothing needs it), then `npm run verify -- --stamp`") +
            `${doc}:${fenceOf(partial, "export class Counter")}:1 tested: the method \`reset\` (line ${lineOf(partial, "reset(): void")}) never ran\n` +
            calls +
            `${doc}:${fenceOf(partial, "export function evens")}:1 tested: the function \`why\` (line ${lineOf(partial, "why: (n) =>")}) never ran\n` +
            calls +
            "\n" +
            `${doc}: 4 definition blocks (0 type-only), 1/4 tested, 3 problem(s)\n` +
            "stamps: 1 written, 0 removed\n" +
            "FAIL: 3 problems\n",
        );
        expect(verified.code).toBe(1);
        expect(fenceLines(project.read(doc))).toEqual([`\`\`\`ts tested=${hashesOf(partial)[0]}`, "```ts", "```ts", "```ts", "```ts test"]);
      } finally {
        project.remove();
      }
    },
    slow,
  );
});

describe("verify and evidence from more than one run", { concurrent: true }, () => {
  it(
    "refuses results that record a failed test file, though a later run of some tests left newer coverage beside them",
    async ({ expect }) => {
      const project = new Project({ [doc]: good });
      try {
        project.tangleNow();
        expect((await project.verify("--stamp")).code).toBe(0);
        // The whole suite fails on a test file that cannot load; a run of the one good file then
        // writes coverage, but not results (its reporter is not the json one), and keeps the
        // folder's other files.
        project.write("test/broken.test.ts", 'throw new Error("broken at import");\n');
        expect((await project.test()).code).toBe(1);
        const partialRun = await run(join(repository, "node_modules", ".bin", "vitest"), ["run", "--coverage", "--coverage.clean=false", "--reporter=default", "test/x.test.ts"], project.root);
        expect(partialRun.code).toBe(0);
        const verified = await project.verify();
        expect(verified.stdout).toBe(
          "test run tested: `coverage/vitest-results.json` records a failed run (1 failed suite(s), 1 failed test file(s)), so no block counts as tested\n" +
            "  hint: run the whole suite again until it passes: `npm test`, or `npm run verify -- --stamp`\n\n" +
            summary(7, 1, 0, 0) +
            "FAIL: 1 problems\n",
        );
        expect(verified.code).toBe(1);
      } finally {
        project.remove();
      }
    },
    slow,
  );
});
