/**
 * The body of `npm run verify` (`tools/verify.ts`): parses the command line, runs
 * `verifyProject` and prints its report. Every output goes to the given streams, the test run of
 * `--stamp` included, so the toolchain's tests can run the command in-process.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseCommandLine, userProblems, type Sink, type Streams } from "./cli.ts";
import { formatDiagnostic, sortDiagnostics } from "../core/diagnostics.ts";
import { writeAtomically } from "../disk/io.ts";
import { verifyProject, type VerifyReport } from "./verify.ts";
import { describeBookScore } from "../rules/judge.ts";

const usage = `usage: verify [--stamp] [--json] [--report FILE] [--root DIR] [--compiler native|javascript]

  --stamp     run the tests with coverage, then write \`tested=\` stamps from the evidence
  --json      print the report as JSON on stdout (errors still decide the exit code); when
              verify stops early, the report has \`stopped: true\` and the problems that stopped it
  --report    also write the JSON report to FILE (what \`docs --verify-json\` reads); a verify
              that stops early removes FILE instead
  --root      the project root (default: the current folder)
  --compiler  type-check with the native compiler (default) or the JavaScript API`;

/** Runs vitest with coverage in `root`, its output on `output`; true when every test passed. */
function runTests(root: string, output: Sink): boolean {
  const require = createRequire(import.meta.url);
  const vitest = join(dirname(require.resolve("vitest/package.json")), "vitest.mjs");
  const run = spawnSync(process.execPath, [vitest, "run", "--coverage"], { cwd: root, stdio: ["ignore", output.fd, output.fd] });
  return run.status === 0;
}

function printText(report: VerifyReport, out: Sink): void {
  for (const p of report.problems) out.write(`${formatDiagnostic(p)}\n`);
  if (report.problems.length > 0) out.write("\n");
  for (const d of report.documents) {
    const runtime = d.definitions - d.typeOnly;
    const warned = d.warnings > 0 ? `, ${d.warnings} warning(s)` : "";
    out.write(`${d.path}: ${d.definitions} definition blocks (${d.typeOnly} type-only), ${d.tested}/${runtime} tested, ${d.problems} problem(s)${warned}\n`);
  }
  const { recorded, unrecorded } = report.mutation ?? { recorded: [], unrecorded: [] };
  if (report.mutation !== undefined && recorded.length > 0) out.write(`mutation score: ${describeBookScore(report.mutation)}\n`);
  // A project that never ran `npm run mutate` has no rule 5 to report on; in one that did, a chapter without its record fails.
  if (recorded.length > 0 && unrecorded.length > 0) {
    const names = unrecorded.map((doc) => doc.replace(/^literate\//, "").replace(/\.md$/, ""));
    out.write(`mutation records (rule 5): ${recorded.length} chapters pinned; ${unrecorded.length} without a record file, failed: ${names.join(", ")}\n`);
  }
  if (report.stamps !== undefined) out.write(`stamps: ${report.stamps.written} written, ${report.stamps.removed} removed\n`);
  const checked = report.documents.reduce((n, d) => n + d.definitions, 0);
  const errors = report.problems.filter((p) => p.severity === "error").length;
  const warnings = report.problems.length - errors;
  const warned = warnings > 0 ? `, ${warnings} warnings` : "";
  out.write(report.ok ? `PASS: ${checked} blocks in ${report.documents.length} documents${warned}\n` : `FAIL: ${errors} problems${warned}\n`);
}

/** `verify ARGS`: the exit code, having written the report to `streams` (run it under `runTool`). */
export async function verifyCommand(args: readonly string[], streams: Streams): Promise<number> {
  const values = parseCommandLine(
    args,
    { stamp: { type: "boolean", default: false }, json: { type: "boolean", default: false }, report: { type: "string" }, root: { type: "string", default: process.cwd() }, compiler: { type: "string" } },
    usage,
    streams.stdout,
  );
  if (values === undefined) return 0;
  const compiler = values.compiler;
  if (compiler !== undefined && compiler !== "native" && compiler !== "javascript") {
    streams.stderr.write(`verify: --compiler must be \`native\` or \`javascript\`, not \`${compiler}\`\n`);
    return 1;
  }
  // A report left by an earlier run must not stand for this one.
  if (values.report !== undefined) rmSync(values.report, { force: true });
  let report: VerifyReport;
  try {
    report = verifyProject({ root: values.root, stamp: values.stamp, runTests: (root) => runTests(root, streams.stderr), ...(compiler === undefined ? {} : { compiler }) });
  } catch (caught) {
    // A machine reading --json gets a report even when verify stopped before checking blocks.
    const problems = userProblems(caught);
    if (!values.json || problems === undefined) throw caught; // runTool reports it
    // What `--json` prints when verify stopped before checking any block.
    const stopped = { ok: false, stopped: true, blocks: [], documents: [], problems: sortDiagnostics(problems) };
    streams.stdout.write(`${JSON.stringify(stopped, null, 2)}\n`);
    for (const p of stopped.problems) streams.stderr.write(`${formatDiagnostic(p)}\n`);
    return 1;
  }
  if (values.report !== undefined) writeAtomically(values.report, `${JSON.stringify(report, null, 2)}\n`);
  if (values.json) streams.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else printText(report, streams.stdout);
  return report.ok ? 0 : 1;
}
