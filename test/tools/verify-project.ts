// A harness for the verify tests: a real project folder in the system's temp folder, with this
// repository's tsconfig.json, vitest.config.ts and node_modules, and the CLIs run against it as
// child processes, exactly as `npm run tangle` and `npm run verify` run them.
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runTangle } from "../../tools/lib/tangle-run.ts";

/** This repository's root. */
export const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The launcher `npm run tangle` and `npm run verify` run. */
export const launcher = join(repository, "tools", "run.cjs");
const vitest = join(repository, "node_modules", ".bin", "vitest");

/** What a child process printed, and how it exited. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The environment for a child: ours, minus what the vitest running these tests set for its
 * workers, so the vitest a child starts behaves as it does from a terminal.
 */
function childEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("VITEST") || key === "NODE_V8_COVERAGE" || key === "TEST") continue;
    env[key] = value;
  }
  env["NO_COLOR"] = "1";
  return env;
}

/** Runs a command to its end, collecting its output. */
export function run(command: string, args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnvironment(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
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

  /** `node tools/run.cjs tangle --root ROOT`, as a child process. */
  tangle(...args: string[]): Promise<Run> {
    return run(process.execPath, [launcher, "tangle", "--root", this.root, ...args], this.root);
  }

  /**
   * Tangles in this process, through the library the CLI is a shell over: the same files,
   * without a second of start-up, for fixtures whose subject is verify. Throws on any problem.
   */
  tangleNow(): void {
    runTangle({ root: this.root });
  }

  /** `node tools/run.cjs verify --root ROOT ...args`, as a child process. */
  verify(...args: string[]): Promise<Run> {
    return run(process.execPath, [launcher, "verify", "--root", this.root, ...args], this.root);
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
