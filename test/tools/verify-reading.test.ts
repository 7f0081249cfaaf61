// verify and the reading of the book, end to end: real two-chapter projects in the temp folder,
// the command the CLI runs (in this process, see `commandInProcess`), a real vitest run. A chapter importing a later chapter's
// module fails at the import line; a doc comment repeating its prose is a warning that leaves
// the exit code alone, and one stating a contract the prose does not is not.
import { afterAll, describe, it } from "vitest";
import type { VerifyReport } from "../../tools/lib/commands/verify.ts";
import { Project, edit, lineOf } from "./verify-project.ts";

const slow = 120_000;

/** The earlier chapter: a type, and a function whose doc comment gives a contract its prose does not. */
const points = `---
tangle: generated/a.ts
test: test/a.test.ts
order: 10
---

# Points

A **Point** is where something stands on the line; a type needs no test, the compiler checks it.

\`\`\`ts
export interface Point {
  readonly x: number;
}
\`\`\`

**origin** is where every walk starts, so that two walks can be compared.

\`\`\`ts
/** Returns a new point at x = 0 on each call; the caller owns it. */
export function origin(): Point {
  return { x: 0 };
}
\`\`\`

The tests ask for the origin.

\`\`\`ts test
import { expect, it } from "vitest";
import { origin } from "../generated/a.ts";

it("starts at zero", () => {
  expect(origin()).toEqual({ x: 0 });
});
\`\`\`
`;

/** The later chapter: it imports the earlier one's module, and its doc comment repeats its prose. */
const walks = `---
tangle: generated/b.ts
test: test/b.test.ts
order: 20
---

# Walks

**step** moves a point one unit forward along the line.

\`\`\`ts
import { origin, type Point } from "./a.ts";

/** step moves the point one unit forward along the line. */
export function step(from: Point = origin()): Point {
  return { x: from.x + 1 };
}
\`\`\`

The tests take a step from the origin.

\`\`\`ts test
import { expect, it } from "vitest";
import { step } from "../generated/b.ts";

it("steps forward", () => {
  expect(step()).toEqual({ x: 1 });
});
\`\`\`
`;

const warning =
  `literate/b.md:${lineOf(walks, "/** step moves")}:1 warning doc-comment: the doc comment states no contract: each of its sentences is made of the prose's words (it repeats 100% of them)\n` +
  "  hint: prose says why; the doc comment gives the contract (inputs, outputs, errors) — add a sentence saying what a caller needs and the prose does not\n";

describe("verify and the reading order of the book", { concurrent: true }, () => {
  const projects: Project[] = [];
  afterAll(() => {
    for (const p of projects) p.remove();
  });
  const fresh = (files: Readonly<Record<string, string>>): Project => {
    const project = new Project(files);
    projects.push(project);
    project.tangleNow();
    return project;
  };

  it(
    "passes when every chapter imports only from earlier ones, warning of the doc comment that repeats its prose and not of the one that states a contract",
    async ({ expect }) => {
      const project = fresh({ "literate/a.md": points, "literate/b.md": walks });
      const stamping = await project.verify("--stamp");
      expect(stamping.stdout).toBe(
        `${warning}\n` +
          "literate/a.md: 2 definition blocks (1 type-only), 1/1 tested, 0 problem(s)\n" +
          "literate/b.md: 1 definition blocks (0 type-only), 1/1 tested, 0 problem(s), 1 warning(s)\n" +
          "stamps: 2 written, 0 removed\n" +
          "PASS: 3 blocks in 2 documents, 1 warnings\n",
      );
      expect(stamping.code).toBe(0);
      const json = await project.verify("--json");
      expect(json.code).toBe(0);
      const report = JSON.parse(json.stdout) as VerifyReport;
      expect(report.ok).toBe(true);
      expect(report.problems.map((p) => [p.file, p.line, p.severity, p.rule])).toEqual([["literate/b.md", lineOf(walks, "/** step moves"), "warning", "doc-comment"]]);
      expect(report.documents.map((d) => [d.path, d.problems, d.warnings])).toEqual([
        ["literate/a.md", 0, 0],
        ["literate/b.md", 0, 1],
      ]);
    },
    slow,
  );

  it(
    "fails when a chapter imports the module of a chapter that comes later, at the import line, while its tests may import anything",
    async ({ expect }) => {
      // The points chapter moves after the walks chapter; nothing else changes.
      const project = fresh({ "literate/a.md": edit(points, "order: 10", "order: 30"), "literate/b.md": walks });
      const verified = await project.verify("--stamp");
      expect(verified.stdout).toBe(
        `literate/b.md:${lineOf(walks, 'from "./a.ts"')}:1 order: imports \`./a.ts\` from \`literate/a.md\` (order 30), which comes later in the book (this chapter is order 20)\n` +
          "  hint: move what this chapter needs from `literate/a.md` into a chapter before this one, or change the chapters' `order` so `literate/a.md` comes first\n" +
          warning +
          "\n" +
          "literate/a.md: 2 definition blocks (1 type-only), 1/1 tested, 0 problem(s)\n" +
          "literate/b.md: 1 definition blocks (0 type-only), 1/1 tested, 1 problem(s), 1 warning(s)\n" +
          "stamps: 2 written, 0 removed\n" +
          "FAIL: 1 problems, 1 warnings\n",
      );
      expect(verified.code).toBe(1);
    },
    slow,
  );
});
