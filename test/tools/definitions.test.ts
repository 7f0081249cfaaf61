// Rule 1, "one definition", over inline Markdown: what each block declares, read where tangle
// put it, so a class assembled from method blocks counts once and each method block once.
import { describe, expect, it } from "vitest";
import { analyzeDefinitions, type BlockAnalysis, type BlockKind } from "../../tools/lib/core/definitions.ts";
import type { Diagnostic } from "../../tools/lib/core/diagnostics.ts";
import { tangle, type TangleResult } from "../../tools/lib/core/tangle.ts";

const path = "literate/x.md";

/** A document with the usual targets, a line of prose before every block. */
function documentOf(blocks: readonly string[]): string {
  return ["---", "tangle: generated/x.ts", "test: test/x.test.ts", "---", "", ...blocks.flatMap((block) => ["Why this block exists.", "", block, ""])].join("\n");
}

/** A ```ts block with the given info string after the language. */
const ts = (code: string, info = ""): string => `\`\`\`ts${info === "" ? "" : ` ${info}`}\n${code}\n\`\`\``;

function tangled(blocks: readonly string[]): TangleResult {
  const result = tangle([{ path, text: documentOf(blocks) }]);
  expect(result.diagnostics).toEqual([]);
  return result;
}

/** The part of an analysis a case pins: kind, names and whether it is type-only. */
type Shape = [kind: BlockKind, names: readonly string[], typeOnly: boolean];
const shape = (a: BlockAnalysis): Shape => [a.kind, a.names, a.typeOnly];

/** The first block's fence line in `documentOf`: four lines of front matter, a blank, prose, a blank. */
const firstFence = 8;

const oneDefinition = (message: string, hint: string, line = firstFence): Diagnostic => ({ file: path, line, column: 1, severity: "error", rule: "one-definition", message, hint });
const split = "split it into one block per definition, each with its own prose";

interface Case {
  readonly name: string;
  readonly blocks: readonly string[];
  readonly shapes: readonly Shape[];
  readonly problems?: (result: TangleResult) => readonly Diagnostic[];
}

const cases: readonly Case[] = [
  {
    name: "one function is one definition",
    blocks: [ts("export function add(a: number, b: number): number {\n  return a + b;\n}")],
    shapes: [["definition", ["add"], false]],
  },
  {
    name: "overloads count once",
    blocks: [ts("export function f(x: string): string;\nexport function f(x: number): number;\nexport function f(x: string | number): string | number {\n  return x;\n}")],
    shapes: [["definition", ["f"], false]],
  },
  {
    name: "a getter and its setter in one method block count once",
    blocks: [ts("export class Box {\n  #v = 0;\n  <<accessors>>\n}"), ts("get v(): number {\n  return this.#v;\n}\nset v(n: number) {\n  this.#v = n;\n}", "#accessors")],
    shapes: [
      ["definition", ["Box"], false],
      ["definition", ["v"], false],
    ],
  },
  {
    name: "`const a = 1, b = 2` is two definitions",
    blocks: [ts("export const a = 1, b = 2;")],
    shapes: [["definition", ["a", "b"], false]],
    problems: () => [oneDefinition("block declares 2 definitions (`a`, `b`)", split)],
  },
  {
    name: "two functions are two definitions",
    blocks: [ts("export function a(): void {}\nexport function b(): void {}")],
    shapes: [["definition", ["a", "b"], false]],
    problems: () => [oneDefinition("block declares 2 definitions (`a`, `b`)", split)],
  },
  {
    name: "imports do not count beside a definition",
    blocks: [ts('import { join } from "node:path";\nexport const here = join("a", "b");')],
    shapes: [["definition", ["here"], false]],
  },
  {
    name: "an import-only block is a preamble, with no problem",
    blocks: [ts('import { join } from "node:path";\nimport type { Stats } from "node:fs";')],
    shapes: [["preamble", [], true]],
  },
  {
    name: "a re-export-only block is a preamble",
    blocks: [ts('export { join } from "node:path";')],
    shapes: [["preamble", [], true]],
  },
  {
    name: "a top-level expression statement is a problem",
    blocks: [ts('console.log("loaded");')],
    shapes: [["definition", [], false]],
    problems: () => [oneDefinition('block holds a top-level statement that is not a definition (`console.log("loaded");`)', "move it into a function or a test block; top-level statements run on import")],
  },
  {
    name: "a top-level statement beside a definition is still a problem",
    blocks: [ts("export let count = 0;\ncount += 1;")],
    shapes: [["definition", ["count"], false]],
    problems: () => [oneDefinition("block holds a top-level statement that is not a definition (`count += 1;`)", "move it into a function or a test block; top-level statements run on import")],
  },
  {
    name: "a block holding only a comment declares nothing",
    blocks: [ts("// to be written")],
    shapes: [["definition", [], false]],
    problems: () => [oneDefinition("block declares nothing", "a definition block declares one function, class, interface, type, enum or `const`; mark an illustration `no-tangle`")],
  },
  {
    name: "an interface is type-only",
    blocks: [ts("export interface Pair {\n  readonly a: number;\n}")],
    shapes: [["definition", ["Pair"], true]],
  },
  {
    name: "a type alias is type-only",
    blocks: [ts("export type Id = string;")],
    shapes: [["definition", ["Id"], true]],
  },
  {
    name: "a `declare const` is type-only",
    blocks: [ts("export declare const version: string;")],
    shapes: [["definition", ["version"], true]],
  },
  {
    name: "a class assembled from one block per method counts once, and each method block once",
    blocks: [ts("export class Counter {\n  #count = 0;\n  <<methods>>\n}"), ts("increment(): void {\n  this.#count += 1;\n}", "#methods"), ts("value(): number {\n  return this.#count;\n}", "#methods")],
    shapes: [
      ["definition", ["Counter"], false],
      ["definition", ["increment"], false],
      ["definition", ["value"], false],
    ],
  },
  {
    name: "a method block with two methods is a problem at that block",
    blocks: [ts("export class Counter {\n  #count = 0;\n  <<methods>>\n}"), ts("increment(): void {\n  this.#count += 1;\n}\nreset(): void {\n  this.#count = 0;\n}", "#methods")],
    shapes: [
      ["definition", ["Counter"], false],
      ["definition", ["increment", "reset"], false],
    ],
    problems: (result) => [oneDefinition("block declares 2 definitions (`increment`, `reset`)", split, result.blocks[1]?.line)],
  },
  {
    name: "an interface assembled from member blocks keeps its members type-only",
    blocks: [ts("export interface Options {\n  <<option>>\n}"), ts("readonly verbose: boolean;", "#option")],
    shapes: [
      ["definition", ["Options"], true],
      ["definition", ["verbose"], true],
    ],
  },
  {
    name: "a fragment spliced into a function body is a fragment",
    blocks: [ts("export function clamp(n: number, low: number, high: number): number {\n  <<body>>\n}"), ts("if (n < low) return low;\nreturn n > high ? high : n;", "#body")],
    shapes: [
      ["definition", ["clamp"], false],
      ["fragment", [], false],
    ],
  },
  {
    name: "a named block spliced at top level is judged like any definition",
    blocks: [ts("<<helpers>>\nexport const three = one() + 2;"), ts("function one(): number {\n  return 1;\n}\nfunction two(): number {\n  return 2;\n}", "#helpers")],
    shapes: [
      ["definition", ["three"], false],
      ["definition", ["one", "two"], false],
    ],
    problems: (result) => [oneDefinition("block declares 2 definitions (`one`, `two`)", split, result.blocks[1]?.line)],
  },
  {
    name: "test blocks are tests, whatever they hold",
    blocks: [ts("export const a = 1;"), ts('import { it } from "vitest";\nconst x = 1, y = 2;\nit("runs", () => {});', "test")],
    shapes: [
      ["definition", ["a"], false],
      ["test", [], false],
    ],
  },
  {
    name: "blocks sent to a test target with `file=` are tests",
    blocks: [ts("export const a = 1;"), ts('import { it } from "vitest";\nit("runs", () => {});', "test"), ts('it("also runs", () => {});', "file=test/x.test.ts")],
    shapes: [
      ["definition", ["a"], false],
      ["test", [], false],
      ["test", [], false],
    ],
  },
  {
    name: "illustrations and other languages are not judged",
    blocks: [ts("export function a(): void {}\nexport function b(): void {}", "no-tangle"), "```sh file=run.sh\necho hi\n```", "```json\n{}\n```"],
    shapes: [
      ["other", [], false],
      ["other", [], false],
      ["other", [], false],
    ],
  },
];

describe("analyzeDefinitions", () => {
  it.each(cases)("$name", ({ blocks, shapes, problems }) => {
    const result = tangled(blocks);
    const { analyses, diagnostics } = analyzeDefinitions(result);
    expect(analyses.map(shape)).toEqual(shapes);
    expect(diagnostics).toEqual(problems?.(result) ?? []);
  });

  it("says where in its target each written block's lines are", () => {
    const result = tangled([ts("export function add(a: number, b: number): number {\n  return a + b;\n}"), ts("export type Id = string;")]);
    const content = result.files.get("generated/x.ts")?.split("\n") ?? [];
    const { analyses } = analyzeDefinitions(result);
    const linesOf = (a: BlockAnalysis | undefined): string[] => (a?.generated === undefined ? [] : content.slice(a.generated.first - 1, a.generated.last));
    expect(analyses.map((a) => a.generated?.target)).toEqual(["generated/x.ts", "generated/x.ts"]);
    expect(linesOf(analyses[0])).toEqual(["export function add(a: number, b: number): number {", "  return a + b;", "}"]);
    expect(linesOf(analyses[1])).toEqual(["export type Id = string;"]);
  });

  it("judges blocks of several documents, each at its own document's location", () => {
    const other = (text: string): string => ["---", "tangle: generated/y.ts", "---", "", "Why.", "", text, ""].join("\n");
    const result = tangle([
      { path, text: documentOf([ts("export const a = 1;")]) },
      { path: "literate/y.md", text: other(ts("export const b = 1, c = 2;")) },
    ]);
    expect(result.diagnostics).toEqual([]);
    const { analyses, diagnostics } = analyzeDefinitions(result);
    expect(analyses.map(shape)).toEqual([
      ["definition", ["a"], false],
      ["definition", ["b", "c"], false],
    ]);
    expect(diagnostics).toEqual([{ file: "literate/y.md", line: 7, column: 1, severity: "error", rule: "one-definition", message: "block declares 2 definitions (`b`, `c`)", hint: split }]);
  });
});
