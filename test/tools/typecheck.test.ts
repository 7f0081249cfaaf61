// Rule 3's compiler run: the native compiler's `--pretty false` output parsed into diagnostics,
// and the native compiler and the JavaScript API agreeing on a real project.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CompilerDiagnostic } from "../../tools/lib/core/evidence.ts";
import { nativeCompilerPath, parseCompilerOutput, typeCheck } from "../../tools/lib/runners/typecheck.ts";
import { repository } from "./verify-project.ts";

/** Output as the native compiler prints it (captured from `tsc -p tsconfig.json --noEmit --pretty false`). */
const sample = [
  "generated/x.ts(12,9): error TS2322: Type 'number' is not assignable to type 'string'.",
  "generated/x.ts(2,7): error TS2322: Type '{ a: { b: string; }; }' is not assignable to type '{ a: { b: number; }; }'.",
  "  The types of 'a.b' are incompatible between these types.",
  "    Type 'string' is not assignable to type 'number'.",
  "tsconfig.json(1,35): error TS5023: Unknown compiler option 'foo'.",
  "error TS5023: Unknown compiler option '--foo'.",
  "",
].join("\n");

describe("parseCompilerOutput", () => {
  it("reads located, continued and global diagnostics", () => {
    expect(parseCompilerOutput(sample)).toEqual<CompilerDiagnostic[]>([
      { file: "generated/x.ts", line: 12, column: 9, code: 2322, message: "Type 'number' is not assignable to type 'string'." },
      {
        file: "generated/x.ts",
        line: 2,
        column: 7,
        code: 2322,
        message: "Type '{ a: { b: string; }; }' is not assignable to type '{ a: { b: number; }; }'. The types of 'a.b' are incompatible between these types. Type 'string' is not assignable to type 'number'.",
      },
      { file: "tsconfig.json", line: 1, column: 35, code: 5023, message: "Unknown compiler option 'foo'." },
      { file: "", line: 0, column: 0, code: 5023, message: "Unknown compiler option '--foo'." },
    ]);
  });

  it("reads CRLF output as it reads LF output", () => {
    expect(parseCompilerOutput(sample.replace(/\n/g, "\r\n"))).toEqual(parseCompilerOutput(sample));
  });

  it.each<[string, string, CompilerDiagnostic[]]>([
    ["nothing, for no output", "", []],
    ["Windows paths with forward slashes", "generated\\x.ts(1,2): error TS1005: ';' expected.", [{ file: "generated/x.ts", line: 1, column: 2, code: 1005, message: "';' expected." }]],
    ["a path holding parentheses", "src/a(1).ts(3,4): error TS2304: Cannot find name 'y'.", [{ file: "src/a(1).ts", line: 3, column: 4, code: 2304, message: "Cannot find name 'y'." }]],
    ["a line it does not know as a global message, not a lost one", "Something unexpected", [{ file: "", line: 0, column: 0, code: 0, message: "Something unexpected" }]],
    [
      "a continuation line after a global diagnostic as part of it",
      "error TS6053: File 'a.ts' not found.\n  The file is in the program because:",
      [{ file: "", line: 0, column: 0, code: 6053, message: "File 'a.ts' not found. The file is in the program because:" }],
    ],
  ])("reads %s", (_, output, want) => {
    expect(parseCompilerOutput(output)).toEqual(want);
  });
});

describe("typeCheck on a project folder", () => {
  let root = "";
  const write = (path: string, text: string): void => writeFileSync(join(root, path), text);
  const unknownOption = '{\n  "compilerOptions": { "lib": ["ES2022"], "types": [], "frobnicate": true },\n  "files": ["src/clean.ts"]\n}\n';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "typecheck-test-"));
    symlinkSync(join(repository, "node_modules"), join(root, "node_modules"), "dir");
    mkdirSync(join(root, "src"));
    write("package.json", '{ "type": "module" }\n');
    // No DOM and no @types: a small program, so the JavaScript API checks it in a moment.
    const options = { strict: true, noEmit: true, target: "ES2022", lib: ["ES2022"], module: "NodeNext", moduleResolution: "NodeNext", allowImportingTsExtensions: true, types: [] };
    write("tsconfig.json", JSON.stringify({ compilerOptions: options, include: ["src"] }));
    write("tsconfig.clean.json", JSON.stringify({ compilerOptions: options, files: ["src/clean.ts"] }));
    write("tsconfig.unknown.json", unknownOption);
    write("src/clean.ts", "export const n: number = 1;\n");
    write("src/broken.ts", 'import { n } from "./clean.ts";\n\nexport function f(): string {\n  return n;\n}\n\nexport const g = (x: number): number => x.length;\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const place = (d: CompilerDiagnostic): Omit<CompilerDiagnostic, "message"> => ({ file: d.file, line: d.line, column: d.column, code: d.code });
  const compilers = [
    ["native", nativeCompilerPath() !== undefined],
    ["javascript", true],
  ] as const;

  it.each(compilers)("finds each type error at its file, line and column with the %s compiler", (compiler, available) => {
    if (!available) return;
    const checked = typeCheck(root, { compiler });
    expect(checked.compiler).toBe(compiler);
    expect(checked.diagnostics.map(place)).toEqual([
      { file: "src/broken.ts", line: 4, column: 3, code: 2322 },
      { file: "src/broken.ts", line: 7, column: 43, code: 2339 },
    ]);
    expect(checked.diagnostics[0]?.message).toBe("Type 'number' is not assignable to type 'string'.");
  });

  it.each(compilers)("finds nothing in a clean program with the %s compiler", (compiler, available) => {
    if (!available) return;
    expect(typeCheck(root, { compiler, project: "tsconfig.clean.json" }).diagnostics).toEqual([]);
  });

  it.each(compilers)("reports an unknown compiler option at its place in the configuration with the %s compiler", (compiler, available) => {
    if (!available) return;
    const checked = typeCheck(root, { compiler, project: "tsconfig.unknown.json" });
    const column = (unknownOption.split("\n")[1] ?? "").indexOf('"frobnicate"') + 1;
    expect(checked.diagnostics).toEqual([{ file: "tsconfig.unknown.json", line: 2, column, code: 5023, message: "Unknown compiler option 'frobnicate'." }]);
  });

  it.each(compilers)("reports a missing configuration as one diagnostic of no file with the %s compiler", (compiler, available) => {
    if (!available) return;
    const checked = typeCheck(root, { compiler, project: "tsconfig.missing.json" });
    expect(checked.diagnostics.map((d) => [d.file, d.line, d.message.includes("tsconfig.missing.json")])).toEqual([["", 0, true]]);
  });

  it("uses the native compiler by default when this platform has one", () => {
    expect(typeCheck(root, { project: "tsconfig.clean.json" }).compiler).toBe(nativeCompilerPath() === undefined ? "javascript" : "native");
  });
});
