/**
 * The mutation runner: drives StrykerJS (its vitest runner) over generated ranges and returns its
 * report, and runs a chapter's tests on one mutant put into a scratch copy of the project, to
 * confirm the module-level survivors StrykerJS cannot activate and to re-check recorded kills.
 * `npm run mutate` (`commands/mutate-command.ts`) decides what to mutate and writes the records.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import ts from "typescript";
import type { LogLevel, PartialStrykerOptions } from "@stryker-mutator/api/core";
import type { BlockAnalysis } from "../core/definitions.ts";
import { applyMutant, testNamePattern, toGeneratedPosition, undetected, type MutantRecord, type SampledKill, type StrykerReport } from "../core/mutation.ts";
import type { ProjectModel } from "../core/project.ts";
import type { TangleResult } from "../core/tangle.ts";
import { parseJson, readIfExists } from "../disk/io.ts";

/** The book as verify sees it: tangled in memory, with each block's analysis and hash. */
export interface Book {
  readonly root: string;
  readonly model: ProjectModel;
  readonly result: TangleResult;
  readonly sources: ReadonlyMap<string, ts.SourceFile>;
  readonly analyses: readonly BlockAnalysis[];
  readonly hashes: readonly string[];
}

/** The Vitest configuration, at the project's root, that the mutants' tests run with (StrykerJS's and the re-checks'). */
export const mutationConfig = "vitest.mutate.config.ts";

/** Runs StrykerJS on `mutate` ranges with `tests` only; returns its JSON report. */
export async function runStryker(root: string, mutate: readonly string[], tests: string, concurrency: number): Promise<StrykerReport> {
  const { Stryker } = await import("@stryker-mutator/core");
  // The sandbox and the report live outside the project, so nothing of a run reaches git.
  const scratch = mkdtempSync(join(tmpdir(), "passepartout-mutate-"));
  // `npm run dev` stops a mutation run a newer save made pointless with SIGTERM: the sandbox goes too.
  const stopped = (): void => {
    rmSync(scratch, { recursive: true, force: true });
    process.exit(143);
  };
  process.once("SIGTERM", stopped);
  try {
    const options: PartialStrykerOptions = {
      testRunner: "vitest",
      plugins: ["@stryker-mutator/vitest-runner"],
      vitest: { configFile: mutationConfig, related: false },
      testFiles: [tests],
      coverageAnalysis: "perTest",
      mutate: [...mutate],
      reporters: ["json"],
      jsonReporter: { fileName: join(scratch, "report.json") },
      tempDirName: join(scratch, "sandbox"),
      cleanTempDir: "always",
      concurrency,
      timeoutMS: 3000,
      // A const enum in the API's types; its value is the string.
      logLevel: "warn" as LogLevel.Warning,
      ignorePatterns: ["/coverage", "/site", "/site-artifacts", "/bench", "/.cache", "/mutation"],
    };
    const previous = process.cwd();
    process.chdir(root);
    try {
      await new Stryker(options).runMutationTest();
    } finally {
      process.chdir(previous);
    }
    return parseJson(readFileSync(join(scratch, "report.json"), "utf8")) as StrykerReport;
  } finally {
    process.off("SIGTERM", stopped);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Copies the project to a temporary folder for the re-check (node_modules linked, not copied). */
export function scratchCopy(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), "passepartout-recheck-"));
  const skip = new Set(["node_modules", ".git", "coverage", "site", "site-artifacts", ".cache", "bench", "mutation"]);
  cpSync(root, dir, { recursive: true, filter: (source) => source === root || !skip.has(basename(source)) || dirname(source) !== root });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

/** What the tests did with a mutant in place: the names of those that failed, or that the file failed to load. */
interface MutantRun {
  readonly failed: readonly string[];
  readonly ran: readonly string[];
  readonly loadFailed: boolean;
}

/**
 * Runs `tests` (only the tests named in `names`, when given) in the copy `dir` with `mutant` of
 * `block` put in place (none: the code as it is), and restores the file after. Undefined when the block no longer has the mutant's place.
 */
function runWithMutant(dir: string, book: Book, block: number, mutant: MutantRecord | undefined, tests: string, names: readonly string[]): MutantRun | undefined {
  const target = book.result.targets.find((t) => t.lineBlock.includes(block))?.path;
  const mutated = mutant === undefined ? (target === undefined ? undefined : { target, text: book.result.files.get(target) ?? "" }) : applyMutant(book.result, block, mutant);
  if (mutated === undefined) return undefined;
  const file = join(dir, mutated.target);
  const original = readFileSync(file, "utf8");
  writeFileSync(file, mutated.text);
  try {
    const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
    const out = join(dir, "recheck.json");
    rmSync(out, { force: true });
    const filter = names.length > 0 ? ["-t", testNamePattern(names)] : [];
    spawnSync(process.execPath, [vitest, "run", "--config", mutationConfig, tests, ...filter, "--reporter=json", `--outputFile=${out}`], { cwd: dir, stdio: "ignore" });
    const report = parseJson(readIfExists(out) ?? "{}") as { testResults?: { status?: string; assertionResults?: { fullName?: string; status?: string }[] }[] };
    const files = report.testResults ?? [];
    const results = files.flatMap((f) => f.assertionResults ?? []).filter((a) => a.status === "passed" || a.status === "failed");
    return {
      failed: results.filter((a) => a.status === "failed").map((a) => a.fullName ?? ""),
      ran: results.map((a) => a.fullName ?? ""),
      // A mutant that breaks loading the module fails the file before any test runs: StrykerJS counts that as killed too.
      loadFailed: files.some((f) => f.status === "failed" && (f.assertionResults ?? []).length === 0),
    };
  } finally {
    writeFileSync(file, original);
  }
}

/** The outcome of re-running a recorded kill: killed, or why not. */
export type Recheck = { readonly killed: true } | { readonly killed: false; readonly why: string };

export function recheck(dir: string, book: Book, kill: SampledKill): Recheck {
  const run = runWithMutant(dir, book, kill.block, kill.mutant, kill.tests, kill.mutant.killedBy);
  if (run === undefined) return { killed: false, why: "its place is no longer in the block" };
  const names = new Set(kill.mutant.killedBy);
  if (run.failed.some((name) => names.has(name))) return { killed: true };
  if (run.loadFailed) {
    // Counts as killed only if the same tests load and pass without the mutant: a broken copy must not pass every kill.
    const baseline = runWithMutant(dir, book, kill.block, undefined, kill.tests, kill.mutant.killedBy);
    if (baseline !== undefined && baseline.failed.length === 0 && baseline.ran.some((name) => names.has(name))) return { killed: true };
    return { killed: false, why: "the test file fails to load even without the mutant" };
  }
  const ran = run.ran.filter((name) => names.has(name));
  return { killed: false, why: ran.length === 0 ? `the tests that killed it did not run (\`${kill.mutant.killedBy.join("`, `")}\`)` : `\`${kill.mutant.killedBy.join("`, `")}\` passed with it in place` };
}

/**
 * Whether generated position `line`:`column` of `target` lies outside every function body: code that
 * runs once, when the module loads ("static" in StrykerJS's words), a function written there included.
 */
function moduleLevel(book: Book, target: string, line: number, column: number): boolean {
  const source = book.sources.get(target);
  if (source === undefined) return false;
  const position = source.getPositionOfLineAndCharacter(line - 1, column - 1);
  let inside = false;
  const visit = (node: ts.Node): void => {
    if (inside || position < node.getStart(source) || position >= node.getEnd()) return;
    if (ts.isFunctionLike(node)) {
      // A mutant that starts where the function starts replaces the function itself (`() => undefined`), a value made when the code around it runs.
      inside = position > node.getStart(source);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return !inside;
}

/**
 * StrykerJS 9.6 under vitest 4.1 never activates a mutant of module-level code (a \`Set\` of names),
 * so each one "survives" tests that plainly kill it. Each such survivor is run again here, the
 * mutant written into a copy of the project and the chapter's tests run on it, and recorded as
 * killed, by the tests that failed, when they fail.
 */
export function confirmModuleLevel(book: Book, fresh: Map<number, MutantRecord[]>, tests: string): number {
  let confirmed = 0;
  let dir: string | undefined;
  try {
    for (const [block, mutants] of fresh) {
      fresh.set(
        block,
        mutants.map((m) => {
          if (!undetected(m)) return m;
          const at = toGeneratedPosition(book.result, block, m.line, m.column);
          if (at === undefined || !moduleLevel(book, at.target, at.line, at.column)) return m;
          dir ??= scratchCopy(book.root);
          const run = runWithMutant(dir, book, block, m, tests, []);
          if (run === undefined || run.failed.length === 0) return m;
          confirmed++;
          return { ...m, status: "killed", killedBy: [...new Set(run.failed)].sort() };
        }),
      );
    }
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
  return confirmed;
}

