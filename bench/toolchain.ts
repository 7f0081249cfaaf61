/**
 * What the benchmark measures besides the toolchain's own functions: the floor (a plain line
 * scanner that copies fenced code into files), timing helpers, and child-process runs.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The project's root folder (the parent of `bench/`). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the benchmarks generate their corpora (ignored by git). */
export const corpusBase = join(projectRoot, "bench", ".corpus");

/**
 * The floor: read each `literate/*.md`, copy the lines between a ```ts fence and its closing
 * fence into `generated/<name>.ts` under `outRoot`. No parsing, no hashing, no atomic writes,
 * no source maps. Returns the number of files written.
 */
export function floorTangle(root: string, outRoot: string): number {
  const names = readdirSync(join(root, "literate"))
    .filter((name) => name.endsWith(".md"))
    .sort();
  const outDir = join(outRoot, "generated");
  mkdirSync(outDir, { recursive: true });
  for (const name of names) {
    const text = readFileSync(join(root, "literate", name), "utf8");
    const code: string[] = [];
    let fence: "none" | "ts" | "other" = "none";
    for (const line of text.split("\n")) {
      if (line.startsWith("```")) {
        fence = fence !== "none" ? "none" : line.startsWith("```ts") ? "ts" : "other";
        continue;
      }
      if (fence === "ts") code.push(line);
    }
    writeFileSync(join(outDir, `${name.slice(0, -3)}.ts`), `${code.join("\n")}\n`);
  }
  return names.length;
}

/**
 * The same-output floor: writes exactly the files (and bytes) a tangle writes, precomputed, under
 * `outRoot`, each with one plain `writeFileSync` and each folder made once. No reading, parsing,
 * hashing, temporary files or stat cache: what creating tangle's output alone costs on this disk.
 */
export function writeOutputs(outRoot: string, files: ReadonlyMap<string, string>): number {
  const made = new Set<string>();
  for (const [path, content] of files) {
    const full = join(outRoot, path);
    const dir = dirname(full);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(full, content);
  }
  return files.size;
}

/** How many files, and how many bytes, lie under `dir` (recursively). */
export function filesUnder(dir: string): { readonly files: number; readonly bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const stat = statSync(join(dir, entry));
    if (!stat.isFile()) continue;
    files++;
    bytes += stat.size;
  }
  return { files, bytes };
}

/** Runs two full garbage collections when `global.gc` is exposed (`node --expose-gc`); false when it is not. */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return false;
  gc();
  gc();
  return true;
}

/** Heap in use, after a full collection when one can run. */
export function heapUsed(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? upper) + upper) / 2;
}

/** Times `fn` once with performance.now(), after running `before` untimed. */
export function timeOnce(fn: () => void, before?: () => void): number {
  before?.();
  const started = performance.now();
  fn();
  return performance.now() - started;
}

/** Removes folders (untimed set-up for runs that must write everything new). */
export function removeAll(...paths: string[]): void {
  for (const path of paths) rmSync(path, { recursive: true, force: true });
}

/** The outcome of one child process. */
export interface ChildRun {
  readonly ms: number;
  readonly status: number | null;
  readonly output: string;
}

/** Runs a child process to completion, timing it from spawn to exit (process start included). */
export function runChild(command: string, args: readonly string[], cwd: string): ChildRun {
  const started = performance.now();
  const run = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - started;
  if (run.error !== undefined) throw run.error;
  return { ms, status: run.status, output: `${run.stdout}${run.stderr}` };
}
