// A harness for the verify tests: a real project folder in the system's temp folder, with this
// repository's tsconfig.json, vitest.config.ts and node_modules. verify and tangle run in this
// process through the bodies their CLIs run (see `commandInProcess`), or as the real CLIs in
// child processes; the project's tests run in a real vitest child with coverage, as `npm test`
// runs them.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runTangle } from "../../tools/lib/commands/tangle-run.ts";
import { commandInProcess, commandProcess, launcher, repository, runProcess, type Outcome } from "./support.ts";

export { launcher, repository };

const vitest = join(repository, "node_modules", ".bin", "vitest");

/** What a command printed, and how it exited. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const asRun = ({ status, stdout, stderr }: Outcome): Run => ({ code: status, stdout, stderr });

/** Runs a program to its end in `cwd`, collecting its output. */
export async function run(command: string, args: readonly string[], cwd: string): Promise<Run> {
  return asRun(await runProcess(command, args, cwd));
}

/** `node tools/run.cjs verify ARGS` in `cwd`: the real CLI, as a child process. */
export async function verifyProcess(args: readonly string[], cwd: string): Promise<Run> {
  return asRun(await commandProcess("verify", args, cwd));
}

/**
 * A project folder: `package.json` (`"type": "module"`), copies of this repository's
 * `tsconfig.json` and `vitest.config.ts`, `node_modules` linked to ours, and the given files.
 * Create one per fixture and `remove()` it when done.
 */
export class Project {
  readonly root: string;

  constructor(files: Readonly<Record<string, string>>) {
    this.root = mkdtempSync(join(tmpdir(), "verify-test-"));
    writeFileSync(join(this.root, "package.json"), '{ "type": "module" }\n');
    copyFileSync(join(repository, "tsconfig.json"), join(this.root, "tsconfig.json"));
    copyFileSync(join(repository, "vitest.config.ts"), join(this.root, "vitest.config.ts"));
    symlinkSync(join(repository, "node_modules"), join(this.root, "node_modules"), "dir");
    for (const [path, text] of Object.entries(files)) this.write(path, text);
  }

  /** Writes a project-relative file, creating its folder. */
  write(path: string, text: string): void {
    mkdirSync(dirname(join(this.root, path)), { recursive: true });
    writeFileSync(join(this.root, path), text);
  }

  /** Reads a project-relative file. */
  read(path: string): string {
    return readFileSync(join(this.root, path), "utf8");
  }

  /** `tangle --root ROOT ...args`, in this process (see `commandInProcess`). */
  async tangle(...args: string[]): Promise<Run> {
    return asRun(await commandInProcess("tangle", ["--root", this.root, ...args]));
  }

  /**
   * Tangles in this process, through the library the CLI is a shell over: the same files,
   * without a second of start-up, for fixtures whose subject is verify. Throws on any problem.
   */
  tangleNow(): void {
    runTangle({ root: this.root });
  }

  /** `verify --root ROOT ...args`, in this process (its test run, with `--stamp`, a real vitest child). */
  async verify(...args: string[]): Promise<Run> {
    return asRun(await commandInProcess("verify", ["--root", this.root, ...args]));
  }

  /** `vitest run --coverage` in the project: the test run `npm test` does, leaving the evidence. */
  test(): Promise<Run> {
    return run(vitest, ["run", "--coverage"], this.root);
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The 1-based line of the first line of `text` that contains `needle`; throws when none does. */
export function lineOf(text: string, needle: string): number {
  const index = text.split(/\r\n|\r|\n/).findIndex((line) => line.includes(needle));
  if (index < 0) throw new Error(`no line contains \`${needle}\``);
  return index + 1;
}

/** Replaces the one occurrence of `from` in `text`; throws when it is missing or repeated, so a fixture edit cannot silently miss. */
export function edit(text: string, from: string, to: string): string {
  const first = text.indexOf(from);
  if (first < 0 || text.indexOf(from, first + 1) >= 0) throw new Error(`\`${from}\` must occur exactly once`);
  return text.slice(0, first) + to + text.slice(first + from.length);
}

/** A one-chapter book for the dev loop's tests: one function, `double`, and the test that runs it. */
export const doublingChapter = [
  "---",
  "tangle: generated/a.ts",
  "test: test/a.test.ts",
  "---",
  "# Doubling",
  "",
  "Doubling is what this chapter is about.",
  "",
  "```ts",
  "/** Twice `n`. */",
  "export function double(n: number): number {",
  "  return n * 2;",
  "}",
  "```",
  "",
  "The tests.",
  "",
  "```ts test",
  'import { expect, it } from "vitest";',
  'import { double } from "../generated/a.ts";',
  "",
  'it("doubles", () => {',
  "  expect(double(2)).toBe(4);",
  "});",
  "```",
  "",
].join("\n");
