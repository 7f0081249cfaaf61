// `npm run dev` end to end, the saves that reach beyond the saved block: a block in another
// chapter that a save breaks or mends, a save right after dev's own stamp write, and the saved
// block's mutants run in the background. Beside dev-cli.test.ts, so that the two run in parallel.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Dev, childEnvironment, hashOf } from "./dev-process.ts";
import { Project, doublingChapter as chapter, edit, launcher, repository } from "./verify-project.ts";

const fence = "```";

describe("npm run dev, when a save breaks or mends blocks it did not change", () => {
  /** A second chapter whose block imports `double` from the first's module. */
  const quadrupling = [
    "---",
    "tangle: generated/b.ts",
    "---",
    "# Quadrupling",
    "",
    "Twice doubling.",
    "",
    `${fence}ts`,
    'import { double } from "./a.ts";',
    "",
    "/** Four times `n`. */",
    "export const quadruple = (n: number): number => double(double(n));",
    fence,
    "",
  ].join("\n");
  let project: Project;
  let dev: Dev;

  beforeAll(async () => {
    project = new Project({ "literate/a.md": chapter, "literate/b.md": quadrupling });
    dev = new Dev(project.root, ["--no-docs", "--no-mutate"]);
    await dev.waitFor(/dev: watching /);
  }, 180_000);

  afterAll(async () => {
    await dev.end();
    project.remove();
  });

  it("names the block in another chapter that a renamed export breaks, with its error, then says it compiles again; and says what a save that changes no block did", async () => {
    const renamed = dev.output.length;
    project.write("literate/a.md", chapter.replaceAll("double", "twice"));
    const broken = await dev.waitFor(/dev: this save changed whether 1 other block\(s\) compile:\nliterate\/b\.md:8 compiles ✗\n\s+literate\/b\.md:9:10 compiles: TS2305: [^\n]*'double'/, renamed);
    await dev.waitFor(/block\(s\) judged in \d+ ms [^\n]*; 1 other block\(s\) do not compile/, renamed);
    // Printed with what the type-check knew, before the chapter's tests ran.
    const after = dev.output.slice(renamed);
    expect(after.indexOf(broken[0])).toBeGreaterThanOrEqual(0);
    expect(after.indexOf(broken[0])).toBeLessThan(after.indexOf("dev: running test/a.test.ts"));

    const restored = dev.output.length;
    project.write("literate/a.md", chapter);
    await dev.waitFor(/dev: this save changed whether 1 other block\(s\) compile:\nliterate\/b\.md:8 compiles ✓ again/, restored);
    await dev.waitFor(/block\(s\) judged in \d+ ms [^\n]*\)\n/, restored);

    // The first chapter's blocks are stamped now: a prose edit changes none of them.
    const prose = dev.output.length;
    project.write("literate/a.md", project.read("literate/a.md").replace("Doubling is what this chapter is about.", "Doubling is all this chapter is about."));
    await dev.waitFor(/dev: literate\/a\.md: no block changed \(type-check \d+ ms\)\n/, prose);
  }, 240_000);

  it("reports a problem of the file system at its file, not as a bug, and judges the next save", async () => {
    // A folder named like a chapter: reading it fails as a full disk or a lost permission would, with an error code.
    const from = dev.output.length;
    mkdirSync(join(project.root, "literate", "folder.md"));
    await dev.waitFor(/literate\/folder\.md file-system: cannot write or read `[^`]*literate\/folder\.md`: a folder stands where a file is expected \(EISDIR\)\n\s+hint: [^\n]+\ndev: this save could not be judged/, from);
    expect(dev.output.slice(from)).not.toContain("internal error");
    rmSync(join(project.root, "literate", "folder.md"), { recursive: true });
    const next = dev.output.length;
    project.write("literate/a.md", project.read("literate/a.md").replace("Doubling is", "Doubling, here, is"));
    await dev.waitFor(/dev: literate\/a\.md: no block changed/, next);
  }, 240_000);

  it("runs the tests of a chapter added while it runs, and stamps its blocks", async () => {
    // Its test file did not exist when dev's Vitest listed the project's test files.
    const from = dev.output.length;
    const tripling = chapter.replaceAll("/a.", "/c.").replaceAll("double", "triple").replace("Doubling", "Tripling").replace("return n * 2;", "return n * 3;").replace("toBe(4)", "toBe(6)");
    project.write("literate/c.md", tripling);
    await dev.waitFor(/dev: running test\/c\.test\.ts\nliterate\/c\.md:9 compiles ✓ tested ✓ stamped ✓\nliterate\/c\.md:18 compiles ✓ tests pass ✓\n/, from);
    expect(project.read("literate/c.md").split("\n")[8]).toBe(`${fence}ts tested=${hashOf(project.read("literate/c.md"), 0)}`);
    // Its module is in tsconfig.json's program like the others: dev's list of that program is not the one it started with.
    expect(dev.output.slice(from)).not.toContain("is not part of the program");
  }, 240_000);

  it("judges a save made right after its own stamp write, which no watcher event may report", async () => {
    const bodies = ["return n * 2;", "return n + n;"];
    const flip = (): void => {
      const text = project.read("literate/a.md");
      const body = bodies.find((b) => text.includes(b)) ?? "";
      project.write("literate/a.md", edit(text, body, body === bodies[0] ? (bodies[1] ?? "") : (bodies[0] ?? "")));
    };
    // A save 45 ms after the stamp write reached no event on this machine; the others are around it.
    for (const delay of [0, 30, 45, 60]) {
      const from = dev.output.length;
      flip();
      await dev.waitFor(/literate\/a\.md:9 compiles ✓ tested ✓ stamped ✓/, from);
      await new Promise((resolve) => setTimeout(resolve, delay));
      const again = dev.output.length;
      flip();
      await dev.waitFor(/literate\/a\.md:9 compiles ✓ tested ✓ stamped ✓/, again, 30);
    }
  }, 240_000);

  it("names a type-check error outside every block (a tsconfig.json that does not parse) when it appears, and says when it is gone", async () => {
    const config = project.read("tsconfig.json");
    const text = project.read("literate/a.md");
    const broken = dev.output.length;
    project.write("tsconfig.json", config.replace(/\}\s*$/, ""));
    project.write("literate/a.md", `${text}\nOne more line of prose.\n`);
    await dev.waitFor(/dev: the type-check reports 1 error\(s\) outside the blocks:\ntsconfig\.json:\d+:\d+ compiles: TS1005: [^\n]+\n/, broken);
    const fixed = dev.output.length;
    project.write("tsconfig.json", config);
    project.write("literate/a.md", text);
    await dev.waitFor(/dev: the type-check's errors outside the blocks are gone\n/, fixed);
  }, 240_000);

  // Last in this describe: it ends the dev process.
  it("stops tests that never end when the chapter is saved again and judges that save; Ctrl-C stops them too, and dev exits 0", async () => {
    const looping = (text: string): string => edit(text, text.includes("return n * 2;") ? "return n * 2;" : "return n + n;", "while (n > 0) n = n + 1;\n  return n * 2;");
    const from = dev.output.length;
    project.write("literate/a.md", looping(project.read("literate/a.md")));
    await dev.waitFor(/dev: running test\/a\.test\.ts\n/, from);
    const fixed = dev.output.length;
    project.write("literate/a.md", edit(project.read("literate/a.md"), "while (n > 0) n = n + 1;\n  return n * 2;", "return 2 * n;"));
    await dev.waitFor(/dev: the run was stopped: literate\/a\.md was saved again; its 1 block\(s\) are judged with that save\n/, fixed, 30);
    await dev.waitFor(/literate\/a\.md:9 compiles ✓ tested ✓ stamped ✓/, fixed, 30);
    expect(dev.output.slice(fixed)).not.toMatch(/a\.md:9 [^\n]*tested ✗/);

    const again = dev.output.length;
    project.write("literate/a.md", edit(project.read("literate/a.md"), "return 2 * n;", "while (n > 0) n = n + 1;\n  return n * 2;"));
    await dev.waitFor(/dev: running test\/a\.test\.ts\n/, again);
    dev.child.kill("SIGINT");
    expect(await dev.exited).toBe(0);
  }, 240_000);
});

describe("npm run dev, in a chapter that keeps a mutation record", () => {
  let project: Project;
  let dev: Dev;

  beforeAll(async () => {
    project = new Project({ "literate/a.md": chapter });
    // StrykerJS links the project's node_modules into its sandbox and passes over one that is itself a link.
    rmSync(join(project.root, "node_modules"));
    mkdirSync(join(project.root, "node_modules"));
    for (const entry of readdirSync(join(repository, "node_modules"))) symlinkSync(join(repository, "node_modules", entry), join(project.root, "node_modules", entry));
    copyFileSync(join(repository, "vitest.mutate.config.ts"), join(project.root, "vitest.mutate.config.ts"));
    project.tangleNow();
    const recorded = spawnSync(process.execPath, [launcher, "mutate", "--root", project.root, "--chapter", "a"], { cwd: project.root, env: childEnvironment(), encoding: "utf8" });
    if (recorded.status !== 0) throw new Error(`mutate failed:\n${recorded.stdout}${recorded.stderr}`);
    dev = new Dev(project.root, ["--no-docs"]);
    await dev.waitFor(/dev: watching /);
  }, 240_000);

  afterAll(async () => {
    await dev.end();
    project.remove();
  });

  it("mutates a saved block in the background once the saves pause, prints its score and survivors at the block, and leaves out the run of a save that a newer one replaced", async () => {
    // Two quick saves: the first one's run never starts (the saves did not pause), only the second's reports.
    const first = dev.output.length;
    project.write("literate/a.md", edit(chapter, "return n * 2;", "return n + n;"));
    await dev.waitFor(/dev: mutating literate\/a\.md in the background/, first);
    const second = dev.output.length;
    project.write("literate/a.md", edit(project.read("literate/a.md"), "return n + n;", "return 2 * n;"));
    await dev.waitFor(/literate\/a\.md:9 compiles ✓ tested ✓ stamped ✓ pinned ✗/, second);
    const scored = await dev.waitFor(/literate\/a\.md:9 pinned ([✓✗]) mutants (\d+)% \((\d+) killed, (\d+) survive\) after \d+ ms/, second);
    expect(Number(scored[3])).toBeGreaterThan(0);
    expect(dev.output.slice(first).match(/ pinned [✓✗] mutants /g)).toHaveLength(1);
    // The run rewrote the chapter's record for the block as it is now.
    expect(project.read("mutation/a.json")).toContain(hashOf(project.read("literate/a.md"), 0));
  }, 240_000);
});
