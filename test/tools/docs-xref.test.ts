import { describe, expect, it } from "vitest";
import { crossReference, crossReferenceChanged, lineMove, readCompilerOptions, xrefMemory } from "../../tools/lib/docs/xref.ts";

const source = `import { expect as check } from "vitest";
export function f(): number { return 1; }
export const a = [1, 2] as const;
export const b: number | undefined = undefined;
export type Wrapped<T extends object> = { value: T };
export type R = ReturnType<typeof f>;
export const run = (): void => check(a).toBeDefined();
/** Calls {@link f} and {@link run | the runner}; see {@linkcode Wrapped}. */
export const linked = 2;
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

  it("show a doc comment's {@link} as the name or text a reader sees, never raw", () => {
    const full = xref.symbols.find((s) => s.name === "linked")?.hover ?? "";
    expect(full).toContain("Calls f and the runner; see Wrapped.");
    expect(full).not.toContain("{@link");
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

describe("the cross-references of the changed files only (npm run dev's quick docs build)", () => {
  const root = process.cwd();
  const options = readCompilerOptions(root);
  const lib = `/** Doubles. */\nexport function double(n: number): number {\n  return n * 2;\n}\nexport const unit = 1;\n`;
  const user = `import { double, unit } from "./lib-fixture.ts";\nexport const four = double(2) + unit;\n`;
  const before = new Map([["generated/lib-fixture.ts", lib], ["generated/user-fixture.ts", user]]);
  const edited = lib.replace("/** Doubles. */\n", "/** Doubles. */\n// a comment moves what follows one line down\n").replace("n: number): number", "n: number, by = 2): number");
  const after = new Map([["generated/lib-fixture.ts", edited], ["generated/user-fixture.ts", user]]);

  it("resolve a changed file as a full run does, keep the other files' occurrences, and move their links to the changed file's new lines", () => {
    const memory = xrefMemory();
    const previous = crossReference(root, before, options, memory);
    const quick = crossReferenceChanged(root, after, options, memory, previous, before);
    const full = crossReference(root, after, options);
    const view = (x: typeof full, file: string): string[] =>
      x.occurrences.filter((o) => o.file === file).map((o) => `${o.line}:${o.character} ${x.symbols[o.symbol]?.name ?? ""} ${JSON.stringify(x.symbols[o.symbol]?.definition)} ${x.symbols[o.symbol]?.hover.split("\n")[0] ?? ""}`).sort();
    expect(view(quick, "generated/lib-fixture.ts")).toEqual(view(full, "generated/lib-fixture.ts"));
    // The unchanged file's uses of `double` now lead to line 2, and show the new signature.
    expect(view(quick, "generated/user-fixture.ts")).toEqual(view(full, "generated/user-fixture.ts"));
    expect(view(quick, "generated/user-fixture.ts").join("\n")).toContain('double {"file":"generated/lib-fixture.ts","line":2,"character":16} function double(n: number, by?: number): number');
  });

  it("give back the previous result when nothing changed, and resolve everything again when a file was added", () => {
    const memory = xrefMemory();
    const previous = crossReference(root, before, options, memory);
    expect(crossReferenceChanged(root, before, options, memory, previous, before).occurrences).toBe(previous.occurrences);
    const added = new Map([...before, ["generated/other-fixture.ts", "export const other = 3;\n"]]);
    const again = crossReferenceChanged(root, added, options, memory, previous, before);
    expect(again.symbols.map((s) => s.name)).toContain("other");
  });

  it("move the lines above and below one replaced stretch, and place none inside it", () => {
    const move = lineMove("a\nb\nc\nd", "a\nx\ny\nc\nd");
    expect([0, 1, 2, 3].map(move)).toEqual([0, undefined, 3, 4]);
  });
});
