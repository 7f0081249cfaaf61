/**
 * `npm run verify`: proves every definition block is one definition, has prose before it,
 * compiles, and was executed by a passing test (with a current `tested=` stamp), and that every
 * chapter imports only from earlier chapters; warns of doc comments that repeat their prose.
 * A thin CLI over `tools/lib/verify.ts`.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { runCli, userProblems } from "./lib/cli.ts";
import { formatDiagnostic, sortDiagnostics, type Diagnostic } from "./lib/diagnostics.ts";
import { verifyProject, type VerifyReport } from "./lib/verify.ts";

/** What `--json` prints when verify stopped before checking any block (`stopped: true`). */
interface StoppedReport {
  readonly ok: false;
  readonly stopped: true;
  readonly blocks: readonly never[];
  readonly documents: readonly never[];
  readonly problems: readonly Diagnostic[];
}

const usage = `usage: verify [--stamp] [--json] [--root DIR] [--compiler native|javascript]

  --stamp     run the tests with coverage, then write \`tested=\` stamps from the evidence
  --json      print the report as JSON on stdout (errors still decide the exit code); when
              verify stops early, the report has \`stopped: true\` and the problems that stopped it
  --root      the project root (default: the current folder)
  --compiler  type-check with the native compiler (default) or the JavaScript API`;

/** Runs vitest with coverage in `root`, its output on stderr; true when every test passed. */
function runTests(root: string): boolean {
  const require = createRequire(import.meta.url);
  const vitest = join(dirname(require.resolve("vitest/package.json")), "vitest.mjs");
  const run = spawnSync(process.execPath, [vitest, "run", "--coverage"], { cwd: root, stdio: ["ignore", process.stderr, process.stderr] });
  return run.status === 0;
}

function printText(report: VerifyReport): void {
  for (const p of report.problems) process.stdout.write(`${formatDiagnostic(p)}\n`);
  if (report.problems.length > 0) process.stdout.write("\n");
  for (const d of report.documents) {
    const runtime = d.definitions - d.typeOnly;
    const warned = d.warnings > 0 ? `, ${d.warnings} warning(s)` : "";
    process.stdout.write(`${d.path}: ${d.definitions} definition blocks (${d.typeOnly} type-only), ${d.tested}/${runtime} tested, ${d.problems} problem(s)${warned}\n`);
  }
  const { recorded, unrecorded } = report.mutation ?? { recorded: [], unrecorded: [] };
  // A project that never ran `npm run mutate` has no rule 5 to report on.
  if (recorded.length > 0 && unrecorded.length > 0) {
    const names = unrecorded.map((doc) => doc.replace(/^literate\//, "").replace(/\.md$/, ""));
    process.stdout.write(`mutation records (rule 5): ${recorded.length} chapters pinned; none yet for ${unrecorded.length}, not checked: ${names.join(", ")}\n`);
  }
  if (report.stamps !== undefined) process.stdout.write(`stamps: ${report.stamps.written} written, ${report.stamps.removed} removed\n`);
  const checked = report.documents.reduce((n, d) => n + d.definitions, 0);
  const errors = report.problems.filter((p) => p.severity === "error").length;
  const warnings = report.problems.length - errors;
  const warned = warnings > 0 ? `, ${warnings} warnings` : "";
  process.stdout.write(report.ok ? `PASS: ${checked} blocks in ${report.documents.length} documents${warned}\n` : `FAIL: ${errors} problems${warned}\n`);
}

// Not awaited: the compiled CLI is CommonJS, which has no top-level await (runCli exits the process itself).
void runCli("verify", async () => {
  const { values } = parseArgs({
    options: {
      stamp: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      root: { type: "string", default: process.cwd() },
      compiler: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const compiler = values.compiler;
  if (compiler !== undefined && compiler !== "native" && compiler !== "javascript") {
    process.stderr.write(`verify: --compiler must be \`native\` or \`javascript\`, not \`${compiler}\`\n`);
    return 1;
  }
  let report: VerifyReport;
  try {
    report = verifyProject({ root: values.root, stamp: values.stamp, runTests, ...(compiler === undefined ? {} : { compiler }) });
  } catch (caught) {
    // A machine reading --json gets a report even when verify stopped before checking blocks.
    const problems = userProblems(caught);
    if (!values.json || problems === undefined) throw caught; // runCli reports it
    const stopped: StoppedReport = { ok: false, stopped: true, blocks: [], documents: [], problems: sortDiagnostics(problems) };
    process.stdout.write(`${JSON.stringify(stopped, null, 2)}\n`);
    for (const p of stopped.problems) process.stderr.write(`${formatDiagnostic(p)}\n`);
    return 1;
  }
  if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else printText(report);
  return report.ok ? 0 : 1;
});
