/**
 * The body of `npm run tangle` (`tools/tangle.ts`): parses the command line, runs `runTangle`
 * and reports what it wrote, or with `--check` what is out of date, on the given streams.
 */
import { parseCommandLine, type Streams } from "./cli.ts";
import { formatDiagnostic, visible } from "../core/diagnostics.ts";
import { runTangle } from "./tangle-run.ts";

const usage = `usage: tangle [--check] [--force] [--root DIR] [--quiet]

  --check   write nothing; exit 1 and list the files that are out of date
  --force   overwrite files edited by hand (or not written by tangle)
  --root    the project root (default: the current folder)
  --quiet   print only problems`;

/** `tangle ARGS`: the exit code, having written the report to `streams` (run it under `runTool`). */
export async function tangleCommand(args: readonly string[], streams: Streams): Promise<number> {
  const { stdout, stderr } = streams;
  const values = parseCommandLine(args, { check: { type: "boolean", default: false }, force: { type: "boolean", default: false }, root: { type: "string", default: process.cwd() }, quiet: { type: "boolean", default: false } }, usage, stdout);
  if (values === undefined) return 0;
  const report = runTangle({ root: values.root, check: values.check, force: values.force });
  for (const w of report.warnings) stderr.write(`${formatDiagnostic(w)}\n`);
  if (values.check) {
    if (report.actions.length === 0) {
      if (!values.quiet) stdout.write(`tangle: up to date (${report.unchanged} files)\n`);
      return 0;
    }
    for (const a of report.actions) stderr.write(`${visible(a.path)}: out of date (${a.kind === "delete" ? "would be deleted" : a.reason === "new" ? "missing" : "differs"})\n`);
    stderr.write(`tangle: ${report.actions.length} file(s) out of date\n  hint: run \`npm run tangle\` and commit the result\n`);
    return 1;
  }
  if (!values.quiet) {
    const written = report.actions.filter((a) => a.kind === "write").length;
    const deleted = report.actions.filter((a) => a.kind === "delete").length;
    for (const a of report.actions) stdout.write(`${a.kind === "write" ? "wrote  " : "deleted"} ${visible(a.path)}\n`);
    stdout.write(`tangle: ${written} written, ${deleted} deleted, ${report.unchanged} unchanged\n`);
  }
  return 0;
}
