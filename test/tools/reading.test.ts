// The reading order and the doc comments, over inline Markdown: which imports verify refuses
// (a later chapter's module, type-only or re-exported; never from a test block) and where, which
// uses of a class member a later chapter defines, and when a doc comment says nothing its prose
// does not.
import { describe, expect, it } from "vitest";
import { analyzeDefinitions } from "../../tools/lib/core/definitions.ts";
import { formatDiagnostic } from "../../tools/lib/core/diagnostics.ts";
import { readingOrderProblems } from "../../tools/lib/core/order.ts";
import { contentWords, docCommentText, measureRepetition, repetitionWarnings } from "../../tools/lib/core/repetition.ts";
import { parseTargets } from "../../tools/lib/core/runs.ts";
import { tangle, type TangleInput } from "../../tools/lib/core/tangle.ts";
import { fence, md } from "./support.ts";

/** A chapter tangling `generated/NAME.ts` (and `test/NAME.test.ts`), with an optional `order`, made of prose-and-block pairs. */
function chapter(name: string, order: number | undefined, ...body: string[]): TangleInput {
  return { path: `literate/${name}.md`, text: md("---", `tangle: generated/${name}.ts`, `test: test/${name}.test.ts`, ...(order === undefined ? [] : [`order: ${order}`]), "---", "", ...body) };
}

/** Prose, then a ```ts block (with `info` after the language). */
const block = (prose: string, code: string, info = ""): string[] => [prose, "", `${fence}ts${info === "" ? "" : ` ${info}`}`, code, fence, ""];

/** The order problems of a book, formatted, in block order. */
function orderProblems(...chapters: TangleInput[]): string[] {
  const result = tangle(chapters, { scan: "remark" });
  expect(result.diagnostics).toEqual([]);
  const sources = parseTargets(result);
  const { analyses } = analyzeDefinitions(result, sources);
  const problems = readingOrderProblems(result, sources, (i) => analyses[i]?.kind === "test" || analyses[i]?.kind === "other");
  return [...problems.entries()].sort(([a], [b]) => a - b).flatMap(([, list]) => list.map(formatDiagnostic));
}

const point = block("A **Point** is where something is.", "export interface Point {\n  readonly x: number;\n}");
const hint = (later: string): string => `  hint: move what this chapter needs from \`${later}\` into a chapter before this one, or change the chapters' \`order\` so \`${later}\` comes first`;

describe("the reading order", () => {
  it("refuses a class member used before the chapter that defines it, at the use, and lets a later chapter use an earlier one's", () => {
    const counter = [
      ...block("A **Counter** counts.", "export class Counter {\n  count = 0;\n  <<counter-members>>\n}"),
      ...block("**bump** adds one, through the step the next chapter defines.", "bump(): void {\n  this.#step();\n}", "#counter-members"),
    ];
    const step = block("**#step** is the one way the count moves.", "#step(): void {\n  this.count++;\n}", "#counter-members");
    // a.md: front matter 1–5, a blank, prose 7, fence 9, the class 10–13, prose 16, fence 18, `bump` 19, `this.#step()` 20.
    expect(orderProblems(chapter("a", 10, ...counter), chapter("b", 20, ...step))).toEqual([
      "literate/a.md:20:8 order: uses `#step`, a member `literate/b.md` (order 20) defines, which comes later in the book (this chapter is order 10)\n  hint: move the block of `#step` into this chapter or one before it, or change the chapters' `order` so `literate/b.md` comes first",
    ]);
  });

  it("lets a chapter import from a chapter earlier in the book", () => {
    const shift = block("**shift** moves a point.", 'import type { Point } from "./a.ts";\n\nexport function shift(p: Point): Point {\n  return { x: p.x + 1 };\n}');
    expect(orderProblems(chapter("a", 10, ...point), chapter("b", 20, ...shift))).toEqual([]);
  });

  it("refuses a type-only import of a later chapter's module, at the import line's Markdown location", () => {
    const shift = block("**shift** moves a point.", 'import type { Point } from "./b.ts";\n\nexport function shift(p: Point): Point {\n  return { x: p.x + 1 };\n}');
    // Front matter is lines 1–5, a blank, the prose, a blank, the fence: the import is line 10.
    expect(orderProblems(chapter("a", 10, ...shift), chapter("b", 20, ...point))).toEqual([
      `literate/a.md:10:1 order: imports \`./b.ts\` from \`literate/b.md\` (order 20), which comes later in the book (this chapter is order 10)\n${hint("literate/b.md")}`,
    ]);
  });

  it("refuses a re-export of a later chapter's module, and puts a chapter without order after every chapter with one", () => {
    const again = block("The **Point** is re-exported for callers.", 'export type { Point } from "./b.ts";');
    expect(orderProblems(chapter("b", undefined, ...point), chapter("z", 90, ...again))).toEqual([
      `literate/z.md:10:1 order: imports \`./b.ts\` from \`literate/b.md\` (no \`order\`), which comes later in the book (this chapter is order 90)\n${hint("literate/b.md")}`,
    ]);
  });

  it("orders chapters of the same order by path", () => {
    const shift = block("**shift** moves a point.", 'import type { Point } from "./a.ts";\n\nexport function shift(p: Point): Point {\n  return { x: p.x + 1 };\n}');
    expect(orderProblems(chapter("a", 10, ...point), chapter("b", 10, ...shift))).toEqual([]);
    const back = block("**Near** is a point close by.", 'import type { Point } from "./b.ts";\n\nexport type Near = Point;');
    expect(orderProblems(chapter("a", 10, ...back), chapter("b", 10, ...point))).toEqual([
      `literate/a.md:10:1 order: imports \`./b.ts\` from \`literate/b.md\` (order 10), which comes later in the book (this chapter is order 10, and sorts first by path)\n${hint("literate/b.md")}`,
    ]);
  });

  it("knows a later chapter's module by any spelling of its name", () => {
    const near = (spec: string): string[] => block("**Near** is a point close by.", `import type { Point } from "${spec}";\n\nexport type Near = Point;`);
    for (const spec of ["./b.js", "./b"]) {
      expect(orderProblems(chapter("a", 10, ...near(spec)), chapter("b", 20, ...point))).toEqual([
        `literate/a.md:10:1 order: imports \`${spec}\` from \`literate/b.md\` (order 20), which comes later in the book (this chapter is order 10)\n${hint("literate/b.md")}`,
      ]);
    }
  });

  it("lets test blocks import from any chapter", () => {
    const tests = ["The tests use the later chapter's point.", "", `${fence}ts test`, 'import { it } from "vitest";\nimport type { Point } from "../generated/b.ts";\n\nit("has a point", () => {\n  const p: Point = { x: 1 };\n  void p;\n});', fence, ""];
    expect(orderProblems(chapter("a", 10, ...block("**one** is one.", "export const one = 1;"), ...tests), chapter("b", 20, ...point))).toEqual([]);
  });

  it("finds the import in an indented block at the column it has in the Markdown", () => {
    const listed = ["1. **Near** is a point close by:", "", `   ${fence}ts`, '   import type { Point } from "./b.ts";', "", "   export type Near = Point;", `   ${fence}`, ""];
    expect(orderProblems(chapter("a", 10, ...listed), chapter("b", 20, ...point))).toEqual([
      `literate/a.md:10:4 order: imports \`./b.ts\` from \`literate/b.md\` (order 20), which comes later in the book (this chapter is order 10)\n${hint("literate/b.md")}`,
    ]);
  });
});

/** The repetition measured for each doc comment of one chapter, as [Markdown line, percent, words]. */
function repetitions(...body: string[]): [number, number, number][] {
  const result = tangle([chapter("a", 10, ...body)], { scan: "remark" });
  expect(result.diagnostics).toEqual([]);
  const sources = parseTargets(result);
  const { analyses } = analyzeDefinitions(result, sources);
  return measureRepetition(result, sources, (i) => analyses[i]?.kind === "definition").map((m) => [m.line, Math.round(m.share * 100), m.words]);
}

describe("doc comments measured against their prose", () => {
  it("count the distinct content words, lower-cased, without stop words, numbers or punctuation, identifiers whole", () => {
    expect([...contentWords("The `parsePort` function reads THE port: 8080, and the port's number.")]).toEqual(["parseport", "function", "reads", "port", "number"]);
    expect(docCommentText("/**\n * Reads a port.\n * @param text the variable's text\n */")).toBe("Reads a port.\ntext the variable's text");
  });

  it("find the share of a doc comment's words that its prose already said", () => {
    const repeating = block("**parsePort** reads a port number from the text of an environment variable.", "/** parsePort reads the port number from an environment variable's text. */\nexport function parsePort(text: string): number {\n  return Number(text);\n}");
    const contract = block(
      "**checkPort** keeps a port out of the privileged range, so a typo cannot bind port 80.",
      "/** Returns `port` when it lies in 1024–65535; throws a RangeError naming the value otherwise. */\nexport function checkPort(port: number): number {\n  if (port < 1024 || port > 65535) throw new RangeError(`bad port ${port}`);\n  return port;\n}",
    );
    // Lines: front matter 1–5, blank, prose 7, blank, fence 9, doc comment 10; then prose 16, fence 18, doc comment 19.
    // The first repeats all 7 of its words; the second only `port`, 1 of 8.
    expect(repetitions(...repeating, ...contract)).toEqual([
      [10, 100, 7],
      [19, 13, 8],
    ]);
  });

  it("measure a method block's own doc comment, and a class's members only with their class", () => {
    const counter = block("A **Counter** counts what it is told to count.", "/** Counter counts. Not safe for concurrent writers. */\nexport class Counter {\n  /** The count so far, counted by increment. */\n  count = 0;\n  <<methods>>\n}");
    const increment = block("**increment** adds one to the count.", "/** increment adds one to the count. */\nincrement(): void {\n  this.count++;\n}", "#methods");
    // The class's comment repeats `counter` and `counts` of 5 words; the field's comment is not measured on its own.
    expect(repetitions(...counter, ...increment)).toEqual([
      [10, 40, 5],
      [21, 100, 3],
    ]);
  });

  it("warn when no sentence of a doc comment says what the prose does not, at the doc comment, with a hint", () => {
    const at = { block: 0, file: "literate/a.md", line: 10, column: 1 };
    const warnings = repetitionWarnings([
      { ...at, words: 10, share: 0.9, sentences: 2, adding: 0 },
      { ...at, block: 1, words: 10, share: 0.9, sentences: 2, adding: 1 },
      { ...at, block: 2, words: 0, share: 0, sentences: 0, adding: 0 },
    ]);
    expect([...warnings.keys()]).toEqual([0]);
    expect((warnings.get(0) ?? []).map(formatDiagnostic)).toEqual([
      "literate/a.md:10:1 warning doc-comment: the doc comment states no contract: each of its sentences is made of the prose's words (it repeats 90% of them)\n  hint: prose says why; the doc comment gives the contract (inputs, outputs, errors) — add a sentence saying what a caller needs and the prose does not",
    ]);
  });

  it("count a sentence that brings one word of the contract the prose lacks, whatever share of words it repeats", () => {
    const restating = block("**parsePort** reads a port number from the text of an environment variable.", "/** parsePort reads the port number. From an environment variable's text. */\nexport function parsePort(text: string): number {\n  return Number(text);\n}");
    const adding = block("**parseHost** reads a host name from the text of an environment variable.", "/** parseHost reads the host name from an environment variable's text. Throws on an empty one. */\nexport function parseHost(text: string): string {\n  if (text === \"\") throw new Error(\"empty\");\n  return text;\n}");
    const result = tangle([chapter("a", 10, ...restating, ...adding)], { scan: "remark" });
    const sources = parseTargets(result);
    const { analyses } = analyzeDefinitions(result, sources);
    const measured = measureRepetition(result, sources, (i) => analyses[i]?.kind === "definition");
    expect(measured.map((m) => [m.sentences, m.adding])).toEqual([
      [2, 0],
      [2, 1],
    ]);
    expect([...repetitionWarnings(measured).keys()]).toEqual([measured[0]?.block]);
  });
});
