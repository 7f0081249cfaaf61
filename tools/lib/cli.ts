/**
 * The CLIs' outer shell: runs a tool's body and turns its outcome into output and an exit code.
 * User errors (`LiterateError`, bad command lines) and the environment's (no permission, a name
 * too long for the file system) exit 1; anything else is a bug and exits 2.
 */
import { ExitCode, LiterateError, formatDiagnostic, sortDiagnostics, type Diagnostic } from "./diagnostics.ts";
import { environmentProblem } from "./io.ts";

/** True for the errors `node:util` `parseArgs` throws on bad command lines. */
function isUsageError(caught: unknown): caught is Error {
  return caught instanceof Error && typeof (caught as NodeJS.ErrnoException).code === "string" && ((caught as NodeJS.ErrnoException).code ?? "").startsWith("ERR_PARSE_ARGS");
}

/** A file-system error caused by the environment, as a diagnostic naming the file it concerns. */
export function environment(caught: unknown): Diagnostic | undefined {
  return environmentProblem((caught as NodeJS.ErrnoException | undefined)?.path ?? "(unknown file)", caught);
}

/**
 * The diagnostics of a failure that is the user's (a `LiterateError`) or the environment's (a
 * file-system error such as `EACCES`); `undefined` for anything else, which is a bug.
 */
export function userProblems(caught: unknown): readonly Diagnostic[] | undefined {
  if (caught instanceof LiterateError) return caught.diagnostics;
  const problem = environment(caught);
  return problem === undefined ? undefined : [problem];
}

/**
 * Runs a CLI body and maps its outcome to an exit code: a `LiterateError` prints its
 * diagnostics and exits 1, as does a file-system error of the environment's making (`EACCES`,
 * `ENAMETOOLONG`, ...); any other exception is reported as a bug and exits 2.
 */
export async function runCli(tool: string, body: () => Promise<number>): Promise<never> {
  let code: number;
  try {
    code = await body();
  } catch (caught) {
    const problems = userProblems(caught);
    if (problems !== undefined) {
      for (const d of sortDiagnostics(problems)) process.stderr.write(`${formatDiagnostic(d)}\n`);
      code = ExitCode.userError;
    } else if (isUsageError(caught)) {
      process.stderr.write(`${tool}: ${caught.message}\n  hint: run \`${tool} --help\` for the options\n`);
      code = ExitCode.userError;
    } else {
      const detail = caught instanceof Error ? (caught.stack ?? caught.message) : String(caught);
      process.stderr.write(`${tool}: internal error (this is a bug, please report it):\n${detail}\n`);
      code = ExitCode.internalError;
    }
  }
  process.exit(code);
}
