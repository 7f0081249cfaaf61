// Which tests executed which block (`tools/lib/docs/attribution.ts`): V8's function names from the
// per-test evidence, mapped to the blocks that declare them, with and without a long-lived
// process's memory of each tangled file's functions.
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { attributeTests, type AttributionFile, type AttributionMemory } from "../../tools/lib/docs/attribution.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";
import { fence, md } from "./support.ts";

const root = "/project";

/** A chapter tangled to `generated/a.ts`: `double` (block 0), a class `Counter` with a method spliced in (blocks 1, 2). */
function chapter(extra = ""): string {
  return md(
    "---",
    "tangle: generated/a.ts",
    "---",
    "Doubling.",
    "",
    `${fence}ts`,
    "export function double(n: number): number {",
    `  return n * 2;${extra}`,
    "}",
    fence,
    "",
    "A counter.",
    "",
    `${fence}ts`,
    "export class Counter {",
    "  <<counter-bump>>",
    "}",
    fence,
    "",
    "Its one method.",
    "",
    `${fence}ts #counter-bump`,
    "bump(): number {",
    "  return 1;",
    "}",
    fence,
  );
}

/** The evidence of one test file whose tests called `calls` (V8 function names) in `generated/a.ts`. */
function evidence(calls: Readonly<Record<string, readonly string[]>>): AttributionFile {
  const url = `${pathToFileURL(`${root}/generated/a.ts`).href}?v=1`;
  return { version: 1, testFile: "test/a.test.ts", tests: Object.entries(calls).map(([name, fns]) => ({ name, functions: fns.map((fn) => ({ url, name: fn })) })) };
}

describe("attributeTests", () => {
  const files = [evidence({ "doubles": ["double"], "counts": ["Counter", "bump"], "elsewhere": ["nothing"] })];

  it("names, for each block, the tests that called a function it declares: a constructor by its class, a method in its own block", () => {
    const tangled = tangle([{ path: "literate/a.md", text: chapter() }]);
    expect([...attributeTests(root, tangled, files)]).toEqual([
      [0, ["doubles"]],
      [1, ["counts"]],
      [2, ["counts"]],
    ]);
  });

  it("gives the same answer with a memory, which keeps only this call's files and is what a later call reads instead of parsing", () => {
    const memory: AttributionMemory = new Map();
    const tangled = tangle([{ path: "literate/a.md", text: chapter() }]);
    const first = attributeTests(root, tangled, files, memory);
    expect([...first]).toEqual([...attributeTests(root, tangled, files)]);
    const content = tangled.targets.find((t) => t.path === "generated/a.ts")?.content ?? "";
    expect([...memory.keys()]).toEqual([content]);

    // What the memory says of a file's text is taken as is: here, that `double` is declared on the method's line.
    const methodLine = memory.get(content)?.get("bump")?.[0] ?? -1;
    memory.set(content, new Map([["double", [methodLine]]]));
    expect([...attributeTests(root, tangled, files, memory)]).toEqual([[2, ["doubles"]]]);

    // A changed file is parsed again, and the memory forgets the old text.
    const edited = tangle([{ path: "literate/a.md", text: chapter(" // twice") }]);
    expect([...attributeTests(root, edited, files, memory)]).toEqual([...first]);
    expect([...memory.keys()]).toEqual([edited.targets.find((t) => t.path === "generated/a.ts")?.content]);
  });
});
