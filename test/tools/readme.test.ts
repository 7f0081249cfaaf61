// The README's format example is a real document: this test tangles it and checks the rules,
// so the documentation cannot drift from what the tools do.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { analyzeDefinitions } from "../../tools/lib/core/definitions.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const example = /````markdown\n([\s\S]*?)\n````/.exec(readme)?.[1] ?? "";

describe("the README's format example", () => {
  const result = tangle([{ path: "literate/greet.md", text: example }]);

  it("is present in the README", () => {
    expect(example).toContain("tangle: generated/greet.ts");
  });

  it("tangles without a problem", () => {
    expect(result.diagnostics).toEqual([]);
    expect([...result.files.keys()].sort()).toEqual(["generated/greet.ts", "test/greet.test.ts"]);
  });

  it("splices the named block with the indentation of its reference", () => {
    const greet = result.files.get("generated/greet.ts") ?? "";
    expect(greet).toContain(
      'export function greet(name: string): string {\n  // literate/greet.md:19\n  if (name === "") throw new Error("greet: `name` is empty");\n  return `Hello, ${name}!`;\n  // literate/greet.md:13\n}',
    );
  });

  it("satisfies the one-definition rule", () => {
    const { analyses, diagnostics } = analyzeDefinitions(result);
    expect(diagnostics).toEqual([]);
    expect(analyses.map((a) => a.kind)).toEqual(["definition", "fragment", "test"]);
  });
});
