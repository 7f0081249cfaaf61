/**
 * `npm run tangle`: writes the TypeScript (and other files) the literate documents define.
 * A thin CLI over `tools/lib/tangle-run.ts`; run it in the project root.
 */
import { parseArgs } from "node:util";
import { runCli } from "./lib/cli.ts";
import { formatDiagnostic } from "./lib/diagnostics.ts";
import { runTangle } from "./lib/tangle-run.ts";

const usage = `usage: tangle [--check] [--force] [--root DIR] [--quiet]

  --check   write nothing; exit 1 and list the files that are out of date
  --force   overwrite files edited by hand (or not written by tangle)
  --root    the project root (default: the current folder)
  --quiet   print only problems`;

// Not awaited: the compiled CLI is CommonJS, which has no top-level await (runCli exits the process itself).
void runCli("tangle", async () => {
  const { values } = parseArgs({
    options: {
      check: { type: "boolean", default: false },
      force: { type: "boolean", default: false },
      root: { type: "string", default: process.cwd() },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const report = runTangle({ root: values.root, check: values.check, force: values.force });
  for (const w of report.warnings) process.stderr.write(`${formatDiagnostic(w)}\n`);
  if (values.check) {
    if (report.actions.length === 0) {
      if (!values.quiet) process.stdout.write(`tangle: up to date (${report.unchanged} files)\n`);
      return 0;
    }
    for (const a of report.actions) process.stderr.write(`${a.path}: out of date (${a.kind === "delete" ? "would be deleted" : a.reason === "new" ? "missing" : "differs"})\n`);
    process.stderr.write(`tangle: ${report.actions.length} file(s) out of date\n  hint: run \`npm run tangle\` and commit the result\n`);
    return 1;
  }
  if (!values.quiet) {
    const written = report.actions.filter((a) => a.kind === "write").length;
    const deleted = report.actions.filter((a) => a.kind === "delete").length;
    for (const a of report.actions) process.stdout.write(`${a.kind === "write" ? "wrote  " : "deleted"} ${a.path}\n`);
    process.stdout.write(`tangle: ${written} written, ${deleted} deleted, ${report.unchanged} unchanged\n`);
  }
  return 0;
});
