/**
 * The CLIs' outer shell: runs a tool's body and turns its outcome into output and an exit code.
 * User errors (`LiterateError`, bad command lines) and the environment's (no permission, a name
 * too long for the file system) exit 1; anything else is a bug and exits 2.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ExitCode, LiterateError, formatDiagnostic, sortDiagnostics, type Diagnostic } from "../core/diagnostics.ts";
import { environmentProblem } from "../disk/io.ts";

/** True for the errors `node:util` `parseArgs` throws on bad command lines. */
function isUsageError(caught: unknown): caught is Error {
  return caught instanceof Error && typeof (caught as NodeJS.ErrnoException).code === "string" && ((caught as NodeJS.ErrnoException).code ?? "").startsWith("ERR_PARSE_ARGS");
}

/**
 * The diagnostics of a failure that is the user's (a `LiterateError`) or the environment's (a
 * file-system error such as `EACCES`, naming the file it concerns); `undefined` for anything
 * else, which is a bug.
 */
export function userProblems(caught: unknown): readonly Diagnostic[] | undefined {
  if (caught instanceof LiterateError) return caught.diagnostics;
  const problem = environmentProblem((caught as NodeJS.ErrnoException | undefined)?.path ?? "(unknown file)", caught);
  return problem === undefined ? undefined : [problem];
}

/**
 * Where a command writes: a stream with a file descriptor, so that a child process the command
 * starts (verify's test run) writes to the same place. `process.stdout` and `process.stderr` are
 * sinks; the toolchain's tests run a command in-process with sinks over files.
 */
export interface Sink {
  readonly fd: number;
  write(text: string): unknown;
}

/** A command's two outputs. */
export interface Streams {
  readonly stdout: Sink;
  readonly stderr: Sink;
}

/** The `--help` flag every command takes. */
const helpOption = { help: { type: "boolean", short: "h", default: false } } as const;

/** The values of a command line parsed against `O`. */
type CommandLine<O extends NonNullable<ParseArgsConfig["options"]>> = ReturnType<typeof parseArgs<{ options: O & typeof helpOption; strict: true }>>["values"];

/**
 * A command line parsed strictly against `options` and `--help`: its values, or `undefined` once
 * `usage` is written to `out` for `--help`. A bad command line throws `parseArgs`'s error.
 */
export function parseCommandLine<const O extends NonNullable<ParseArgsConfig["options"]>>(args: readonly string[], options: O, usage: string, out: Sink): CommandLine<O> | undefined {
  const { values } = parseArgs({ args: [...args], options: { ...options, ...helpOption }, strict: true });
  if (!(values as { help?: boolean }).help) return values as CommandLine<O>;
  out.write(`${usage}\n`);
  return undefined;
}

/**
 * Runs a command's body and maps its outcome to an exit code, without exiting: a
 * `LiterateError` prints its diagnostics and gives 1, as does a file-system error of the
 * environment's making (`EACCES`, `ENAMETOOLONG`, ...) and a bad command line; any other
 * exception is reported as a bug and gives 2.
 */
export async function runTool(tool: string, body: (streams: Streams) => Promise<number>, streams: Streams): Promise<number> {
  try {
    return await body(streams);
  } catch (caught) {
    const problems = userProblems(caught);
    if (problems !== undefined) {
      for (const d of sortDiagnostics(problems)) streams.stderr.write(`${formatDiagnostic(d)}\n`);
      return ExitCode.userError;
    }
    if (isUsageError(caught)) {
      streams.stderr.write(`${tool}: ${caught.message}\n  hint: run \`${tool} --help\` for the options\n`);
      return ExitCode.userError;
    }
    const detail = caught instanceof Error ? (caught.stack ?? caught.message) : String(caught);
    streams.stderr.write(`${tool}: internal error (this is a bug, please report it):\n${detail}\n`);
    return ExitCode.internalError;
  }
}

/** Runs a CLI body on this process's streams (see `runTool`) and exits with its code. */
export async function runCli(tool: string, body: (streams: Streams) => Promise<number>): Promise<never> {
  process.exit(await runTool(tool, body, { stdout: process.stdout, stderr: process.stderr }));
}
