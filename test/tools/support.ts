/**
 * Helpers shared by the toolchain's tests: building Markdown inline, decoding source maps, real
 * project folders in the system's temp directory (no mocks of the disk), and the toolchain's
 * commands, run as child processes or in this process. How a test starts a command lives here.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { runTool, type Sink, type Streams } from "../../tools/lib/commands/cli.ts";
import { stitchCommand } from "../../tools/lib/commands/stitch-command.ts";
import { tangleCommand } from "../../tools/lib/commands/tangle-command.ts";
import { verifyCommand } from "../../tools/lib/commands/verify-command.ts";

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

/** This repository's root. */
export const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The launcher `npm run tangle` and `npm run verify` run. */
export const launcher = join(repository, "tools", "run.cjs");

/** What a command printed, and how it exited. */
export interface Outcome {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The toolchain's commands that the tests run. */
export type Command = "tangle" | "verify" | "stitch";

const commands: Readonly<Record<Command, (args: readonly string[], streams: Streams) => Promise<number>>> = { tangle: tangleCommand, verify: verifyCommand, stitch: stitchCommand };

/**
 * The environment for a child: ours, minus what the vitest running these tests set for its
 * workers, so a vitest the child starts behaves as it does from a terminal.
 */
export function childEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("VITEST") || key === "NODE_V8_COVERAGE" || key === "TEST") continue;
    env[key] = value;
  }
  env["NO_COLOR"] = "1";
  return env;
}

/** Runs a program to its end in `cwd`, collecting its output. */
export function runProcess(command: string, args: readonly string[], cwd: string = repository): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnvironment(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** `npm run tangle -- ARGS`, `npm run verify -- ARGS` or `npm run stitch -- ARGS` (`node tools/run.cjs COMMAND ARGS`): the real CLI, as a child process. */
export function commandProcess(command: Command, args: readonly string[], cwd: string = repository): Promise<Outcome> {
  return runProcess(process.execPath, [launcher, command, ...args], cwd);
}

/** A sink over a file, which a child process the command starts can write to as well. */
function fileSink(path: string): Sink & { readonly close: () => string } {
  const fd = openSync(path, "a");
  return {
    fd,
    write: (text: string) => writeSync(fd, text),
    close: () => {
      closeSync(fd);
      return readFileSync(path, "utf8");
    },
  };
}

/**
 * The same command in this process: the body the CLI runs (`tools/lib/commands/*-command.ts` under
 * `runTool`), its output (and that of any child it starts, such as verify's test run) written to
 * files and read back. It saves a child's start and the loading of the toolchain and TypeScript
 * for each run; a few tests per command still run the real CLI with `commandProcess`. The body
 * runs synchronously to its end, so the environment a terminal gives it is set around the call
 * alone.
 */
export async function commandInProcess(command: Command, args: readonly string[]): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), "command-"));
  const stdout = fileSink(join(dir, "stdout"));
  const stderr = fileSink(join(dir, "stderr"));
  const saved = { ...process.env };
  const env = childEnvironment();
  let running: Promise<number>;
  try {
    for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
    Object.assign(process.env, env);
    running = runTool(command, (streams) => commands[command](args, streams), { stdout, stderr });
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
  const status = await running;
  const outcome = { status, stdout: stdout.close(), stderr: stderr.close() };
  rmSync(dir, { recursive: true, force: true });
  return outcome;
}
