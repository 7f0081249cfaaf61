// dev's long-lived Vitest (`tools/lib/runners/vitest.ts`) in a real scratch project of two
// chapters: one instance runs one test file, then another, as dev runs them save after save.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LiterateError } from "../../tools/lib/core/diagnostics.ts";
import { DevTestRunner } from "../../tools/lib/runners/vitest.ts";
import { Project, doublingChapter } from "./verify-project.ts";

/** A second chapter like the first, with its own module and test file. */
const triplingChapter = doublingChapter.replaceAll("/a.", "/b.").replaceAll("double", "triple").replaceAll("Doubling", "Tripling").replace("return n * 2;", "return n * 3;").replace("toBe(4)", "toBe(6)");

describe("DevTestRunner", () => {
  let project: Project;
  let runner: DevTestRunner;

  beforeAll(() => {
    project = new Project({ "literate/a.md": doublingChapter, "literate/b.md": triplingChapter });
    project.tangleNow();
    runner = new DevTestRunner(project.root);
  });

  afterAll(async () => {
    await runner.close();
    project.remove();
  });

  it("reports a run's own files only: a file that failed in an earlier run and was not run again is not this run's failure", { timeout: 120_000 }, async () => {
    const good = project.read("generated/a.ts");
    // A half-typed block: the module does not parse.
    project.write("generated/a.ts", `${good}\nexport const half = \n`);
    const broken = await runner.run(["test/a.test.ts"], ["generated/a.ts"]);
    expect(broken.ran).toEqual(["test/a.test.ts"]);
    expect(broken.evidence).toBeUndefined();
    expect(broken.problems.map((p) => p.message).join("\n")).toMatch(/test file failed: .*generated\/a\.ts/);
    // One line, plain text: no terminal colour codes in what dev prints and the page shows.
    expect(broken.problems.map((p) => p.message).join("")).not.toMatch(/\u001b|\\x1b/);

    project.write("generated/a.ts", good);
    const other = await runner.run(["test/b.test.ts"], ["generated/a.ts"]);
    expect(other.ran).toEqual(["test/b.test.ts"]);
    expect(other.problems).toEqual([]);
    expect(other.evidence?.testFiles).toEqual(["test/b.test.ts"]);
    expect(other.evidence?.tests).toEqual({ total: 1, passed: 1, failed: 0 });

    // The fixed module was invalidated when the other file ran: its own test now loads it as it is.
    const again = await runner.run(["test/a.test.ts"], []);
    expect(again.problems).toEqual([]);
    expect(again.ran).toEqual(["test/a.test.ts"]);
  });

  it("runs a test file written after it started (a new chapter's), and no longer lists one deleted since", { timeout: 120_000 }, async () => {
    expect(await runner.testFiles()).toEqual(["test/a.test.ts", "test/b.test.ts"]);
    project.write("test/c.test.ts", project.read("test/b.test.ts"));
    expect(await runner.testFiles()).toEqual(["test/a.test.ts", "test/b.test.ts", "test/c.test.ts"]);
    const run = await runner.run(["test/c.test.ts"], []);
    expect(run.problems).toEqual([]);
    expect(run.evidence?.testFiles).toEqual(["test/c.test.ts"]);
    expect(run.evidence?.tests).toEqual({ total: 1, passed: 1, failed: 0 });
    rmSync(join(project.root, "test/c.test.ts"));
    const gone = await runner.run(["test/c.test.ts"], []);
    expect(gone.evidence).toBeUndefined();
    expect(gone.problems.map((p) => `${p.file}: ${p.message}`)).toEqual(["test/c.test.ts: `test/c.test.ts` is not a test file Vitest runs"]);
    expect(await runner.testFiles()).toEqual(["test/a.test.ts", "test/b.test.ts"]);
  });

  it("stops a run whose test never ends, says why, and runs the next one in new workers", { timeout: 120_000 }, async () => {
    project.write("test/loops.test.ts", ['import { it } from "vitest";', 'it("never ends", () => {', "  for (let n = 1; n > 0; n++);", "});", ""].join("\n"));
    const running = runner.run(["test/loops.test.ts"], []);
    // Stopped while it loops, or before its worker has even started: either way it ends.
    setTimeout(() => runner.stop("a newer save"), 1_000);
    const stopped = await running;
    expect(stopped.stopped).toBe(true);
    expect(stopped.evidence).toBeUndefined();
    expect(stopped.problems.map((p) => p.message)).toEqual(["the run was stopped: a newer save"]);
    rmSync(join(project.root, "test/loops.test.ts"));

    const next = await runner.run(["test/a.test.ts"], []);
    expect(next.stopped).toBeUndefined();
    expect(next.problems).toEqual([]);
    expect(next.evidence?.testFiles).toEqual(["test/a.test.ts"]);
  });

  it("stops runs whose test keeps talking to Vitest at any moment, a worker starting included, and the process and the next run go on", { timeout: 180_000 }, async () => {
    // A test that never ends but keeps Vitest answering it (its output): a worker killed then was
    // still sent messages, and the closed channel threw out of the process (ERR_IPC_CHANNEL_CLOSED).
    project.write("test/chatty.test.ts", ['import { it } from "vitest";', 'it("chats", async () => {', "  for (let n = 0; ; n++) {", "    await new Promise((done) => setImmediate(done));", '    if (n % 50 === 0) console.log("still here", n);', "  }", "});", ""].join("\n"));
    for (const after of [0, 200, 500, 900]) {
      const running = runner.run(["test/chatty.test.ts"], []);
      setTimeout(() => runner.stop("a newer save"), after);
      const stopped = await running;
      expect(stopped.stopped).toBe(true);
      const next = await runner.run(["test/a.test.ts"], []);
      expect(next.problems).toEqual([]);
      expect(next.evidence?.testFiles).toEqual(["test/a.test.ts"]);
    }
    rmSync(join(project.root, "test/chatty.test.ts"));
  });

  it("fails a run whose coverage cannot be written (a full disk) at the file, and the process and the next run go on", { timeout: 120_000 }, async () => {
    // A test that takes the place of the folder Vitest writes each file's coverage into: the
    // write fails as on a full disk. Vitest answers an unhandled rejection by exiting the process.
    project.write(
      "test/blocked.test.ts",
      [
        'import { rmSync, writeFileSync } from "node:fs";',
        'import { expect, it } from "vitest";',
        'import { double } from "../generated/a.ts";',
        'it("blocks the coverage write", () => {',
        '  const folder = new URL("../.cache/dev/coverage/.tmp", import.meta.url);',
        "  rmSync(folder, { recursive: true, force: true });",
        '  writeFileSync(folder, "");',
        "  expect(double(2)).toBe(4);",
        "});",
        "",
      ].join("\n"),
    );
    const blocked = await runner.run(["test/blocked.test.ts"], []);
    expect(blocked.evidence).toBeUndefined();
    expect(blocked.problems).toHaveLength(1);
    expect(blocked.problems[0]?.file).toMatch(/^\.cache\/dev\/coverage\/\.tmp\/coverage-\d+\.json$/);
    expect(blocked.problems[0]?.message).toMatch(/^the test run failed: ENOTDIR/);

    const next = await runner.run(["test/a.test.ts"], []);
    expect(next.problems).toEqual([]);
    expect(next.evidence?.testFiles).toEqual(["test/a.test.ts"]);
  });
});

describe("DevTestRunner, when Vitest cannot start", () => {
  it("reports a vitest.config.ts that does not load as the user's error at its line, and starts Vitest once it is fixed", { timeout: 120_000 }, async () => {
    const project = new Project({ "literate/a.md": doublingChapter });
    const runner = new DevTestRunner(project.root);
    try {
      project.tangleNow();
      const good = project.read("vitest.config.ts");
      project.write("vitest.config.ts", 'import { defineConfig } from "vitest/config";\nexport default defineConfig({ test: { include: ["test/**/*.test.ts"] },\n');
      const failed = await runner.run(["test/a.test.ts"], []).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(failed).toBeInstanceOf(LiterateError);
      const [problem] = (failed as LiterateError).diagnostics;
      expect(problem?.file).toBe("vitest.config.ts");
      expect(problem?.line).toBe(2);
      expect(problem?.message).toMatch(/^Vitest could not start: /);
      expect(problem?.hint).toBe("fix what it names; the next save starts Vitest again");

      project.write("vitest.config.ts", good);
      const next = await runner.run(["test/a.test.ts"], []);
      expect(next.problems).toEqual([]);
      expect(next.evidence?.testFiles).toEqual(["test/a.test.ts"]);
    } finally {
      await runner.close();
      project.remove();
    }
  });
});
