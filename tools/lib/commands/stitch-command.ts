/**
 * The body of `npm run stitch` (`tools/stitch.ts`): parses the command line, runs `runStitch`
 * and reports what it took back into the Markdown (or, with `--check`, what it would).
 */
import { parseCommandLine, type Streams } from "./cli.ts";
import { visible } from "../core/diagnostics.ts";
import { runStitch } from "./stitch-run.ts";

const usage = `usage: stitch [--check] [--root DIR] [--quiet]

  Takes edits made to tangled files (generated/*.ts, the tangled tests) back into the
  Markdown blocks they came from, then tangles; refuses, writing nothing, an edit it
  cannot place (see the README's "stitch" section).

  --check   write nothing; say where each edit would go
  --root    the project root (default: the current folder)
  --quiet   print only problems`;

/** `stitch ARGS`: the exit code, having written the report to `streams` (run it under `runTool`). */
export async function stitchCommand(args: readonly string[], streams: Streams): Promise<number> {
  const { stdout } = streams;
  const values = parseCommandLine(args, { check: { type: "boolean", default: false }, root: { type: "string", default: process.cwd() }, quiet: { type: "boolean", default: false } }, usage, stdout);
  if (values === undefined) return 0;
  const report = runStitch({ root: values.root, check: values.check });
  if (values.quiet) return 0;
  for (const e of report.edits) {
    stdout.write(`${visible(e.target)}:${e.targetLine} -> ${visible(e.doc)}:${e.docLine} (${e.removed} line(s) replaced by ${e.added})\n`);
  }
  const verb = values.check ? "would write" : "wrote";
  stdout.write(
    report.edited.length === 0
      ? "stitch: no edits to take back\n"
      : report.documents.length === 0
        ? `stitch: ${report.edited.map(visible).join(", ")} differ from what tangle wrote only in tangle's own lines; ${values.check ? "tangle would write them back" : "written back"}\n`
        : `stitch: ${report.edits.length} edit(s) from ${report.edited.length} file(s); ${verb} ${report.documents.map(visible).join(", ")}\n`,
  );
  return 0;
}
