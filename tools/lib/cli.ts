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
function environment(caught: unknown): Diagnostic | undefined {
  return environmentProblem((caught as NodeJS.ErrnoException | undefined)?.path ?? "(unknown file)", caught);
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
    if (caught instanceof LiterateError) {
      for (const d of sortDiagnostics(caught.diagnostics)) process.stderr.write(`${formatDiagnostic(d)}\n`);
      code = ExitCode.userError;
    } else if (isUsageError(caught)) {
      process.stderr.write(`${tool}: ${caught.message}\n  hint: run \`${tool} --help\` for the options\n`);
      code = ExitCode.userError;
    } else {
      const problem = environment(caught);
      if (problem !== undefined) {
        process.stderr.write(`${formatDiagnostic(problem)}\n`);
        process.exit(ExitCode.userError);
      }
      const detail = caught instanceof Error ? (caught.stack ?? caught.message) : String(caught);
      process.stderr.write(`${tool}: internal error (this is a bug, please report it):\n${detail}\n`);
      code = ExitCode.internalError;
    }
  }
  process.exit(code);
}
