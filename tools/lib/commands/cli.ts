/**
 * The CLIs' outer shell: runs a tool's body and turns its outcome into output and an exit code.
 * User errors (`LiterateError`, bad command lines) and the environment's (no permission, a name
 * too long for the file system) exit 1; anything else is a bug and exits 2.
 */
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
