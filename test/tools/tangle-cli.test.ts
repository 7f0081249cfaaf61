/**
 * `tools/tangle.ts` and `runTangle` on real project folders in the temp directory: what is
 * written, what is refused, what is left untouched, and the exit codes. Where its output or exit
 * code is the point, the command runs in this process through the body the CLI runs (`cli`), and
 * as a child process, as `npm run tangle` runs it (`node tools/run.cjs tangle`, the compiled CLI),
 * where the process itself is (`cliProcess`, and the launcher's tests at the end); `runTangle` is
 * called directly where only the effect on the disk is.
 */
import { spawn } from "node:child_process";
import { appendFileSync, cpSync, existsSync, readFileSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LiterateError } from "../../tools/lib/core/diagnostics.ts";
import { manifestPath } from "../../tools/lib/core/paths.ts";
import { formatManifest, sha256 } from "../../tools/lib/core/plan.ts";
import { readInlineSourceMap } from "../../tools/lib/core/sourcemap.ts";
import { pendingPath, runTangle } from "../../tools/lib/commands/tangle-run.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";
import { commandInProcess, fence, frontMatter, listFiles, md, read, removeTempDirs, snapshot, tempDir, thrown, writeFiles } from "./support.ts";

const tsx = join(process.cwd(), "node_modules", ".bin", "tsx");
/** The launcher `npm run tangle` runs. */
const launcher = join(process.cwd(), "tools", "run.cjs");

interface Outcome {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command in a child process, with `env` added to ours. */
function runCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: process.cwd(), env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs a TypeScript file with tsx in a child process. */
const runTs = (file: string, args: readonly string[]): Promise<Outcome> => runCommand(tsx, [file, ...args]);

/** `tangle --root ROOT ...args`, in this process (see `commandInProcess`). */
const cli = (root: string, ...args: string[]): Promise<Outcome> => commandInProcess("tangle", ["--root", root, ...args]);

/** `node tools/run.cjs tangle --root ROOT ...args`: what `npm run tangle -- --root ROOT ...args` runs, as a child process. */
const cliProcess = (root: string, ...args: string[]): Promise<Outcome> => runCommand(process.execPath, [launcher, "tangle", "--root", root, ...args]);

afterAll(removeTempDirs);

/** A long-ago mtime for documents, so the stat cache never sees them as "racily clean". */
const past = new Date("2020-01-01T00:00:00Z");

/** The chapter every test starts from: a default target and a second target via `file=`. */
const chapter = (a = "1", withB = true): string =>
  md(
    "---", // 1
    "tangle: generated/a.ts", // 2
    "---", // 3
    "", // 4
    "# A", // 5
    "", // 6
    `${fence}ts`, // 7
    `export const a = ${a};`, // 8
    fence, // 9
    ...(withB ? ["", "The second file.", "", `${fence}ts file=generated/b.ts`, "export const b = 2;", fence] : []),
  );

/** Writes (or rewrites) a document and dates it in the past, with `age` seconds to tell edits apart. */
function writeDoc(root: string, text: string, path = "literate/a.md", age = 0): void {
  writeFiles(root, { [path]: text });
  const when = new Date(past.getTime() + age * 1000);
  utimesSync(join(root, path), when, when);
}

const scratch = (prefix = "tangle-cli-"): string => tempDir(prefix);

function newProject(text = chapter()): string {
  const root = scratch();
  writeDoc(root, text);
  return root;
}

/** A project already tangled once. */
function tangled(text = chapter()): string {
  const root = newProject(text);
  runTangle({ root });
  return root;
}

/**
 * Each test spawns at most two CLI runs of about a second each; the generous limit only guards
 * against a hung child on a loaded machine, it is not a performance assertion.
 */
const cliTimeout = 120_000;

/** The hint of every refused target. */
const targetHint = "targets must be regular files inside the project, outside `literate/`, `node_modules/`, `.git/` and `.cache/`";

const noTemporaries = (root: string): string[] => listFiles(root).filter((path) => path.includes(".tmp-"));

describe("tangle's messages", { timeout: cliTimeout }, () => {
  it("show a `file=` name's escape sequences as visible escapes, never raw, and refuse the name", async () => {
    const root = newProject(md("---", "tangle: generated/a.ts", "---", "", "# A", "", `${fence}ts file=generated/\u001b[2J\u001b]0;pwned\u0007x.ts`, "export const a = 1;", fence));
    const run = await cliProcess(root);
    expect(run.status).toBe(1);
    expect(run.stdout + run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(run.stderr).toContain("target `generated/\\x1b[2J\\x1b]0;pwned\\x07x.ts` holds a control character");
    expect(existsSync(join(root, "generated"))).toBe(false);
  });
});

describe.concurrent("tangle writes", { timeout: cliTimeout }, () => {
  it("every target, its source map inline, and the manifest, and lists them", async ({ expect }) => {
    const root = newProject();
    const run = await cliProcess(root);
    expect(run).toEqual({
      status: 0,
      stderr: "",
      stdout: [
        "wrote   generated/a.ts",
        "wrote   generated/b.ts",
        "wrote   generated/.tangle-manifest.json",
        "tangle: 3 written, 0 deleted, 0 unchanged",
        "",
      ].join("\n"),
    });
    const expected = tangle([{ path: "literate/a.md", text: chapter() }]).files;
    for (const [path, content] of expected) expect(read(root, path), path).toBe(content);
    const hashes: Record<string, string> = {};
    for (const [path, content] of expected) hashes[path] = sha256(content);
    expect(read(root, manifestPath)).toBe(formatManifest({ version: 1, files: hashes }));
    expect(noTemporaries(root)).toEqual([]);
    expect(listFiles(root)).toEqual([".cache/tangle-stat.json", manifestPath, "generated/a.ts", "generated/b.ts", "literate/a.md"]);
    for (const path of ["generated/a.ts", "generated/b.ts"]) expect(readInlineSourceMap(read(root, path)), path).toMatchObject({ sources: ["../literate/a.md"] });
  });

  it("nothing on a second run, and keeps every file's mtime", async ({ expect }) => {
    const root = tangled();
    const before = snapshot(root, { skipCache: true });
    const run = await cli(root);
    expect(run).toEqual({ status: 0, stderr: "", stdout: "tangle: 0 written, 0 deleted, 2 unchanged\n" });
    expect(snapshot(root, { skipCache: true })).toEqual(before);
  });

  it("only what changed after a document edit", ({ expect }) => {
    const root = tangled();
    const before = snapshot(root, { skipCache: true });
    writeDoc(root, chapter("10"), "literate/a.md", 60);
    const report = runTangle({ root });
    expect(report.actions.map((a) => `${a.kind} ${a.path}`)).toEqual(["write generated/a.ts", `write ${manifestPath}`]);
    const after = snapshot(root, { skipCache: true });
    expect(after["generated/b.ts"]).toEqual(before["generated/b.ts"]);
    expect(read(root, "generated/a.ts")).toContain("export const a = 10;");
  });

  it("over a project tangled when maps were separate files, deleting each `.ts.map` and refusing nothing", async ({ expect }) => {
    // What an older tangle left: each target ending in a comment that names its map, the map
    // beside it, all four in the manifest.
    const root = newProject();
    const old: Record<string, string> = {};
    for (const [path, content] of tangle([{ path: "literate/a.md", text: chapter() }]).files) {
      const name = path.slice(path.lastIndexOf("/") + 1);
      old[path] = content.replace(/\/\/# sourceMappingURL=data:[^\n]*\n$/, `//# sourceMappingURL=${name}.map\n`);
      old[`${path}.map`] = `${JSON.stringify({ ...readInlineSourceMap(content) })}\n`;
    }
    writeFiles(root, old);
    writeFiles(root, { [manifestPath]: formatManifest({ version: 1, files: Object.fromEntries(Object.entries(old).map(([path, content]) => [path, sha256(content)])) }) });
    const run = await cli(root);
    expect(run).toEqual({
      status: 0,
      stderr: "",
      stdout: [
        "wrote   generated/a.ts",
        "wrote   generated/b.ts",
        "deleted generated/a.ts.map",
        "deleted generated/b.ts.map",
        "wrote   generated/.tangle-manifest.json",
        "tangle: 3 written, 2 deleted, 0 unchanged",
        "",
      ].join("\n"),
    });
    expect(listFiles(root).filter((p) => p.startsWith("generated/"))).toEqual([manifestPath, "generated/a.ts", "generated/b.ts"].sort());
    expect(readInlineSourceMap(read(root, "generated/a.ts"))).toMatchObject({ file: "a.ts", sources: ["../literate/a.md"] });
    expect(await cli(root, "--check")).toEqual({ status: 0, stderr: "", stdout: "tangle: up to date (2 files)\n" });
  });

  it("atomically, leaving no temporary file behind", ({ expect }) => {
    const root = tangled();
    writeDoc(root, chapter("3"), "literate/a.md", 60);
    runTangle({ root });
    expect(noTemporaries(root)).toEqual([]);
  });

  it("prints warnings and still succeeds", async ({ expect }) => {
    const root = newProject(md("---", "tangle: generated/a.ts", "---", "", "# A", "", `${fence}ts`, "export const a = 1;"));
    const run = await cli(root, "--quiet");
    expect(run).toEqual({
      status: 0,
      stdout: "",
      stderr: "literate/a.md:7:1 warning unclosed-fence: code fence is never closed; the block runs to the end of its container\n  hint: add a closing fence of the same character and at least the same length\n",
    });
    expect(read(root, "generated/a.ts")).toContain("export const a = 1;");
  });
});

describe.concurrent("tangle --check", { timeout: cliTimeout }, () => {
  it("writes nothing, exits 1 and lists what is out of date", async ({ expect }) => {
    const root = newProject();
    const before = snapshot(root);
    const run = await cliProcess(root, "--check");
    expect(run).toEqual({
      status: 1,
      stdout: "",
      stderr: [
        "generated/a.ts: out of date (missing)",
        "generated/b.ts: out of date (missing)",
        "generated/.tangle-manifest.json: out of date (missing)",
        "tangle: 3 file(s) out of date",
        "  hint: run `npm run tangle` and commit the result",
        "",
      ].join("\n"),
    });
    expect(snapshot(root)).toEqual(before);
  });

  it("exits 0 when everything is current", async ({ expect }) => {
    const root = tangled();
    expect(await cli(root, "--check")).toEqual({ status: 0, stderr: "", stdout: "tangle: up to date (2 files)\n" });
  });

  it("names a file that differs and one that would be deleted", async ({ expect }) => {
    const root = tangled();
    writeDoc(root, chapter("10", false), "literate/a.md", 60);
    const before = snapshot(root);
    const run = await cli(root, "--check");
    expect(run.status).toBe(1);
    expect(run.stderr.split("\n").slice(0, 3)).toEqual([
      "generated/a.ts: out of date (differs)",
      "generated/b.ts: out of date (would be deleted)",
      "generated/.tangle-manifest.json: out of date (differs)",
    ]);
    expect(snapshot(root)).toEqual(before);
  });
});

describe.concurrent("tangle refuses", { timeout: cliTimeout }, () => {
  it("to overwrite a generated file edited by hand, writing nothing anywhere, unless --force", async ({ expect }) => {
    const root = tangled();
    appendFileSync(join(root, "generated/a.ts"), "// a hand edit\n");
    // b.ts would change too: the refusal must hold it back as well.
    writeDoc(root, chapter("1").replace("export const b = 2;", "export const b = 3;"), "literate/a.md", 60);
    const before = snapshot(root);
    const run = await cli(root);
    expect(run).toEqual({
      status: 1,
      stdout: "",
      stderr: "generated/a.ts hand-edited: `generated/a.ts` was edited by hand since tangle wrote it\n  hint: run `npm run stitch` to take the edit back into the Markdown (or move it there by hand, then run `npm run tangle -- --force` to overwrite the file)\n",
    });
    expect(snapshot(root)).toEqual(before);

    const forced = await cli(root, "--force", "--quiet");
    expect(forced).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(read(root, "generated/a.ts")).not.toContain("hand edit");
    expect(read(root, "generated/b.ts")).toContain("export const b = 3;");
  });

  it("to overwrite a file tangle never wrote, unless --force", async ({ expect }) => {
    const root = newProject();
    writeFiles(root, { "generated/b.ts": "// somebody's own file\n" });
    const before = snapshot(root);
    const run = await cli(root);
    expect(run).toEqual({
      status: 1,
      stdout: "",
      stderr: "generated/b.ts not-ours: `generated/b.ts` exists and was not written by tangle\n  hint: move it away, choose another target, or run `npm run tangle -- --force` to overwrite it\n",
    });
    expect(snapshot(root)).toEqual(before);
    runTangle({ root, force: true });
    expect(read(root, "generated/b.ts")).toContain("export const b = 2;");
  });

  it("to delete an orphan edited by hand, though it deletes an untouched one", async ({ expect }) => {
    const root = tangled();
    writeDoc(root, chapter("1", false), "literate/a.md", 60);
    appendFileSync(join(root, "generated/b.ts"), "// a hand edit\n");
    const before = snapshot(root);
    const run = await cli(root);
    expect(run).toEqual({
      status: 1,
      stdout: "",
      stderr:
        "generated/b.ts hand-edited: `generated/b.ts` is no longer produced by any document, but was edited by hand since tangle wrote it\n  hint: move it away, or run `npm run tangle -- --force` to delete it\n",
    });
    expect(snapshot(root)).toEqual(before);

    writeFiles(root, { "generated/b.ts": tangle([{ path: "literate/a.md", text: chapter() }]).files.get("generated/b.ts") ?? "" });
    const again = await cli(root);
    expect(again).toEqual({
      status: 0,
      stderr: "",
      stdout: ["deleted generated/b.ts", "wrote   generated/.tangle-manifest.json", "tangle: 1 written, 1 deleted, 1 unchanged", ""].join("\n"),
    });
    expect(listFiles(root).filter((p) => p.startsWith("generated/"))).toEqual([manifestPath, "generated/a.ts"].sort());
    expect(Object.keys((JSON.parse(read(root, manifestPath)) as { files: Record<string, string> }).files)).toEqual(["generated/a.ts"]);
  });

  it("to write anything when a document has errors, printing each with its location and hint", async ({ expect }) => {
    const root = tangled();
    writeDoc(root, md("---", "tangle: generated/a.ts", "---", "", `${fence}ts no-tangel`, "export const a = 1;", "  <<nope>>", fence), "literate/a.md", 60);
    const before = snapshot(root);
    const run = await cli(root);
    expect(run).toEqual({
      status: 1,
      stdout: "",
      stderr: [
        "literate/a.md:5:7 unknown-attribute: unknown block attribute `no-tangel`",
        "  hint: known attributes: `file=PATH`, `#name`, `test`, `no-tangle`, `tested=HASH`",
        "literate/a.md:7:3 unknown-reference: `<<nope>>` refers to no block",
        "  hint: name a block with `#nope` in its fence, or fix the spelling",
        "",
      ].join("\n"),
    });
    expect(snapshot(root)).toEqual(before);
  });

  it("a target whose folder is a symbolic link leading outside the project", async ({ expect }) => {
    const root = newProject();
    const outside = scratch("tangle-outside-");
    symlinkSync(outside, join(root, "generated"));
    const run = await cli(root);
    const refusal = (at: string, path: string) => `${at} bad-target: \`${path}\` leads outside the project through a symbolic link\n  hint: ${targetHint}\n`;
    expect(run).toEqual({ status: 1, stdout: "", stderr: refusal("literate/a.md:2:1", "generated/a.ts") + refusal("literate/a.md:13:1", "generated/b.ts") });
    expect(listFiles(outside)).toEqual([]);
    expect(listFiles(root).filter((p) => !p.startsWith("generated/"))).toEqual(["literate/a.md"]);
  });

  it.for([".git", "literate", ".cache", "node_modules"])(
    "a target reaching `%s/` through a symbolic link inside the project, at its block, writing nothing",
    async (forbidden, { expect }) => {
      const root = newProject(md("---", "tangle: generated/a.ts", "---", "", `${fence}sh file=g/hooks/post-checkout`, "echo pwned", fence));
      writeFiles(root, { [`${forbidden}/hooks/keep`]: "" });
      symlinkSync(forbidden, join(root, "g"));
      const before = snapshot(root);
      const run = await cli(root);
      expect(run).toEqual({
        status: 1,
        stdout: "",
        stderr: `literate/a.md:5:1 bad-target: \`g/hooks/post-checkout\` leads into \`${forbidden}/\` through a symbolic link, and tangle never writes there\n  hint: ${targetHint}\n`,
      });
      expect(snapshot(root)).toEqual(before);
      expect(existsSync(join(root, forbidden, "hooks", "post-checkout"))).toBe(false);
    },
  );

  it("a target reaching tangle's manifest, or a document, through a linked folder", ({ expect }) => {
    const root = tangled();
    symlinkSync("generated", join(root, "gen"));
    symlinkSync(join(root, "literate"), join(root, "docs"));
    writeDoc(root, md(...frontMatter(), "", `${fence}ts file=gen/.tangle-manifest.json`, "export const m = 1;", fence, "", `${fence}md file=docs/a.md`, "overwritten", fence), "literate/a.md", 60);
    const before = snapshot(root);
    expect(() => runTangle({ root })).toThrow(
      [
        `literate/a.md:5:1 bad-target: \`gen/.tangle-manifest.json\` leads to tangle's own manifest through a symbolic link\n  hint: ${targetHint}`,
        `literate/a.md:9:1 bad-target: \`docs/a.md\` leads into \`literate/\` through a symbolic link, and tangle never writes there\n  hint: ${targetHint}`,
      ].join("\n"),
    );
    expect(snapshot(root)).toEqual(before);
  });

  it("a manifest it cannot read", ({ expect }) => {
    const root = newProject();
    writeFiles(root, { [manifestPath]: '{"version":1}\n' });
    const refused = thrown(() => runTangle({ root }));
    expect(refused).toBeInstanceOf(LiterateError);
    expect((refused as LiterateError).message).toBe(
      "generated/.tangle-manifest.json bad-manifest: tangle's manifest cannot be used: manifest has no `files`\n  hint: restore it with `git checkout`, or delete it and run `npm run tangle -- --force`",
    );
  });

  it.each(["../outside.ts", "/etc/passwd", "literate/a.md", "generated/../../x.ts", "node_modules/x.js"])(
    "a manifest naming %s, which tangle could never have written, deleting nothing",
    (entry) => {
      const root = newProject();
      writeFiles(root, { [manifestPath]: `${JSON.stringify({ version: 1, files: { [entry]: "0".repeat(64) } })}\n` });
      const before = snapshot(root);
      expect(() => runTangle({ root })).toThrow(`tangle's manifest cannot be used: it names \`${entry}\`, which is not a target tangle can write`);
      expect(snapshot(root)).toEqual(before);
    },
  );

  it.each([
    ["a folder", { "generated/a.ts/keep.txt": "" }, "`generated/a.ts` is a folder; tangle writes only regular files"],
    ["inside a file", { generated: "" }, "`generated` is a file, so `generated/a.ts` cannot be created inside it"],
  ])("a target that is %s, writing nothing", (_, files, message) => {
    const root = newProject();
    writeFiles(root, files);
    const before = snapshot(root);
    expect(() => runTangle({ root })).toThrow(message);
    expect(snapshot(root)).toEqual(before);
  });

  it("a root that is not a folder, creating nothing", async ({ expect }) => {
    const parent = scratch();
    writeFileSync(join(parent, "file"), "");
    const file = join(parent, "file");
    const run = await cli(file);
    expect(run).toEqual({ status: 1, stdout: "", stderr: `${file} bad-root: \`${file}\` is not a folder\n  hint: run tangle in the project root, or name it with \`--root DIR\`\n` });
    const missing = join(parent, "missing");
    expect(() => runTangle({ root: missing })).toThrow(`${missing} bad-root: \`${missing}\` is not a folder`);
    expect(listFiles(parent)).toEqual(["file"]);
  });
});

describe("the stat cache", () => {
  it("proves an unchanged project current without tangling, and not after an edit", () => {
    const root = newProject();
    expect(runTangle({ root }).fastPath).toBe(false);
    const second = runTangle({ root });
    expect(second.fastPath).toBe(true);
    expect(second.actions).toEqual([]);
    expect(second.result).toBeUndefined();

    writeDoc(root, chapter("10"), "literate/a.md", 60);
    const edited = runTangle({ root });
    expect(edited.fastPath).toBe(false);
    expect(edited.actions.map((a) => a.path)).toEqual(["generated/a.ts", manifestPath]);
    expect(runTangle({ root }).fastPath).toBe(true);
  });

  it("notices a generated file deleted by hand, and writes it again", () => {
    const root = tangled();
    unlinkSync(join(root, "generated/b.ts"));
    const report = runTangle({ root });
    expect(report.fastPath).toBe(false);
    expect(report.actions.map((a) => `${a.kind} ${a.path}`)).toEqual(["write generated/b.ts"]);
  });

  it("answers --check from the cache, writing nothing", () => {
    const root = tangled();
    runTangle({ root });
    const before = snapshot(root);
    const report = runTangle({ root, check: true });
    expect(report.fastPath).toBe(true);
    expect(snapshot(root)).toEqual(before);
  });
});

describe.concurrent("the command line", { timeout: cliTimeout }, () => {
  it("exits 2 and says it is a bug when the tool itself fails", async ({ expect }) => {
    const dir = scratch();
    const script = join(dir, "crash.mts"); // .mts: top-level await needs an ES module
    writeFileSync(script, `import { runCli } from ${JSON.stringify(join(process.cwd(), "tools", "lib", "commands", "cli.ts"))};\nawait runCli("tangle", async () => {\n  throw new Error("boom");\n});\n`);
    const run = await runTs(script, []);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^tangle: internal error \(this is a bug, please report it\):\nError: boom\n/);
  });

  it("exits 1, naming the file, when the environment refuses a file operation", async ({ expect }) => {
    const dir = scratch();
    const script = join(dir, "denied.mts");
    const denied = "Object.assign(new Error(\"EACCES: permission denied, open '/x/generated/a.ts'\"), { code: \"EACCES\", path: \"/x/generated/a.ts\" })";
    writeFileSync(script, `import { runCli } from ${JSON.stringify(join(process.cwd(), "tools", "lib", "commands", "cli.ts"))};\nawait runCli("verify", async () => {\n  throw ${denied};\n});\n`);
    const run = await runTs(script, []);
    expect(run).toEqual({
      status: 1,
      stdout: "",
      stderr: "/x/generated/a.ts file-system: cannot write or read `/x/generated/a.ts`: permission denied (EACCES)\n  hint: check the permissions of the file and its folder\n",
    });
  });

  it("exits 1 on an unknown option, with a hint", async ({ expect }) => {
    const run = await cliProcess(scratch(), "--chek");
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^tangle: Unknown option '--chek'.*\n {2}hint: run `tangle --help` for the options\n$/);
  });

  it("prints its usage with --help", async ({ expect }) => {
    const run = await cli(scratch(), "--help");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: tangle \[--check\] \[--force\] \[--root DIR\] \[--quiet\]\n/);
  });
});

/** A document whose top-level block splices `<<n1>>`, whose block splices `<<n2>>`, and so on down to `<<nLEVELS>>`: block `#nK` opens on line 4K+5. */
function nestedChapter(levels: number): string {
  const lines = ["---", "tangle: generated/a.ts", "---", "", `${fence}ts`, "<<n1>>", fence];
  for (let k = 1; k <= levels; k++) lines.push("", `${fence}ts #n${k}`, k < levels ? `<<n${k + 1}>>` : "export const deep = 1;", fence);
  return md(...lines);
}

describe.concurrent("tangle refuses a document it cannot write faithfully", { timeout: cliTimeout }, () => {
  it("nests references 100 levels deep, and refuses one level more at the reference, naming the limit, writing nothing", async ({ expect }) => {
    const ok = newProject(nestedChapter(100));
    expect(await cli(ok, "--quiet")).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(read(ok, "generated/a.ts")).toContain("export const deep = 1;");
    for (const levels of [101, 2000]) {
      const root = newProject(nestedChapter(levels));
      const run = await cli(root);
      expect(run).toEqual({
        status: 1,
        stdout: "",
        stderr:
          "literate/a.md:406:1 reference-depth: `<<n101>>` nests references deeper than 100 levels (from `<<n1>>`)\n" +
          "  hint: tangle expands at most 100 levels of `<<name>>` inside one another; splice some of the blocks at a shallower level\n",
      });
      expect(listFiles(root)).toEqual(["literate/a.md"]);
    }
  });

  it("refuses a document that is not UTF-8 at the line and column of the first bad byte, even after a run that cached it", async ({ expect }) => {
    const root = tangled();
    const generated = (): Record<string, unknown> => Object.fromEntries(Object.entries(snapshot(root)).filter(([path]) => path.startsWith("generated/")));
    const before = generated();
    // Line 7 is `const b = "X";` with the byte 0xFF for X, after a line whose `é` is valid UTF-8.
    const bad = Buffer.from(md("---", "tangle: generated/a.ts", "---", "", `${fence}ts`, 'export const a = "é";', 'const b = "X";', fence), "utf8");
    bad[bad.indexOf("X")] = 0xff;
    writeFileSync(join(root, "literate", "a.md"), bad);
    const edited = new Date(past.getTime() + 60_000);
    utimesSync(join(root, "literate", "a.md"), edited, edited);
    const run = await cli(root);
    expect(run).toEqual({
      status: 1,
      stdout: "",
      stderr: "literate/a.md:7:12 encoding: the document is not valid UTF-8: the bytes 0xFF 0x22 0x3B 0x0A start no character\n  hint: save the document as UTF-8 (tangle never guesses an encoding)\n",
    });
    expect(generated()).toEqual(before);
  });

  it.for([
    ["a NUL byte", "\0", "U+0000 (NUL)"],
    ["an escape", "\x1b", "U+001B"],
    ["a vertical tab", "\v", "U+000B"],
  ])("refuses a block (not prose) holding %s at its line and column, writing nothing", async ([, character, name], { expect }) => {
    const root = newProject(md("---", "tangle: generated/a.ts", "---", "", `- prose may hold it${character}`, "", `  ${fence}ts`, `  export const a = "x${character}y";`, "  export const ok = '\t\f';", `  ${fence}`));
    const run = await cli(root);
    expect(run).toEqual({
      status: 1,
      stdout: "",
      stderr: `literate/a.md:8:22 control-character: the block holds the control character ${name}\n  hint: delete it, or write it as an escape in the code (\`\\0\`, \`\\x1b\`)\n`,
    });
    expect(listFiles(root)).toEqual(["literate/a.md"]);
  });
});

describe.concurrent("tangle in a folder that is not a project", { timeout: cliTimeout }, () => {
  it("refuses a folder without literate/, creating nothing", async ({ expect }) => {
    const root = scratch();
    const run = await cli(root);
    expect(run).toEqual({
      status: 1,
      stdout: "",
      stderr: `${root} bad-root: \`${root}\` has no \`literate/\` folder, so it is not a literate project root\n  hint: run tangle in the project root (the folder holding \`literate/\`), or name it with \`--root DIR\`\n`,
    });
    expect(listFiles(root)).toEqual([]);
  });

  it("keeps every generated file when literate/ vanished", ({ expect }) => {
    const root = tangled();
    rmSync(join(root, "literate"), { recursive: true });
    const before = snapshot(root);
    expect(() => runTangle({ root })).toThrow("has no `literate/` folder");
    expect(snapshot(root)).toEqual(before);
  });
});

describe("tangle's warnings", () => {
  const unclosed = md("---", "tangle: generated/a.ts", "---", "", "# A", "", `${fence}ts`, "export const a = 1;");
  const rules = (list: readonly { rule: string }[]): string[] => list.map((d) => d.rule);

  it("come back on every run, the no-change fast path and --check included", ({ expect }) => {
    const root = newProject(unclosed);
    expect(rules(runTangle({ root }).warnings)).toEqual(["unclosed-fence"]);
    const again = runTangle({ root });
    expect(again.fastPath).toBe(true);
    expect(rules(again.warnings)).toEqual(["unclosed-fence"]);
    const checked = runTangle({ root, check: true });
    expect(checked.fastPath).toBe(true);
    expect(rules(checked.warnings)).toEqual(["unclosed-fence"]);
  });

  it("are reported with a hand-edit conflict", ({ expect }) => {
    const root = tangled(unclosed);
    appendFileSync(join(root, "generated/a.ts"), "// a hand edit\n");
    writeDoc(root, unclosed.replace("a = 1", "a = 2"), "literate/a.md", 60);
    const refused = thrown(() => runTangle({ root }));
    expect(refused).toBeInstanceOf(LiterateError);
    expect(rules((refused as LiterateError).diagnostics)).toEqual(["hand-edited", "unclosed-fence"]);
  });

  it("are reported with a file-system failure, which names the file relative to the project root", ({ expect }) => {
    const root = newProject(unclosed.replace("tangle: generated/a.ts", "tangle: out/a.ts"));
    symlinkSync("out", join(root, "out")); // a link to itself: every path through it loops
    const refused = thrown(() => runTangle({ root }));
    expect(refused).toBeInstanceOf(LiterateError);
    const [problem, ...rest] = (refused as LiterateError).diagnostics;
    expect(problem).toMatchObject({ file: "out/a.ts", rule: "file-system", message: "cannot write or read `out/a.ts`: too many symbolic links (ELOOP)" });
    expect(rules(rest)).toEqual(["unclosed-fence"]);
  });
});

describe.concurrent("tangle and the file system", { timeout: cliTimeout }, () => {
  it("takes the files a run killed halfway created in place as its own, and finishes the job", ({ expect }) => {
    const root = tangled(chapter("1", false));
    const withC = `${chapter()}${md("", "A third file.", "", `${fence}ts file=generated/c.ts`, "export const c = 3;", fence)}`;
    // As a run killed while creating generated/b.ts, before generated/c.ts, leaves it: the journal, and a file cut short.
    writeFiles(root, { [pendingPath]: `${JSON.stringify({ version: 1, files: ["generated/b.ts", "generated/c.ts"] })}\n`, "generated/b.ts": "// Generated by tools/tan" });
    writeDoc(root, withC, "literate/a.md", 60);
    const report = runTangle({ root });
    expect(report.actions.map((a) => `${a.kind} ${a.path}`)).toEqual(["write generated/b.ts", "write generated/c.ts", `write ${manifestPath}`]);
    expect(read(root, "generated/b.ts")).toBe(tangle([{ path: "literate/a.md", text: withC }]).files.get("generated/b.ts"));
    expect(existsSync(join(root, pendingPath))).toBe(false);
  });

  it("spends a journal whose files all exist already, so it cannot claim them on later runs", ({ expect }) => {
    const root = tangled(chapter());
    // As a run killed after creating generated/b.ts, its only new file, but before writing the manifest leaves it.
    writeFiles(root, { [pendingPath]: `${JSON.stringify({ version: 1, files: ["generated/b.ts"] })}\n` });
    const report = runTangle({ root });
    expect(report.fastPath).toBe(false);
    expect(existsSync(join(root, pendingPath))).toBe(false);
    // With the journal gone, a file tangle never wrote is refused again.
    writeDoc(root, chapter("1", false), "literate/a.md", 60);
    runTangle({ root });
    writeFiles(root, { "generated/b.ts": "// somebody's file" });
    writeDoc(root, chapter(), "literate/a.md", 120);
    expect(() => runTangle({ root })).toThrow("`generated/b.ts` exists and was not written by tangle");
  });

  it("still refuses a file it never wrote when no journal names it", ({ expect }) => {
    const root = tangled(chapter("1", false));
    writeFiles(root, { "generated/b.ts": "// Generated by tools/tan" });
    writeDoc(root, chapter(), "literate/a.md", 60);
    expect(() => runTangle({ root })).toThrow("`generated/b.ts` exists and was not written by tangle");
  });

  it("reports a target name too long for the file system as a user error naming it, writing nothing", async ({ expect }) => {
    const long = `generated/${"x".repeat(300)}.ts`;
    const root = newProject(md("---", "tangle: generated/a.ts", "---", "", "# A", "", `${fence}ts file=${long}`, "export const a = 1;", fence));
    const run = await cli(root);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`${long} file-system: cannot write or read \`${long}\`: the name is too long for the file system (ENAMETOOLONG)\n  hint: choose a shorter target path\n`);
    expect(listFiles(root)).toEqual(["literate/a.md"]);
  });

  it("replaces a target whose name is near the file system's limit", ({ expect }) => {
    const long = `generated/${"y".repeat(240)}.ts`;
    const text = (value: string): string => md("---", "tangle: generated/a.ts", "---", "", "# A", "", `${fence}ts file=${long}`, `export const a = ${value};`, fence);
    const root = tangled(text("1"));
    writeDoc(root, text("2"), "literate/a.md", 60);
    runTangle({ root });
    expect(read(root, long)).toContain("export const a = 2;");
    expect(noTemporaries(root)).toEqual([]);
  });

  it("removes the folders an orphan leaves empty, but never a top-level folder", ({ expect }) => {
    const deep = md("---", "tangle: generated/a.ts", "---", "", "# A", "", `${fence}ts`, "export const a = 1;", fence, "", "Deep.", "", `${fence}ts file=generated/sub/deeper/b.ts`, "export const b = 2;", fence, "", "A script.", "", `${fence}sh file=scripts/x.sh`, "echo hi", fence);
    const root = tangled(deep);
    expect(listFiles(root)).toContain("generated/sub/deeper/b.ts");
    writeDoc(root, chapter("1", false), "literate/a.md", 60);
    runTangle({ root });
    expect(existsSync(join(root, "generated/sub"))).toBe(false);
    expect(existsSync(join(root, "scripts"))).toBe(true);
    expect(listFiles(root).filter((p) => !p.startsWith(".cache/"))).toEqual([manifestPath, "generated/a.ts", "literate/a.md"]);
  });
});

/** The files a run loaded besides Node's own modules, read from the `NODE_DEBUG=module,esm` lines on its stderr. */
function loadedFiles(stderr: string): string[] {
  const files = new Set<string>();
  for (const m of stderr.matchAll(/^ESM \d+: Storing file:\/\/(\S+)/gm)) files.add(decodeURIComponent(m[1] ?? ""));
  for (const m of stderr.matchAll(/^MODULE \d+: load "([^"]+)"/gm)) files.add(m[1] ?? "");
  return [...files].sort();
}

/**
 * A copy of this repository's toolchain in the temp folder (`tools/`, and `node_modules` linked
 * to ours), so a test can edit the sources the launcher builds from without touching ours.
 */
function toolchainCopy(): string {
  const repo = scratch("tangle-toolchain-");
  cpSync(join(process.cwd(), "tools"), join(repo, "tools"), { recursive: true });
  symlinkSync(join(process.cwd(), "node_modules"), join(repo, "node_modules"), "dir");
  return repo;
}

/** Replaces the one occurrence of `from` in the file at `path`. */
function editFile(path: string, from: string, to: string): void {
  const text = readFileSync(path, "utf8");
  expect(text.split(from)).toHaveLength(2);
  writeFileSync(path, text.replace(from, to));
}

describe.concurrent("the launcher, tools/run.cjs", { timeout: cliTimeout }, () => {
  it("loads no package and not remark when the fast scanner reads every document", async ({ expect }) => {
    const root = newProject();
    // Built first: a run that builds loads esbuild.
    expect((await runCommand(process.execPath, [launcher, "--build"])).status).toBe(0);
    const run = await runCommand(process.execPath, [launcher, "tangle", "--root", root], { NODE_DEBUG: "module,esm" });
    expect(run.status).toBe(0);
    expect(read(root, "generated/a.ts")).toContain("export const a = 1;");
    const loaded = loadedFiles(run.stderr);
    expect(loaded.some((path) => path.endsWith("/tools/run.cjs"))).toBe(true);
    expect(loaded.filter((path) => path.includes("/node_modules/") || path.endsWith("/remark.cjs"))).toEqual([]);
  });

  it("loads remark for a document the fast scanner defers to, and writes what remark reads", async ({ expect }) => {
    // A block quote is one of the things only remark decides.
    const text = md("---", "tangle: generated/a.ts", "---", "", "# A", "", "> A quote.", "", `${fence}ts`, "export const a = 1;", fence);
    const root = newProject(text);
    const run = await runCommand(process.execPath, [launcher, "tangle", "--root", root], { NODE_DEBUG: "module,esm" });
    expect(run.status).toBe(0);
    expect(loadedFiles(run.stderr).filter((path) => path.endsWith("/remark.cjs"))).toHaveLength(1);
    expect(read(root, "generated/a.ts")).toBe(tangle([{ path: "literate/a.md", text }], { scan: "remark" }).files.get("generated/a.ts"));
  });

  it("runs the toolchain's sources as they are now: an edit to tools/ is built before the next run", async ({ expect }) => {
    const repo = toolchainCopy();
    const root = tangled();
    const before = await runCommand(process.execPath, [join(repo, "tools", "run.cjs"), "tangle", "--check", "--root", root]);
    expect(before).toEqual({ status: 0, stdout: "tangle: up to date (2 files)\n", stderr: "" });
    editFile(join(repo, "tools", "lib", "commands", "tangle-command.ts"), "tangle: up to date (", "tangle: nothing to do (");
    const after = await runCommand(process.execPath, [join(repo, "tools", "run.cjs"), "tangle", "--check", "--root", root]);
    expect(after).toEqual({ status: 0, stdout: "tangle: nothing to do (2 files)\n", stderr: "" });
  });

  it("reports a bug in the toolchain with a stack trace at its TypeScript lines", async ({ expect }) => {
    const repo = toolchainCopy();
    const cliFile = join(repo, "tools", "lib", "commands", "tangle-command.ts");
    editFile(cliFile, "  const report = runTangle(", '  if (values.quiet) throw new Error("planted");\n  const report = runTangle(');
    const line = readFileSync(cliFile, "utf8").split("\n").findIndex((l) => l.includes('"planted"')) + 1;
    const run = await runCommand(process.execPath, [join(repo, "tools", "run.cjs"), "tangle", "--quiet", "--root", newProject()]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^tangle: internal error \(this is a bug, please report it\):\nError: planted\n/);
    expect(run.stderr).toContain(`${cliFile}:${line}:`);
  });

  it("refuses an unknown tool, naming the ones it knows", async ({ expect }) => {
    const run = await runCommand(process.execPath, [launcher, "tangel"]);
    expect(run).toEqual({ status: 1, stdout: "", stderr: "run: unknown tool `tangel`\n  hint: node tools/run.cjs tangle|verify|docs|dev|mutate|stitch|lsp [options], or --build\n" });
  });
});
