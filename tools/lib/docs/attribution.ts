/**
 * Which tests executed which block, from the per-test evidence `test/docs/attribution.setup.ts`
 * records during `vitest run --coverage`: for each test, the functions of `generated/` it called
 * (script URL and V8 function name). Function names are mapped to the blocks that declare them.
 */
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { listDocuments, readIfExists } from "../disk/io.ts";
import type { TangleResult, TangledTarget } from "../core/tangle.ts";
import { valueAt } from "../core/maps.ts";
import { attributionFolder } from "./attribution-folder.ts";

/** One test file's evidence. */
export interface AttributionFile {
  readonly version: 1;
  readonly testFile: string;
  readonly tests: readonly { readonly name: string; readonly functions: readonly { readonly url: string; readonly name: string }[] }[];
}

/**
 * The lines (0-based, in the tangled file) declaring each function name V8 would report for a
 * tangled file's `content` (constructors go by class name).
 */
function functionLines(path: string, content: string): Map<string, number[]> {
  const source = ts.createSourceFile(path, content, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const byName = new Map<string, number[]>();
  const add = (name: string, node: ts.Node): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    const list = valueAt(byName, name, () => []);
    if (!list.includes(line)) list.push(line);
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name !== undefined) add(node.name.getText(source), node);
    else if (ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) add(`${ts.isGetAccessorDeclaration(node) ? "get" : "set"} ${node.name.getText(source)}`, node);
    else if (ts.isConstructorDeclaration(node) && ts.isClassLike(node.parent) && node.parent.name !== undefined) add(node.parent.name.text, node);
    else if (ts.isClassDeclaration(node) && node.name !== undefined) add(node.name.text, node);
    else if ((ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node)) && node.initializer !== undefined && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))) add(node.name.getText(source), node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return byName;
}

/**
 * What a long-lived process keeps between attributions (`npm run dev`'s docs worker): each
 * tangled file's function lines by its text, so only a changed file is parsed again.
 */
export type AttributionMemory = Map<string, Map<string, number[]>>;

/**
 * Maps per-test evidence to blocks: global block index → names of the tests that called into it.
 * With `memory`, a tangled file whose text it knows is not parsed again (it keeps the files of this call only).
 */
export function attributeTests(root: string, tangle: TangleResult, files: readonly AttributionFile[], memory?: AttributionMemory): Map<number, string[]> {
  const targets = new Map(tangle.targets.map((t) => [t.path, t]));
  const known = new Map<string, Map<string, number[]>>();
  const linesOf = (target: TangledTarget): Map<string, number[]> =>
    valueAt(known, target.content, () => memory?.get(target.content) ?? functionLines(target.path, target.content));
  const names = new Map<string, Map<string, number[]>>();
  const blocksOf = (path: string, fn: string): readonly number[] => {
    const target = targets.get(path);
    if (target === undefined) return [];
    const byName = valueAt(names, path, () => {
      const blocks = new Map<string, number[]>();
      for (const [name, lines] of linesOf(target)) blocks.set(name, [...new Set(lines.map((line) => target.lineBlock[line] ?? -1).filter((b) => b >= 0))]);
      return blocks;
    });
    return byName.get(fn) ?? [];
  };
  const paths = new Map<string, string>();
  const out = new Map<number, Set<string>>();
  for (const file of files) {
    for (const test of file.tests) {
      for (const fn of test.functions) {
        const path = valueAt(paths, fn.url, () => pathOfUrl(root, fn.url) ?? "");
        if (path === "") continue;
        for (const block of blocksOf(path, fn.name)) valueAt(out, block, () => new Set()).add(test.name);
      }
    }
  }
  if (memory !== undefined) {
    memory.clear();
    for (const [content, lines] of known) memory.set(content, lines);
  }
  return new Map([...out].map(([block, set]) => [block, [...set].sort()]));
}

function pathOfUrl(root: string, url: string): string | undefined {
  const clean = url.replace(/[?#].*$/, "");
  let file: string;
  try {
    file = clean.startsWith("file:") ? fileURLToPath(clean) : clean;
  } catch {
    return undefined;
  }
  const rel = relative(root, file).split(sep).join("/");
  return rel.startsWith("..") ? undefined : rel;
}

/** Reads every evidence file under `coverage/tests-by-function/` (none when the folder is missing). */
export function loadAttribution(root: string): AttributionFile[] {
  return listDocuments(root, attributionFolder, ".json").flatMap((path) => {
    const text = readIfExists(join(root, path));
    const parsed = text === undefined ? undefined : (JSON.parse(text) as AttributionFile);
    return parsed?.version === 1 ? [parsed] : [];
  });
}
