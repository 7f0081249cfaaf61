/**
 * `npm run bench:test`: how long `npm test` takes, against its target of 150 s on the shared
 * 2-core machine (`npm ci` not counted; Debian's chromium already installed).
 *
 * By default runs `npm test` as one process, as a developer does, and prints its wall time
 * against the target. With `--clean-clone` it does so in a fresh `git clone` of this project's
 * committed HEAD in the temporary folder, after `npm ci` there (timed, printed, not counted),
 * which is how the target is stated: no caches, no earlier test timings. With `--phases` it runs the test script's steps one by one instead (the
 * `&&`-separated commands of `package.json`'s `test`, a parenthesized group as one, after `pretest`), each timed, stopping at
 * the first that fails as `npm test` would (with `--keep-going` too, it runs them all, to time a
 * branch whose stamps are stale); the total is their sum. Either way it then reads the
 * JSON results the two vitest runs leave in `coverage/` and prints each run's slowest files, to
 * say where the time went.
 *
 * The machine is shared: the load average is printed with the numbers, and a run on a busy
 * machine says little of the wall time; the CPU time (user + system of every process the run
 * started, per phase with `--phases`) is printed beside it, and moves little with the load. It
 * reports; the exit code is `npm test`'s.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { projectRoot } from "./toolchain.ts";

/** The target for the whole of `npm test`, in seconds. */
const targetSeconds = 150;

/** What a vitest JSON report holds that this bench reads. */
interface VitestReport {
  readonly startTime: number;
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly testResults: readonly { readonly name: string; readonly startTime: number; readonly endTime: number }[];
}

const print = (line = ""): void => {
  process.stdout.write(`${line}\n`);
};

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const load = (): string => loadavg().map((n) => n.toFixed(2)).join(" ");

/** Runs a shell command in `root`, its output passed through to stderr; resolves to its exit code. */
function sh(command: string, root: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // As npm runs a script: the project's node_modules/.bin first on the PATH.
    const path = `${join(root, "node_modules", ".bin")}${delimiter}${process.env["PATH"] ?? ""}`;
    const child = spawn(command, { cwd: root, shell: true, env: { ...process.env, PATH: path }, stdio: ["ignore", process.stderr, process.stderr] });
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
}

/**
 * The CPU time (user + system, seconds) of this process's children that ended and were waited
 * for, their own children included: fields 16 and 17 of Linux's `/proc/self/stat`, in clock ticks
 * of 1/100 s. `undefined` where there is no `/proc`. On a shared machine it is the measure the
 * other processes disturb least (wall time stretches with their load; CPU time barely does).
 */
function childrenCpu(): number | undefined {
  const stat = readIfExists("/proc/self/stat");
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(ticks) ? ticks / 100 : undefined;
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

const cpuText = (cpu: number | undefined): string => (cpu === undefined ? "CPU ?" : `CPU ${cpu.toFixed(1)} s`);

/** Runs `command` in `root` and returns its exit code, wall time in milliseconds and CPU time in seconds (its whole process tree). */
async function timed(command: string, root: string): Promise<{ code: number; ms: number; cpu: number | undefined }> {
  const started = performance.now();
  const cpuBefore = childrenCpu();
  const code = await sh(command, root);
  const cpuAfter = childrenCpu();
  return { code, ms: performance.now() - started, cpu: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore };
}

/** The slowest files of a vitest JSON report, with when each started (seconds into the run). */
function slowest(root: string, file: string, count: number): void {
  const path = join(root, "coverage", file);
  if (!existsSync(path)) {
    print(`  ${file}: not written`);
    return;
  }
  const report = JSON.parse(readFileSync(path, "utf8")) as VitestReport;
  print(`  ${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed; slowest files (start → end, duration):`);
  const files = [...report.testResults].sort((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime));
  for (const f of files.slice(0, count)) {
    const name = f.name.startsWith(root) ? f.name.slice(root.length + 1) : f.name;
    print(`    ${seconds(f.startTime - report.startTime).padStart(8)} → ${seconds(f.endTime - report.startTime).padStart(8)}  ${seconds(f.endTime - f.startTime).padStart(8)}  ${name}`);
  }
}

const keepGoing = process.argv.includes("--keep-going");
const phases = keepGoing || process.argv.includes("--phases");
const cleanClone = process.argv.includes("--clean-clone");
let root = projectRoot;
if (cleanClone) {
  root = mkdtempSync(join(tmpdir(), "npm-test-clone-"));
  const cloned = spawnSync("git", ["clone", "--quiet", projectRoot, root], { stdio: ["ignore", process.stderr, process.stderr] });
  if (cloned.status !== 0) throw new Error(`git clone ${projectRoot} failed`);
  const dirty = spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: projectRoot, encoding: "utf8" }).stdout.trim();
  if (dirty !== "") print("note: the working tree has uncommitted changes; the clone has HEAD only");
  const install = await timed("npm ci --no-audit --no-fund", root);
  print(`npm ci in ${root}: ${seconds(install.ms)} (not counted), exit code ${install.code}`);
  if (install.code !== 0) {
    rmSync(root, { recursive: true, force: true });
    process.exit(install.code);
  }
}
/** The `&&`-separated commands of a script, leaving whole a parenthesized group (the docs warm-up that runs beside the first vitest run). */
function topLevelSteps(script: string): string[] {
  const steps: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < script.length; i++) {
    if (script[i] === "(") depth++;
    else if (script[i] === ")") depth--;
    else if (depth === 0 && script.startsWith("&&", i)) {
      steps.push(script.slice(start, i).trim());
      start = i + 2;
    }
  }
  return [...steps, script.slice(start).trim()];
}

print(`npm test on ${root}; load average at start: ${load()}`);
let code: number;
let total: number;
let cpu: number | undefined;
if (phases) {
  const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  const steps = [...(scripts["pretest"] === undefined ? [] : [scripts["pretest"]]), ...topLevelSteps(scripts["test"] ?? "")];
  const rows: string[] = [];
  total = 0;
  cpu = 0;
  code = 0;
  for (const step of steps) {
    const run = await timed(step, root);
    total += run.ms;
    cpu = cpu === undefined || run.cpu === undefined ? undefined : cpu + run.cpu;
    rows.push(`  ${seconds(run.ms).padStart(8)}  ${cpuText(run.cpu).padStart(12)}  ${run.code === 0 ? "ok  " : `exit ${run.code}`}  ${step}`);
    if (run.code !== 0) {
      code = run.code;
      if (!keepGoing) break;
    }
  }
  print();
  print("phases:");
  for (const row of rows) print(row);
} else {
  const run = await timed("npm test", root);
  ({ code, ms: total, cpu } = run);
  print();
}
print(`npm test: ${seconds(total)} (target ≤ ${targetSeconds} s: ${total <= targetSeconds * 1000 ? "OK" : "MISSED"}), ${cpuText(cpu)} (user + system, every process), exit code ${code}; load average at end: ${load()}`);
slowest(root, "vitest-results.json", 8);
slowest(root, "vitest-docs-results.json", 3);
if (cleanClone) rmSync(root, { recursive: true, force: true });
process.exitCode = code;
