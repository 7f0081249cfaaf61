/**
 * Helpers shared by the toolchain's tests: building Markdown inline, decoding source maps, and
 * real project folders in the system's temp directory (no mocks of the disk).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";

/** Three backticks, so documents can be written in template literals without escapes. */
export const fence = "```";

/** A Markdown document from its lines, with a final newline. Line 1 is the first argument. */
export function md(...lines: readonly string[]): string {
  return `${lines.join("\n")}\n`;
}

/** Front matter lines for the usual two targets (lines 1–4 of a document). */
export function frontMatter(tangle = "generated/a.ts", test?: string): string[] {
  return ["---", `tangle: ${tangle}`, ...(test === undefined ? [] : [`test: ${test}`]), "---"];
}

const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** One decoded source-map segment, with absolute (not delta) values, all 0-based. */
export interface Segment {
  readonly generatedColumn: number;
  readonly source: number;
  readonly line: number;
  readonly column: number;
}

function decodeVlqs(segment: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of segment) {
    const digit = base64.indexOf(ch);
    if (digit < 0) throw new Error(`not base64: ${ch}`);
    value += (digit & 31) * 2 ** shift;
    if ((digit & 32) !== 0) {
      shift += 5;
      continue;
    }
    out.push(value % 2 === 1 ? -((value - 1) / 2) : value / 2);
    value = 0;
    shift = 0;
  }
  return out;
}

/** Decodes a v3 `mappings` string: one array of segments per generated line. */
export function decodeMappings(mappings: string): Segment[][] {
  let source = 0;
  let line = 0;
  let column = 0;
  return mappings.split(";").map((text) => {
    let generatedColumn = 0;
    if (text === "") return [];
    return text.split(",").map((segment) => {
      const [dg = 0, ds = 0, dl = 0, dc = 0] = decodeVlqs(segment);
      generatedColumn += dg;
      source += ds;
      line += dl;
      column += dc;
      return { generatedColumn, source, line, column };
    });
  });
}

const created: string[] = [];

/** A fresh, empty folder under the system's temp directory; `removeTempDirs` deletes it. */
export function tempDir(prefix = "tangle-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Deletes every folder `tempDir` made in this test file (call it from `afterAll`). */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes files (project-relative POSIX paths) under `root`, creating folders. */
export function writeFiles(root: string, files: Readonly<Record<string, string>>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A temp project holding `files`. */
export function project(files: Readonly<Record<string, string>>): string {
  const root = tempDir();
  writeFiles(root, files);
  return root;
}

/** Every regular file under `root` (POSIX relative paths), sorted. */
export function listFiles(root: string): string[] {
  const entries = readdirSync(root, { recursive: true, encoding: "utf8" });
  return entries
    .map((entry) => entry.split(sep).join("/"))
    .filter((path) => statSync(join(root, path)).isFile())
    .sort();
}

/** What a folder holds: each file's content and modification time, for before/after comparisons. */
export function snapshot(root: string, options: { readonly skipCache?: boolean } = {}): Record<string, { readonly text: string; readonly mtimeMs: number }> {
  const out: Record<string, { text: string; mtimeMs: number }> = {};
  for (const path of listFiles(root)) {
    if (options.skipCache === true && path.startsWith(".cache/")) continue;
    out[path] = { text: readFileSync(join(root, path), "utf8"), mtimeMs: statSync(join(root, path)).mtimeMs };
  }
  return out;
}

/** The content of `path` under `root`. */
export function read(root: string, path: string): string {
  return readFileSync(join(root, path), "utf8");
}

/** Runs `fn` and returns what it threw, or `undefined` when it returned. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (caught) {
    return caught;
  }
  return undefined;
}
