// `npm run dev` end to end: the launcher started as a child process on a real project folder,
// edited on disk as an author's editor would, its output read line by line (the reads and tangles
// of a save too, which it counts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Dev, hashOf, listen } from "./dev-process.ts";
import { Project, doublingChapter as chapter, edit, lineOf } from "./verify-project.ts";

const fence = "```";

describe("npm run dev", () => {
  let project: Project;
  let dev: Dev;

  beforeAll(async () => {
    project = new Project({ "literate/a.md": chapter });
    dev = new Dev(project.root, ["--port", "0"]);
    await dev.waitFor(/dev: watching .*docs at (http:\S+)/);
  }, 180_000);

  afterAll(async () => {
    await dev.end();
    project.remove();
  });

  it("prints a verdict at the block's Markdown line and stamps the block when its tests pass, and updates its chapter page live", async () => {
    const url = (await dev.waitFor(/docs at (http:\S+)/))[1] ?? "";
    // The first build must be done before listening, or its update is taken for the edit's.
    await dev.waitFor(/dev: docs updated/);
    const { events, stream } = await listen(url);
    const from = dev.output.length;
    project.write("literate/a.md", edit(chapter, "return n * 2;", "return n + n;"));
    await dev.waitFor(/literate\/a\.md:9 compiles ✓ tested ✓ stamped ✓/, from);
    const text = project.read("literate/a.md");
    expect(text.split("\n")[8]).toBe(`${fence}ts tested=${hashOf(text, 0)}`);
    // One save, one read of the saved document, one tangle; the stamp dev wrote is taken into what it holds, and starts no cycle.
    await dev.waitFor(/block\(s\) judged in \d+ ms \(.*; 1 document\(s\) read, book tangled 1 time\(s\)\)/, from);
    const afterStamp = dev.output.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(dev.output.slice(afterStamp)).not.toMatch(/dev: running|block\(s\) judged/);
    // The chapter's page is rebuilt, browsers showing it are told, and it carries the new badge and the live script.
    await dev.waitFor(/dev: docs updated/, from);
    await expect.poll(() => events.join(""), { timeout: 30_000 }).toContain('"pages":["chapters/a.html"]');
    stream.destroy();
    const page = await (await fetch(new URL("chapters/a.html", url))).text();
    expect(page).toContain('<script src="/__dev/live.js"></script>');
    expect(page).toContain("tested ✓");
    // That build resolved only the changed file's identifiers; once the saves pause, one build resolves them all.
    await dev.waitFor(/dev: docs checked in \d+ ms, every cross-reference resolved again: \d+ page\(s\) changed/, from);
  }, 240_000);

  it("reports a broken fence at its location, keeps running and keeps the generated file, then recovers when it is fixed", async () => {
    const good = project.read("literate/a.md");
    const generated = project.read("generated/a.ts");
    const url = (await dev.waitFor(/docs at (http:\S+)/))[1] ?? "";
    await dev.waitFor(/dev: docs updated/, dev.output.lastIndexOf("dev: running"));
    const { events, stream } = await listen(url);
    const from = dev.output.length;
    const broken = `${good}\nMore code.\n\n${fence}ts file=\nexport const half = 1;\n${fence}\n`;
    project.write("literate/a.md", broken);
    await dev.waitFor(new RegExp(`literate/a\\.md:${lineOf(broken, `${fence}ts file=`)}:7 bad-attribute: \`file=\` needs a path`), from);
    await dev.waitFor(/the generated files are kept as they were/, from);
    expect(dev.child.exitCode).toBeNull();
    expect(project.read("generated/a.ts")).toBe(generated);
    // Open pages show the error over the last good page.
    await expect.poll(() => events.join(""), { timeout: 30_000 }).toMatch(/event: problem\ndata: .*bad-attribute: `file=` needs a path/);

    const again = dev.output.length;
    const fixed = edit(good, "return n + n;", "return 2 * n;");
    project.write("literate/a.md", fixed);
    await dev.waitFor(/literate\/a\.md:9 compiles ✓ tested ✓ stamped ✓/, again);
    expect(project.read("generated/a.ts")).toContain("return 2 * n;");
    expect(project.read("literate/a.md").split("\n")[8]).toBe(`${fence}ts tested=${hashOf(project.read("literate/a.md"), 0)}`);
    await expect.poll(() => events.join(""), { timeout: 60_000 }).toContain('event: update\ndata: {"pages":["chapters/a.html"]}');
    stream.destroy();
  }, 240_000);

  it("says what a failing test broke and writes no stamp, judges the block again when the chapter is next saved, and exits 0 on Ctrl-C", async () => {
    const before = project.read("literate/a.md");
    const from = dev.output.length;
    project.write("literate/a.md", edit(before, "return 2 * n;", "return n * 3;"));
    const verdict = await dev.waitFor(/literate\/a\.md:9 compiles ✓ tested ✗ stamped ✗\n\s+literate\/a\.md:23:\d+ tested: failed: doubles/, from);
    expect(verdict[0]).toContain("failed: doubles");
    expect(project.read("literate/a.md").split("\n")[8]).toBe(before.split("\n")[8]);

    // Fixing the test, not the block, judges the block again: it is in the saved chapter without a current stamp.
    const retry = dev.output.length;
    project.write("literate/a.md", edit(project.read("literate/a.md"), "toBe(4)", "toBe(6)"));
    await dev.waitFor(/literate\/a\.md:9 compiles ✓ tested ✓ stamped ✓\nliterate\/a\.md:18 compiles ✓ tests pass ✓/, retry);
    const text = project.read("literate/a.md");
    expect(text.split("\n")[8]).toBe(`${fence}ts tested=${hashOf(text, 0)}`);

    dev.child.kill("SIGINT");
    expect(await dev.exited).toBe(0);
  }, 240_000);
});

describe("npm run dev, when the author saves again while the tests run (and with --stitch, when a tangled file is saved)", () => {
  // The test sleeps, so the second save surely lands while it runs.
  const slow = edit(chapter, "  expect(double(2)).toBe(4);", "  await new Promise((resolve) => setTimeout(resolve, 3000));\n  expect(double(2)).toBe(4);").replace('it("doubles", () => {', 'it("doubles", async () => {');
  let project: Project;
  let dev: Dev;

  beforeAll(async () => {
    project = new Project({ "literate/a.md": slow });
    dev = new Dev(project.root, ["--no-docs", "--stitch"]);
    await dev.waitFor(/dev: watching .* \(and the tangled files, to stitch\)/);
  }, 180_000);

  afterAll(async () => {
    await dev.end();
    project.remove();
  });

  it("stops the older save's tests, writes no stamp from its text, and stamps the block when it judges the new save", async () => {
    const from = dev.output.length;
    const edited = edit(slow, "return n * 2;", "return n + n;");
    project.write("literate/a.md", edited);
    await dev.waitFor(/dev: running test\/a\.test\.ts/, from);
    const resaved = edit(edited, "Doubling is what this chapter is about.", "Doubling is all this chapter is about.");
    project.write("literate/a.md", resaved);
    await dev.waitFor(/dev: the run was stopped: literate\/a\.md was saved again; its 1 block\(s\) are judged with that save\n/, from);
    await dev.waitFor(/literate\/a\.md:9 compiles ✓ tested ✓ stamped ✓/, from);
    const text = project.read("literate/a.md");
    expect(text).toContain("Doubling is all this chapter is about.");
    expect(text.split("\n")[8]).toBe(`${fence}ts tested=${hashOf(text, 0)}`);
  }, 240_000);

  it("with --stitch, takes a save of a generated file back into the chapter, passes over its own tangles, and judges the block", async () => {
    const from = dev.output.length;
    project.write("generated/a.ts", project.read("generated/a.ts").replace("  return n + n;", "  return 2 * n;"));
    await dev.waitFor(/dev: stitched 1 edit\(s\) from generated\/a\.ts into literate\/a\.md/, from);
    await dev.waitFor(/literate\/a\.md:9 compiles ✓ tested ✓ stamped ✓/, from);
    const text = project.read("literate/a.md");
    expect(text).toContain("\n  return 2 * n;\n");
    expect(text.split("\n")[8]).toBe(`${fence}ts tested=${hashOf(text, 0)}`);
    // The cycle's own tangle of the stitched chapter is no edit: nothing more is stitched.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(dev.output.slice(from).match(/dev: stitched/g)).toHaveLength(1);
    expect(dev.output.slice(from)).not.toMatch(/stitch refused/);
  }, 240_000);
});

describe("npm run dev, when the docs' port is taken", () => {
  it("says so, with a hint, and exits 1", async () => {
    const project = new Project({ "literate/a.md": chapter });
    const { createServer } = await import("node:net");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const dev = new Dev(project.root, ["--port", String(port)]);
      expect(await dev.exited).toBe(1);
      expect(dev.output).toContain(`dev: port ${port} is in use`);
      expect(dev.output).toContain("hint: pick another with `--port N`");
    } finally {
      server.close();
      project.remove();
    }
  }, 120_000);
});

describe("npm run docs:serve, which is npm run dev -- --docs-only", () => {
  it("rebuilds the saved chapter's page and shows a tangle error on open pages, running no test and writing no stamp", async () => {
    const project = new Project({ "literate/a.md": chapter });
    const dev = new Dev(project.root, ["--docs-only", "--port", "0"]);
    try {
      const url = (await dev.waitFor(/docs at (http:\S+)/))[1] ?? "";
      await dev.waitFor(/dev: docs updated/);
      const { events, stream } = await listen(url);
      const from = dev.output.length;
      const edited = edit(chapter, "Doubling is what this chapter is about.", "Doubling, and nothing else, is what this chapter is about.");
      project.write("literate/a.md", edited);
      await expect.poll(() => events.join(""), { timeout: 60_000 }).toContain('"pages":["chapters/a.html"]');
      expect(await (await fetch(new URL("chapters/a.html", url))).text()).toContain("Doubling, and nothing else, is what this chapter is about.");
      const broken = `${edited}\nMore code.\n\n${fence}ts file=\nexport const half = 1;\n${fence}\n`;
      project.write("literate/a.md", broken);
      await expect.poll(() => events.join(""), { timeout: 60_000 }).toMatch(/event: problem\ndata: .*bad-attribute: `file=` needs a path/);
      stream.destroy();
      expect(dev.output.slice(from)).not.toMatch(/dev: running|block\(s\) judged|dev: mutating/);
      expect(project.read("literate/a.md")).toBe(broken);
    } finally {
      await dev.end();
      project.remove();
    }
  }, 240_000);

  it("refuses --docs-only with --no-docs, which leave nothing to do", async () => {
    const project = new Project({ "literate/a.md": chapter });
    try {
      const dev = new Dev(project.root, ["--docs-only", "--no-docs"]);
      expect(await dev.exited).toBe(1);
      expect(dev.output).toContain("dev: --no-docs and --docs-only leave nothing to do");
    } finally {
      project.remove();
    }
  }, 120_000);
});
