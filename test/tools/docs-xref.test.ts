import { describe, expect, it } from "vitest";
import { crossReference, readCompilerOptions } from "../../tools/lib/docs/xref.ts";

const source = `import { expect as check } from "vitest";
export function f(): number { return 1; }
export const a = [1, 2] as const;
export const b: number | undefined = undefined;
export type Wrapped<T extends object> = { value: T };
export type R = ReturnType<typeof f>;
export const run = (): void => check(a).toBeDefined();
`;

describe("the cross-references' hovers", () => {
  const xref = crossReference(process.cwd(), new Map([["generated/hover-fixture.ts", source]]), readCompilerOptions(process.cwd()));
  const hover = (name: string): string | undefined => xref.symbols.find((s) => s.name === name)?.hover.split("\n")[0];

  it("skip keywords: `undefined` and the `const` of `as const` have no hover", () => {
    expect(xref.symbols.map((s) => s.name)).not.toContain("undefined");
    expect(xref.symbols.map((s) => s.name)).not.toContain("const");
  });

  it("keep a generic type alias's type parameters", () => {
    expect(hover("Wrapped")).toBe("type Wrapped<T extends object> = { value: T; }");
    expect(hover("ReturnType")).toMatch(/^type ReturnType<T extends \(\.\.\.args: any\) => any> = /);
  });

  it("name an imported binding as it is used, not by the exporter's internal name", () => {
    expect(hover("check")).toMatch(/^const check: /);
  });

  it("link every use to the declaration in the tangled file", () => {
    const f = xref.symbols.findIndex((s) => s.name === "f");
    expect(xref.symbols[f]?.definition).toEqual({ file: "generated/hover-fixture.ts", line: 1, character: 16 });
    expect(xref.occurrences.filter((o) => o.symbol === f).map((o) => o.isDefinition)).toEqual([true, false]);
  });
});
