/**
 * A small book for the language server's tests: three chapters, the later ones importing the
 * earlier ones, one `<<name>>` splice, a test block; tangled to disk (so TypeScript's own answers
 * on `generated/` can be compared with the server's in the book). Built in a fresh temp folder.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTangle } from "../../tools/lib/commands/tangle-run.ts";
import { fence, md } from "./support.ts";

/** The chapters, by path. */
export const chapters: Readonly<Record<string, string>> = {
  "literate/shapes.md": md(
    "---",
    "tangle: generated/shapes.ts",
    "order: 1",
    "---",
    "",
    "# Shapes",
    "",
    "A point is two numbers, read-only so a shape cannot be bent by whoever holds it.",
    "",
    `${fence}ts`,
    "/** A point on the plane. */",
    "export interface Point {",
    "  readonly x: number;",
    "  readonly y: number;",
    "}",
    fence,
    "",
    "The distance is Euclid's: the straight line, not the streets.",
    "",
    `${fence}ts`,
    "/** The straight-line distance between two points. */",
    "export function distance(a: Point, b: Point): number {",
    "  return Math.hypot(a.x - b.x, a.y - b.y);",
    "}",
    fence,
    "",
    "An area refuses a negative side instead of returning a negative area.",
    "",
    `${fence}ts`,
    "/** The area of a rectangle. */",
    "export function area(width: number, height: number): number {",
    "  <<side-check>>",
    "  return width * height;",
    "}",
    fence,
    "",
    "The check is its own block, spliced into the function above.",
    "",
    `${fence}ts #side-check`,
    'if (width < 0 || height < 0) throw new Error("negative side");',
    fence,
  ),
  "literate/paths.md": md(
    "---",
    "tangle: generated/paths.ts",
    "test: test/paths.test.ts",
    "order: 2",
    "---",
    "",
    "# Paths",
    "",
    "A path is measured leg by leg with the distance of the previous chapter.",
    "",
    `${fence}ts`,
    'import { distance, type Point } from "./shapes.ts";',
    fence,
    "",
    "The length of a path adds its legs; a path of fewer than two points has none.",
    "",
    `${fence}ts`,
    "/** The length of a path through `points`, in order. */",
    "export function pathLength(points: readonly Point[]): number {",
    "  let total = 0;",
    "  for (let i = 1; i < points.length; i++) total += distance(points[i - 1]!, points[i]!);",
    "  return total;",
    "}",
    fence,
    "",
    "A test: the 3-4-5 triangle.",
    "",
    `${fence}ts test`,
    'import { pathLength } from "../generated/paths.ts";',
    "",
    "export const fiveLong = pathLength([{ x: 0, y: 0 }, { x: 3, y: 4 }]) === 5;",
    fence,
  ),
  "literate/report.md": md(
    "---",
    "tangle: generated/report.ts",
    "order: 3",
    "---",
    "",
    "# Report",
    "",
    "The report uses both earlier chapters.",
    "",
    `${fence}ts`,
    'import { area, distance } from "./shapes.ts";',
    'import { pathLength } from "./paths.ts";',
    fence,
    "",
    "One line per route, so a reader can compare routes at a glance.",
    "",
    `${fence}ts`,
    "/** A one-line report of a route and the field it crosses. */",
    "export function describeRoute(width: number, height: number): string {",
    "  const corner = { x: width, y: height };",
    "  const length = pathLength([{ x: 0, y: 0 }, corner]);",
    "  return `route ${length} (${distance({ x: 0, y: 0 }, corner)}) over ${area(width, height)}`;",
    "}",
    fence,
  ),
};

/** The fixture's compiler options: the project's strictness, without `node` types (no `node_modules` here). */
const tsconfig = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    types: [],
    strict: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
  },
  include: ["generated", "test"],
};

/** Writes the fixture book into a fresh temp folder, tangles it, and returns the folder. */
export function fixtureBook(): string {
  const root = mkdtempSync(join(tmpdir(), "lsp-book-"));
  mkdirSync(join(root, "literate"));
  writeFileSync(join(root, "package.json"), `${JSON.stringify({ type: "module", private: true })}\n`);
  writeFileSync(join(root, "tsconfig.json"), `${JSON.stringify(tsconfig, null, 2)}\n`);
  for (const [path, text] of Object.entries(chapters)) writeFileSync(join(root, path), text);
  runTangle({ root });
  return root;
}
