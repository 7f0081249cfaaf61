// The book's language server, spoken to as an editor speaks to it: the real server started as a
// child process (`node tools/run.cjs lsp --stdio`), a real LSP client library over its stdio, a
// small fixture book in a temp folder (tangled to disk, so TypeScript's own answers on
// generated/ can be compared with the server's answers in the book), and one test on this
// repository's own book.
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeLens, CompletionItem, CompletionList, DocumentSymbol, Hover, Location, SignatureHelp, TextEdit, WorkspaceEdit } from "vscode-languageserver-protocol";
import { Book } from "../../tools/lib/lsp/book.ts";
import { BackgroundJudge, judgeInThread, type JudgeReply } from "../../tools/lib/lsp/judge-worker.ts";
import { readDocuments } from "../../tools/lib/disk/io.ts";
import { projectCompilerOptions } from "../../tools/lib/lsp/tangled-host.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";
import { runStitch } from "../../tools/lib/commands/stitch-run.ts";
import { runTangle } from "../../tools/lib/commands/tangle-run.ts";
import { BookClient } from "./lsp-client.ts";
import { chapters, fixtureBook } from "./lsp-fixture.ts";
import { decodeMappings, removeTempDirs, tempDir, type Segment } from "./support.ts";

afterAll(removeTempDirs);

/** The 0-based position of the `nth` occurrence of `word` in a document's text. */
function positionOf(text: string, word: string, nth = 1): { line: number; character: number } {
  let from = -1;
  for (let k = 0; k < nth; k++) {
    from = text.indexOf(word, from + 1);
    if (from < 0) throw new Error(`\`${word}\` (${nth}) not in the text`);
  }
  const before = text.slice(0, from).split("\n");
  return { line: before.length - 1, character: (before[before.length - 1] ?? "").length };
}

/** Applies LSP text edits to a text (edits do not overlap). */
function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const lines = text.split("\n");
  const offset = (p: { line: number; character: number }): number => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start)).reduce((out, e) => out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end)), text);
}

/**
 * A language service over the files on disk: TypeScript's own answers on generated/. `texts`
 * holds what was written to some of them (project-relative paths), read from there instead, so
 * that the answers stay those of the tangle when a test edits the files afterwards.
 */
function diskService(root: string, files: readonly string[], texts: ReadonlyMap<string, string> = new Map()): ts.LanguageService {
  const config = ts.readConfigFile(join(root, "tsconfig.json"), (p) => ts.sys.readFile(p));
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => files.map((f) => join(root, f)),
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) => {
      const text = texts.get(name.slice(root.length + 1)) ?? ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => root,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: (name) => ts.sys.fileExists(name),
    readFile: (name) => ts.sys.readFile(name),
  };
  return ts.createLanguageService(host);
}

/** A tangled file's inline source map: its sources (project-relative) and segments per line. */
function sourceMap(root: string, path: string): { sources: string[]; lines: Segment[][] } {
  const text = readFileSync(join(root, path), "utf8");
  const data = /sourceMappingURL=data:application\/json;[^,]*base64,(\S+)/.exec(text)?.[1] ?? "";
  const map = JSON.parse(Buffer.from(data, "base64").toString("utf8")) as { sources: string[]; mappings: string };
  return { sources: map.sources.map((s) => posix.normalize(posix.join(posix.dirname(path), s))), lines: decodeMappings(map.mappings) };
}

/** Where a generated position came from, read from the file's source map alone. */
function throughMap(root: string, path: string, line: number, character: number): { doc: string; line: number; character: number } | undefined {
  const map = sourceMap(root, path);
  const segment = [...(map.lines[line] ?? [])].reverse().find((s) => s.generatedColumn <= character);
  if (segment === undefined) return undefined;
  return { doc: map.sources[segment.source] ?? "", line: segment.line, character: segment.column + (character - segment.generatedColumn) };
}

/**
 * Exported functions of generated/ whose name another tangled file mentions, every k-th of them
 * in path order: `count` names, each with the offset of its declaration in its file.
 */
function exportedNamesUsedElsewhere(root: string, tangled: ReadonlyMap<string, string>, program: ts.Program | undefined, count: number): { file: string; name: string; start: number }[] {
  const files = [...tangled.keys()].filter((f) => f.endsWith(".ts"));
  const candidates: { file: string; name: string; start: number }[] = [];
  for (const file of files.filter((f) => f.startsWith("generated/"))) {
    const source = program?.getSourceFile(join(root, file));
    for (const statement of source?.statements ?? []) {
      if (!ts.isFunctionDeclaration(statement) || statement.name === undefined || !(ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Export)) continue;
      const name = statement.name.text;
      if (files.some((other) => other !== file && (tangled.get(other) ?? "").includes(name))) candidates.push({ file, name, start: statement.name.getStart(source) });
    }
  }
  const stride = Math.max(1, Math.floor(candidates.length / count));
  return candidates.filter((_, i) => i % stride === 0).slice(0, count);
}

/** A tangled copy of a book, 20 names to rename in it, and TypeScript's and the server's renames of each (see `renameCase`). */
interface RenameCase {
  readonly copy: string;
  readonly tangled: ReadonlyMap<string, string>;
  readonly files: readonly string[];
  readonly chosen: readonly { file: string; name: string; start: number }[];
  /** TypeScript's rename locations of each chosen name, in the copy's tangled files. */
  readonly locations: readonly (readonly { path: string; start: number; length: number }[])[];
  /** The server's rename of each chosen name. */
  readonly serverEdits: readonly WorkspaceEdit[];
}

/** The tangled TypeScript files of the fixture. */
const tangledFiles = ["generated/shapes.ts", "generated/paths.ts", "generated/report.ts", "test/paths.test.ts"];

describe("the language server on a fixture book", () => {
  let root: string;
  let client: BookClient;
  const doc = (path: string) => ({ uri: client.uri(path) });

  beforeAll(async () => {
    root = fixtureBook();
    client = await BookClient.start(root);
    for (const path of Object.keys(chapters)) await client.open(path);
    await client.waitForDiagnostics("literate/report.md");
  });
  afterAll(async () => {
    await client.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("publishes an unsaved type error at its Markdown line, and clears it once the text is fixed", async () => {
    const path = "literate/report.md";
    const text = chapters[path] ?? "";
    const broken = text.replace("const corner = { x: width, y: height };", 'const corner = { x: width, y: height };\n  const wrong: number = "not a number";');
    await client.change(path, broken);
    const found = await client.waitForDiagnostics(path, (list) => list.some((d) => d.code === "compiles"));
    const error = found.find((d) => d.code === "compiles");
    expect(error?.message).toContain("TS2322");
    expect(error?.range.start).toEqual(positionOf(broken, "wrong"));
    expect(error?.range.end).toEqual({ line: positionOf(broken, "wrong").line, character: positionOf(broken, "wrong").character + "wrong".length });
    await client.change(path, text);
    const fixed = await client.waitForDiagnostics(path, (list) => !list.some((d) => d.code === "compiles"));
    expect(fixed.filter((d) => d.code === "compiles")).toEqual([]);
  });

  it("publishes the judge's verdicts at their blocks: here, no test results for a block that runs", async () => {
    const found = await client.waitForDiagnostics("literate/shapes.md", (list) => list.some((d) => d.code === "tested"));
    const tested = found.filter((d) => d.code === "tested").map((d) => d.range.start.line);
    expect(tested).toContain(positionOf(chapters["literate/shapes.md"] ?? "", "```ts", 2).line);
  });

  it("publishes a document that does not tangle as the tangle error at its line, and keeps answering", async () => {
    const path = "literate/shapes.md";
    const text = chapters[path] ?? "";
    const broken = text.replace("  <<side-check>>", "  <<no-such-block>>");
    await client.change(path, broken);
    const found = await client.waitForDiagnostics(path, (list) => list.some((d) => d.code === "unknown-reference"));
    expect(found.find((d) => d.code === "unknown-reference")?.range.start.line).toBe(positionOf(broken, "<<no-such-block>>").line);
    const hover = await client.request<Hover | null>("textDocument/hover", { textDocument: doc(path), position: positionOf(broken, "distance(a") });
    expect(JSON.stringify(hover?.contents)).toContain("function distance(a: Point, b: Point): number");
    await client.change(path, text);
    await client.waitForDiagnostics(path, (list) => !list.some((d) => d.code === "unknown-reference"));
  });

  it("takes a closed chapter's text from disk again after a save, as after a checkout", async () => {
    const shapes = chapters["literate/shapes.md"] ?? "";
    await client.close("literate/shapes.md");
    writeFileSync(join(root, "literate/shapes.md"), shapes.replace("export function distance(", "export function span("));
    await client.save("literate/paths.md");
    const broken = await client.waitForDiagnostics("literate/paths.md", (list) => list.some((d) => d.code === "compiles"));
    expect(broken.find((d) => d.code === "compiles")?.message).toContain("TS2305");
    writeFileSync(join(root, "literate/shapes.md"), shapes);
    await client.save("literate/paths.md");
    await client.waitForDiagnostics("literate/paths.md", (list) => !list.some((d) => d.code === "compiles"));
    await client.open("literate/shapes.md");
  });

  it("lands go-to-definition from every use of an exported name in another chapter where TypeScript's definition on generated/ maps to", async () => {
    const service = diskService(root, tangledFiles);
    let compared = 0;
    for (const file of tangledFiles) {
      const source = service.getProgram()?.getSourceFile(join(root, file));
      if (source === undefined) throw new Error(`no ${file}`);
      const uses: ts.Identifier[] = [];
      const visit = (node: ts.Node): void => {
        if (ts.isIdentifier(node)) uses.push(node);
        ts.forEachChild(node, visit);
      };
      visit(source);
      for (const use of uses) {
        const start = use.getStart(source);
        const target = service.getDefinitionAtPosition(join(root, file), start)?.[0];
        if (target === undefined || target.fileName === join(root, file) || !target.fileName.startsWith(join(root, "generated"))) continue;
        const targetPath = target.fileName.slice(root.length + 1);
        const targetSource = service.getProgram()?.getSourceFile(target.fileName);
        const at = targetSource?.getLineAndCharacterOfPosition(target.textSpan.start);
        const from = source.getLineAndCharacterOfPosition(start);
        const expected = at === undefined ? undefined : throughMap(root, targetPath, at.line, at.character);
        const asked = throughMap(root, file, from.line, from.character);
        if (expected === undefined || asked === undefined) throw new Error(`unmapped: ${file}:${from.line + 1} → ${targetPath}`);
        const answer = await client.request<Location[]>("textDocument/definition", { textDocument: doc(asked.doc), position: { line: asked.line, character: asked.character } });
        expect(answer.map((l) => [fileURLToPath(l.uri).slice(root.length + 1), l.range.start.line, l.range.start.character]), `${use.text} at ${asked.doc}:${asked.line + 1}`).toContainEqual([expected.doc, expected.line, expected.character]);
        compared++;
      }
    }
    // Every import and every use of distance, area, pathLength and Point across the three chapters and the test.
    expect(compared).toBeGreaterThanOrEqual(12);
  });

  it.each(["Point", "distance", "area", "pathLength"])("renames %s across chapters so that, applied and tangled, generated/ is what TypeScript's rename on generated/ makes", async (name) => {
    const shapes = name === "pathLength" ? "literate/paths.md" : "literate/shapes.md";
    const text = chapters[shapes] ?? "";
    const position = positionOf(text, name === "Point" ? "interface Point" : `function ${name}`);
    const at = { line: position.line, character: position.character + (name === "Point" ? "interface ".length : "function ".length) };
    const edit = await client.request<WorkspaceEdit>("textDocument/rename", { textDocument: doc(shapes), position: at, newName: `${name}Renamed` });
    const copy = `${root}-rename-${name}`;
    cpSync(root, copy, { recursive: true });
    try {
      for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
        const path = fileURLToPath(uri).slice(root.length + 1);
        writeFileSync(join(copy, path), applyEdits(readFileSync(join(root, path), "utf8"), edits));
      }
      runTangle({ root: copy });
      // TypeScript's own rename, on the generated files as they were.
      const service = diskService(root, tangledFiles);
      const generated = name === "pathLength" ? "generated/paths.ts" : "generated/shapes.ts";
      const genText = readFileSync(join(root, generated), "utf8");
      const declaration = genText.indexOf(name === "Point" ? "interface Point" : `function ${name}`) + (name === "Point" ? "interface ".length : "function ".length);
      const locations = service.findRenameLocations(join(root, generated), declaration, false, false, { providePrefixAndSuffixTextForRename: false }) ?? [];
      expect(locations.length).toBeGreaterThan(1);
      const withoutMap = (t: string): string => t.replace(/\/\/# sourceMappingURL=.*\n?$/, "");
      for (const file of tangledFiles) {
        const original = readFileSync(join(root, file), "utf8");
        const spans = locations.filter((l) => l.fileName === join(root, file)).sort((a, b) => b.textSpan.start - a.textSpan.start);
        const renamed = spans.reduce((out, l) => out.slice(0, l.textSpan.start) + `${name}Renamed` + out.slice(l.textSpan.start + l.textSpan.length), original);
        expect(withoutMap(readFileSync(join(copy, file), "utf8")), file).toBe(withoutMap(renamed));
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("says which files outside the book name the renamed name and are not edited, and edits only the book", async () => {
    // A file of the project no chapter tangles, importing the book's module: as bench/*.ts does.
    writeFileSync(join(root, "test/uses-shapes.ts"), 'import { distance } from "../generated/shapes.ts";\n\nexport const unit = distance({ x: 0, y: 0 }, { x: 1, y: 0 });\n');
    try {
      const text = chapters["literate/shapes.md"] ?? "";
      const at = positionOf(text, "function distance");
      const shown = client.messages.length;
      const edit = await client.request<WorkspaceEdit>("textDocument/rename", { textDocument: doc("literate/shapes.md"), position: { line: at.line, character: at.character + "function ".length }, newName: "gap" });
      const edited = Object.keys(edit.changes ?? {}).map((uri) => fileURLToPath(uri).slice(root.length + 1));
      expect(edited).toContain("literate/shapes.md");
      expect(edited.filter((path) => !path.startsWith("literate/"))).toEqual([]);
      await expect.poll(() => client.messages.slice(shown)).toEqual([{ type: 2, message: expect.stringMatching(/^renamed in the book only: `test\/uses-shapes\.ts` imports generated\/ and names it too, and is not edited/) as unknown as string }]);
      // A name no file outside the book mentions: nothing is said.
      const point = positionOf(text, "interface Point");
      await client.request<WorkspaceEdit>("textDocument/rename", { textDocument: doc("literate/shapes.md"), position: { line: point.line, character: point.character + "interface ".length }, newName: "Spot" });
      expect(client.messages.slice(shown + 1)).toEqual([]);
    } finally {
      rmSync(join(root, "test/uses-shapes.ts"));
    }
  });

  it("refuses a rename that cannot be placed in the book with a clear message", async () => {
    const text = chapters["literate/shapes.md"] ?? "";
    const onProse = client.request("textDocument/rename", { textDocument: doc("literate/shapes.md"), position: positionOf(text, "Euclid"), newName: "x" });
    await expect(onProse).rejects.toThrow(/not in code tangle writes/);
    const onLibrary = client.request("textDocument/rename", { textDocument: doc("literate/shapes.md"), position: positionOf(text, "hypot"), newName: "x" });
    await expect(onLibrary).rejects.toThrow(/standard TypeScript library/);
  });

  it("answers hover, completion with its details, and signature help inside a block", async () => {
    const text = chapters["literate/paths.md"] ?? "";
    const hover = await client.request<Hover | null>("textDocument/hover", { textDocument: doc("literate/paths.md"), position: positionOf(text, "distance(points") });
    expect(JSON.stringify(hover?.contents)).toContain("distance(a: Point, b: Point): number");
    expect(JSON.stringify(hover?.contents)).toContain("The straight-line distance between two points.");
    expect(hover?.range?.start).toEqual(positionOf(text, "distance(points"));

    const dot = positionOf(text, "points.length");
    const completion = await client.request<CompletionItem[] | CompletionList>("textDocument/completion", { textDocument: doc("literate/paths.md"), position: { line: dot.line, character: dot.character + "points.".length } });
    const items = Array.isArray(completion) ? completion : completion.items;
    const length = items.find((i) => i.label === "length");
    expect(length).toBeDefined();
    const resolved = await client.request<CompletionItem>("completionItem/resolve", length);
    expect(resolved.detail).toContain("length: number");

    const call = positionOf(text, "points[i - 1]!");
    const help = await client.request<SignatureHelp | null>("textDocument/signatureHelp", { textDocument: doc("literate/paths.md"), position: call });
    expect(help?.signatures[0]?.label).toBe("distance(a: Point, b: Point): number");
    expect(help?.activeParameter).toBe(0);
  });

  it("finds the references of a name across chapters, in the blocks", async () => {
    const text = chapters["literate/shapes.md"] ?? "";
    const found = await client.request<Location[]>("textDocument/references", { textDocument: doc("literate/shapes.md"), position: positionOf(text, "distance(a"), context: { includeDeclaration: true } });
    const where = found.map((l) => `${fileURLToPath(l.uri).slice(root.length + 1)}:${l.range.start.line}`).sort();
    const paths = chapters["literate/paths.md"] ?? "";
    const report = chapters["literate/report.md"] ?? "";
    expect(where).toEqual(
      [
        `literate/shapes.md:${positionOf(text, "distance(a").line}`,
        `literate/paths.md:${positionOf(paths, "distance,").line}`,
        `literate/paths.md:${positionOf(paths, "distance(points").line}`,
        `literate/report.md:${positionOf(report, "distance }").line}`,
        `literate/report.md:${positionOf(report, "distance({").line}`,
      ].sort(),
    );
  });

  it("outlines a chapter's definitions at their blocks", async () => {
    const text = chapters["literate/shapes.md"] ?? "";
    const symbols = await client.request<DocumentSymbol[]>("textDocument/documentSymbol", { textDocument: doc("literate/shapes.md") });
    expect(symbols.map((s) => [s.name, s.selectionRange.start.line])).toEqual([
      ["Point", positionOf(text, "interface Point").line],
      ["distance", positionOf(text, "function distance").line],
      ["area", positionOf(text, "function area").line],
    ]);
    expect(symbols[0]?.children?.map((c) => c.name)).toEqual(["x", "y"]);
  });

  it("follows <<name>> to the block it splices, lists where a block is spliced, and completes block names", async () => {
    const text = chapters["literate/shapes.md"] ?? "";
    const splice = positionOf(text, "<<side-check>>");
    const fence = positionOf(text, "```ts #side-check");
    const definition = await client.request<Location[]>("textDocument/definition", { textDocument: doc("literate/shapes.md"), position: { line: splice.line, character: splice.character + 3 } });
    expect(definition.map((l) => l.range.start)).toEqual([fence]);
    const refs = await client.request<Location[]>("textDocument/references", { textDocument: doc("literate/shapes.md"), position: fence, context: { includeDeclaration: true } });
    expect(refs.map((l) => l.range)).toEqual([{ start: splice, end: { line: splice.line, character: splice.character + "<<side-check>>".length } }]);

    const typing = text.replace("  <<side-check>>", "  <<side-check>>\n  <<si");
    await client.change("literate/shapes.md", typing);
    const at = positionOf(typing, "<<si\n");
    const completion = await client.request<CompletionItem[]>("textDocument/completion", { textDocument: doc("literate/shapes.md"), position: { line: at.line, character: at.character + 4 } });
    expect(completion.map((c) => [c.label, c.textEdit?.newText])).toEqual([["side-check", "side-check>>"]]);
    await client.change("literate/shapes.md", text);
  });

  it("judges in its own thread, without the worker, exactly as the worker judges", async () => {
    await client.quiet(1000);
    const book = new Book(root, projectCompilerOptions(root), readDocuments(root));
    const open = Object.keys(chapters);
    const input = book.judgeInput(open);
    if (input === undefined) throw new Error("the fixture book does not tangle");
    const reply = await new Promise<JudgeReply>((done) => new BackgroundJudge(() => judgeInThread(root), () => undefined).ask(book.model.texts(), input.checked, done));
    book.accept(input, reply.judgement);
    for (const path of open) {
      const here = book.problems(path, open).map((p) => `${p.diagnostic.rule} ${p.range.start.line}:${p.range.start.character} ${p.diagnostic.message}`);
      const published = (client.diagnostics(path) ?? []).map((d) => `${String(d.code)} ${d.range.start.line}:${d.range.start.character} ${(typeof d.message === "string" ? d.message : d.message.value).split("\nhint: ")[0] ?? ""}`);
      expect(here.length, path).toBeGreaterThan(0);
      expect(here.sort(), path).toEqual(published.sort());
    }
  });

  it("shows a code lens per block: compiles, tested by N, mutants", async () => {
    const text = chapters["literate/paths.md"] ?? "";
    const found = await client.request<CodeLens[]>("textDocument/codeLens", { textDocument: doc("literate/paths.md") });
    const block = positionOf(text, "```ts", 2).line;
    const resolved = await Promise.all(found.filter((l) => l.range.start.line === block).map((l) => client.request<CodeLens>("codeLens/resolve", l)));
    expect(resolved.map((l) => l.command?.title)).toEqual(["compiles ✓", "tested by 1 ✗ (untested)", "mutants: no record"]);
  });
});

describe("the language server on this repository's book", () => {
  const root = resolve(".");
  let client: BookClient;
  beforeAll(async () => {
    client = await BookClient.start(root);
  });
  afterAll(async () => {
    await client.stop();
  });

  /**
   * What both rename tests start from, made once by whichever runs first: a copy of the book
   * tangled to disk, TypeScript's service over it, 20 exported functions of its generated/ used
   * in other files, TypeScript's rename locations of each, and the server's rename of each asked
   * at its declaration's Markdown place in this repository's book (the same texts as the copy's).
   */
  let renames: Promise<RenameCase> | undefined;
  const renameCase = (): Promise<RenameCase> => (renames ??= makeRenameCase());
  async function makeRenameCase(): Promise<RenameCase> {
    const copy = tempDir("lsp-rename-");
    cpSync(join(root, "literate"), join(copy, "literate"), { recursive: true });
    cpSync(join(root, "tsconfig.json"), join(copy, "tsconfig.json"));
    symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
    const tangled = runTangle({ root: copy }).result?.files ?? new Map<string, string>();
    const files = [...tangled.keys()].filter((f) => f.endsWith(".ts"));
    const service = diskService(copy, files, tangled);
    const program = service.getProgram();
    const chosen = exportedNamesUsedElsewhere(copy, tangled, program, 20);
    expect(chosen).toHaveLength(20);
    const locations = chosen.map(({ file, start }) =>
      (service.findRenameLocations(join(copy, file), start, false, false, { providePrefixAndSuffixTextForRename: false }) ?? []).map((l) => ({ path: l.fileName.slice(copy.length + 1), start: l.textSpan.start, length: l.textSpan.length })),
    );
    const serverEdits: WorkspaceEdit[] = [];
    for (const { file, name, start } of chosen) {
      const at = program?.getSourceFile(join(copy, file))?.getLineAndCharacterOfPosition(start);
      const asked = at === undefined ? undefined : throughMap(copy, file, at.line, at.character);
      if (asked === undefined) throw new Error(`unmapped ${file} ${name}`);
      serverEdits.push(await client.request<WorkspaceEdit>("textDocument/rename", { textDocument: { uri: client.uri(asked.doc) }, position: { line: asked.line, character: asked.character }, newName: `${name}Renamed` }));
    }
    return { copy, tangled, files, chosen, locations, serverEdits };
  }

  it("jumps from a name one chapter imports to the block of the chapter that defines it", async () => {
    const text = readFileSync(join(root, "literate/memory.md"), "utf8");
    await client.open("literate/memory.md", text);
    const call = positionOf(text, "update(canonicalJson");
    const use = { line: call.line, character: call.character + "update(".length };
    const answer = await client.request<Location[]>("textDocument/definition", { textDocument: { uri: client.uri("literate/memory.md") }, position: use });
    const schema = readFileSync(join(root, "literate/schema.md"), "utf8");
    const declared = positionOf(schema, "function canonicalJson");
    expect(answer.map((l) => [fileURLToPath(l.uri).slice(root.length + 1), l.range.start])).toEqual([["literate/schema.md", { line: declared.line, character: declared.character + "function ".length }]]);
  });

  it("renames 20 exported functions used across chapters so that, applied and tangled in memory, generated/ is what TypeScript's rename on generated/ makes", async () => {
    const { tangled, files, chosen, locations, serverEdits } = await renameCase();
    const inputs = readDocuments(root);
    const withoutMap = (t: string): string => t.replace(/\/\/# sourceMappingURL=.*\n?$/, "");
    for (const [k, { name }] of chosen.entries()) {
      const newName = `${name}Renamed`;
      const edited = new Map(Object.entries(serverEdits[k]?.changes ?? {}).map(([uri, edits]) => [fileURLToPath(uri).slice(root.length + 1), edits]));
      const renamed = tangle(inputs.map((input) => ({ path: input.path, text: applyEdits(input.text, edited.get(input.path) ?? []) })));
      for (const path of files) {
        const original = tangled.get(path) ?? "";
        const spans = (locations[k] ?? []).filter((l) => l.path === path).sort((a, b) => b.start - a.start);
        const expected = spans.reduce((out, l) => out.slice(0, l.start) + newName + out.slice(l.start + l.length), original);
        expect(withoutMap(renamed.files.get(path) ?? ""), `${name}: ${path}`).toBe(withoutMap(expected));
      }
    }
  }, 180_000);

  it("renames the same 20 names so that the book is what TypeScript's rename on generated/, stitched back, makes of it", async () => {
    // TypeScript renames all 20 names in the copy's generated/ and tests, and one stitch run
    // takes every rename back into the copy's Markdown: book A.
    const { copy, tangled, chosen, locations, serverEdits } = await renameCase();
    const spans = new Map<string, { start: number; length: number; text: string }[]>();
    for (const [k, { name }] of chosen.entries()) {
      for (const l of locations[k] ?? []) spans.set(l.path, [...(spans.get(l.path) ?? []), { start: l.start, length: l.length, text: `${name}Renamed` }]);
    }
    for (const [path, edits] of spans) {
      const text = [...edits].sort((a, b) => b.start - a.start).reduce((out, e) => out.slice(0, e.start) + e.text + out.slice(e.start + e.length), tangled.get(path) ?? readFileSync(join(copy, path), "utf8"));
      writeFileSync(join(copy, path), text);
    }
    const stitched = runStitch({ root: copy });
    expect(stitched.edited).toEqual([...spans.keys()].sort());
    const bookA = readDocuments(copy);

    // The server's rename of each name, every edit applied to this repository's Markdown: book B.
    const inputs = readDocuments(root);
    const edits = new Map<string, TextEdit[]>();
    for (const edit of serverEdits) {
      for (const [uri, list] of Object.entries(edit.changes ?? {})) {
        const path = fileURLToPath(uri).slice(root.length + 1);
        edits.set(path, [...(edits.get(path) ?? []), ...list]);
      }
    }
    const bookB = inputs.map((input) => ({ path: input.path, text: applyEdits(input.text, edits.get(input.path) ?? []) }));

    expect(bookA.map((d) => d.path)).toEqual(bookB.map((d) => d.path));
    for (const [k, b] of bookB.entries()) expect(bookA[k]?.text, b.path).toBe(b.text);
    expect(bookA.filter((d, k) => d.text !== inputs[k]?.text).length).toBeGreaterThan(5);
  }, 180_000);
});
