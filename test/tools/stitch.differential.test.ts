/**
 * Stitch against tools that know nothing of the book, on a copy of the real book in the temp
 * directory: prettier formats every tangled TypeScript file, or TypeScript's own rename renames
 * exported names across them; stitch takes it all back; then tangle finds every file current, and
 * the book (tangled in memory from the stitched Markdown) gives back exactly the files the tool
 * made, apart from what records where lines stand in the Markdown (the source map line and the
 * numbers in tangle's `// literate/FILE:LINE` comments, which a stitch that adds lines moves).
 * Prettier formats all of `generated/`; with `STITCH_FORMAT_ALL=1` it formats the tangled tests
 * as well (twice the time, and it passes too).
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as prettier from "prettier";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { listDocuments } from "../../tools/lib/disk/io.ts";
import { isTypeScriptPath } from "../../tools/lib/core/paths.ts";
import { runStitch } from "../../tools/lib/commands/stitch-run.ts";
import { comparable } from "../../tools/lib/core/stitch.ts";
import { runTangle } from "../../tools/lib/commands/tangle-run.ts";
import { tangle, type TangleResult } from "../../tools/lib/core/tangle.ts";
import { removeTempDirs, repository, tempDir } from "./support.ts";

afterAll(removeTempDirs);

/** A copy of the repository's book (its `literate/` only), tangled: every target written fresh, with its manifest. */
function bookCopy(): { root: string; targets: string[] } {
  const root = tempDir("stitch-book-");
  mkdirSync(join(root, "literate"));
  cpSync(join(repository, "literate"), join(root, "literate"), { recursive: true });
  const report = runTangle({ root });
  const targets = [...(report.result?.files.keys() ?? [])].filter(isTypeScriptPath).sort();
  return { root, targets };
}

/** The stitched book on disk, tangled in memory. */
function tangleBook(root: string): TangleResult {
  return tangle(listDocuments(root).map((path) => ({ path, text: readFileSync(join(root, path), "utf8") })));
}

/** The targets whose text `result` gives back differently from `expected` (as stitch compares them). */
function differing(result: TangleResult, expected: ReadonlyMap<string, string>): string[] {
  return [...expected].flatMap(([path, text]) => {
    const target = result.targets.find((t) => t.path === path);
    const produced = result.files.get(path);
    if (target === undefined || produced === undefined) return [path];
    return JSON.stringify(comparable(produced, target)) === JSON.stringify(comparable(text, target)) ? [] : [path];
  });
}

describe("stitch against prettier and TypeScript's rename, on the real book", () => {
  it("takes prettier's formatting of all of generated/ back into the blocks: tangle then finds everything current, and the book gives back the formatted files", async () => {
    const { root, targets } = bookCopy();
    const formatted = new Map<string, string>();
    // All of generated/ (the tangled tests too would double the time; TypeScript's rename below edits them).
    for (const path of targets.filter((p) => p.startsWith(process.env["STITCH_FORMAT_ALL"] === "1" ? "" : "generated/"))) {
      const text = readFileSync(join(root, path), "utf8");
      // Babel's TypeScript parser: the same formatting as prettier's default for `.ts`, in half the time.
      const pretty = await prettier.format(text, { filepath: path, parser: "babel-ts" });
      if (pretty === text) continue;
      formatted.set(path, pretty);
      writeFileSync(join(root, path), pretty);
    }
    expect(formatted.size).toBeGreaterThan(40);

    const report = runStitch({ root });
    expect(report.edited).toEqual([...formatted.keys()]);
    expect(runTangle({ root, check: true }).actions).toEqual([]);
    expect(differing(tangleBook(root), formatted)).toEqual([]);
    // What is on disk now is the formatted text, tangle's position records aside.
    const onDisk = tangleBook(root);
    for (const [path, text] of formatted) {
      const target = onDisk.targets.find((t) => t.path === path);
      if (target === undefined) throw new Error(`no target ${path}`);
      expect(comparable(readFileSync(join(root, path), "utf8"), target), path).toEqual(comparable(text, target));
    }
  });

  it("takes TypeScript's rename of exported names used across chapters back into every block that holds them", () => {
    const { root, targets } = bookCopy();
    const texts = new Map(targets.map((path) => [path, readFileSync(join(root, path), "utf8")]));
    const full = (path: string): string => join(root, path);
    const host: ts.LanguageServiceHost = {
      getScriptFileNames: () => targets.map(full),
      getScriptVersion: () => "1",
      getScriptSnapshot: (file) => {
        const text = ts.sys.readFile(file);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => root,
      getCompilationSettings: () => ({ target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowImportingTsExtensions: true, noEmit: true, types: [] }),
      getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
    };
    const service = ts.createLanguageService(host);
    const program = service.getProgram();
    if (program === undefined) throw new Error("no program");

    // The first five exported functions of generated/ (in path order) that three or more files use.
    const renames: { name: string; locations: readonly ts.RenameLocation[] }[] = [];
    for (const path of targets.filter((p) => p.startsWith("generated/"))) {
      const source = program.getSourceFile(full(path));
      for (const statement of source?.statements ?? []) {
        if (renames.length === 5) break;
        if (!ts.isFunctionDeclaration(statement) || statement.name === undefined) continue;
        if (!(ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Export)) continue;
        // A file holding a location of the name holds its text: fewer than three such files, and
        // no search over the whole program (each costs a second) can find three.
        const name = statement.name.text;
        if ([...texts.values()].filter((text) => text.includes(name)).length < 3) continue;
        const locations = service.findRenameLocations(full(path), statement.name.getStart(), false, false, {}) ?? [];
        if (new Set(locations.map((l) => l.fileName)).size >= 3) renames.push({ name, locations });
      }
    }
    expect(renames.length).toBe(5);

    // Every location of every name, applied from the end of each file.
    const renamed = new Map<string, string>();
    const byFile = new Map<string, { start: number; length: number; text: string }[]>();
    for (const { name, locations } of renames) {
      for (const l of locations) {
        const list = byFile.get(l.fileName) ?? [];
        list.push({ start: l.textSpan.start, length: l.textSpan.length, text: `${l.prefixText ?? ""}${name}Renamed${l.suffixText ?? ""}` });
        byFile.set(l.fileName, list);
      }
    }
    for (const [file, edits] of byFile) {
      const path = targets.find((p) => full(p) === file);
      if (path === undefined) throw new Error(`a rename location outside the targets: ${file}`);
      let text = texts.get(path) ?? "";
      for (const e of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, e.start) + e.text + text.slice(e.start + e.length);
      renamed.set(path, text);
      writeFileSync(full(path), text);
    }

    const report = runStitch({ root });
    expect(report.edited).toEqual([...renamed.keys()].sort());
    expect(runTangle({ root, check: true }).actions).toEqual([]);
    expect(differing(tangleBook(root), renamed)).toEqual([]);
    // The book's code now says the new names, and its Markdown tangles to the renamed files.
    const book = listDocuments(root).map((path) => readFileSync(join(root, path), "utf8")).join("\n");
    for (const { name } of renames) expect(book).toContain(`${name}Renamed(`);
  });
});
