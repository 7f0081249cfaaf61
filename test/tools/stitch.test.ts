/**
 * `npm run stitch` on real project folders in the temp directory: a book is tangled, a tangled
 * file is edited on disk as an editor would, and stitch takes the edit back into the Markdown
 * (then `tangle --check` passes), or refuses it at the edited file's line and writes nothing.
 * The command runs in this process through the body the CLI runs, and once as `npm run stitch`
 * runs it (`node tools/run.cjs stitch`).
 */
import { afterAll, describe, expect, it } from "vitest";
import { runStitch } from "../../tools/lib/commands/stitch-run.ts";
import { stitch } from "../../tools/lib/core/stitch.ts";
import { runTangle } from "../../tools/lib/commands/tangle-run.ts";
import { commandInProcess, commandProcess, fence, md, project, read, removeTempDirs, snapshot, thrown, writeFiles } from "./support.ts";
import { LiterateError } from "../../tools/lib/core/diagnostics.ts";

afterAll(removeTempDirs);

/** The book every test starts from; the comments give each line's number. */
const chapter = md(
  "---", // 1
  "tangle: generated/a.ts", // 2
  "test: test/a.test.ts", // 3
  "---", // 4
  "", // 5
  "# A", // 6
  "", // 7
  "A function whose body is spliced in.", // 8
  "", // 9
  `${fence}ts`, // 10
  "export function f(): number {", // 11
  "  <<body>>", // 12
  "}", // 13
  fence, // 14
  "", // 15
  "The body.", // 16
  "", // 17
  `${fence}ts #body`, // 18
  "const x = 1;", // 19
  "return x;", // 20
  fence, // 21
  "", // 22
  "Two functions share one splice.", // 23
  "", // 24
  `${fence}ts`, // 25
  "export function g(): number {", // 26
  "  <<shared>>", // 27
  "}", // 28
  "export function h(): number {", // 29
  "  <<shared>>", // 30
  "}", // 31
  fence, // 32
  "", // 33
  "The shared body.", // 34
  "", // 35
  `${fence}ts #shared`, // 36
  "return 2;", // 37
  fence, // 38
  "", // 39
  "A block that ends with a blank line.", // 40
  "", // 41
  `${fence}ts`, // 42
  "export const last = 3;", // 43
  "", // 44
  fence, // 45
  "", // 46
  "- A list item holds a block:", // 47
  "", // 48
  `  ${fence}ts`, // 49
  "  export const listed = 1;", // 50
  "  export const also = 2;", // 51
  `  ${fence}`, // 52
  "", // 53
  "The test.", // 54
  "", // 55
  `${fence}ts test`, // 56
  'it("works", () => {', // 57
  "  expect(f()).toBe(1);", // 58
  "});", // 59
  fence, // 60
);

/** A tangled copy of the book in a fresh temp folder. */
function book(text = chapter): string {
  const root = project({ "literate/a.md": text });
  runTangle({ root });
  return root;
}

/** Rewrites a file of `root` through `change`, failing when it changes nothing. */
function edit(root: string, path: string, change: (text: string) => string): void {
  const before = read(root, path);
  const after = change(before);
  expect(after, `the edit of ${path} changes it`).not.toBe(before);
  writeFiles(root, { [path]: after });
}

/** Replaces the one occurrence of `from` in a text. */
const replace = (from: string, to: string) => (text: string): string => {
  expect(text.split(from).length, `\`${from}\` occurs once`).toBe(2);
  return text.replace(from, to);
};

/** The lines `from`..`to` (1-based, inclusive) of a document. */
function linesOf(text: string, from: number, to: number): string[] {
  return text.split("\n").slice(from - 1, to);
}

/** True when `npm run tangle -- --check` would pass on `root`. */
function tangledCurrent(root: string): boolean {
  return runTangle({ root, check: true }).actions.length === 0;
}

/** The rules of the problems a stitch of `root` is refused with (it must be refused). */
function refusals(root: string): { rule: string; at: string; hint: string | undefined }[] {
  const caught = thrown(() => runStitch({ root }));
  expect(caught).toBeInstanceOf(LiterateError);
  return (caught as LiterateError).diagnostics.map((d) => ({ rule: d.rule, at: `${d.file}:${d.line}`, hint: d.hint }));
}

describe("edits taken back into their block", () => {
  it("puts a one-line edit of a spliced block into that block, without the splice's indentation, and tangle then finds everything current", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("  const x = 1;", "  const x = 41;"));
    const report = runStitch({ root });
    expect(report.edits).toEqual([{ target: "generated/a.ts", targetLine: 6, doc: "literate/a.md", docLine: 19, removed: 1, added: 1 }]);
    expect(linesOf(read(root, "literate/a.md"), 18, 21)).toEqual([`${fence}ts #body`, "const x = 41;", "return x;", fence]);
    expect(read(root, "generated/a.ts")).toContain("  const x = 41;\n  return x;\n");
    expect(tangledCurrent(root)).toBe(true);
  });

  it("inserts several lines inside a block between the lines they stand between", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("  const x = 1;\n", "  const x = 1;\n  const y = 2;\n  const z = x + y;\n"));
    runStitch({ root });
    expect(linesOf(read(root, "literate/a.md"), 18, 23)).toEqual([`${fence}ts #body`, "const x = 1;", "const y = 2;", "const z = x + y;", "return x;", fence]);
    expect(tangledCurrent(root)).toBe(true);
  });

  it("deletes a deleted line from its block, and the Markdown after it moves up", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("  const x = 1;\n", ""));
    runStitch({ root });
    const text = read(root, "literate/a.md");
    expect(linesOf(text, 18, 20)).toEqual([`${fence}ts #body`, "return x;", fence]);
    expect(text).toBe(chapter.replace("const x = 1;\n", ""));
    expect(tangledCurrent(root)).toBe(true);
  });

  it("takes an edit of a tangled test file back into the chapter's test block", () => {
    const root = book();
    edit(root, "test/a.test.ts", replace("expect(f()).toBe(1);", "expect(f()).toBe(41);"));
    const report = runStitch({ root });
    expect(report.edited).toEqual(["test/a.test.ts"]);
    expect(linesOf(read(root, "literate/a.md"), 57, 59)).toEqual(['it("works", () => {', "  expect(f()).toBe(41);", "});"]);
    expect(tangledCurrent(root)).toBe(true);
  });

  it("keeps a list-indented fence's indentation on edited and inserted lines, and writes an inserted blank line without it", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("export const listed = 1;\nexport const also = 2;\n", "export const listed = 10;\n\nexport const also = 2;\nexport const more = 4;\n"));
    runStitch({ root });
    expect(linesOf(read(root, "literate/a.md"), 49, 55)).toEqual([`  ${fence}ts`, "  export const listed = 10;", "", "  export const also = 2;", "  export const more = 4;", `  ${fence}`, ""]);
    expect(tangledCurrent(root)).toBe(true);
  });

  it("takes edits of several blocks and files in one run, each into its own block", () => {
    const root = book();
    edit(root, "generated/a.ts", (text) => replace("  const x = 1;", "  const x = 5;")(replace("export const last = 3;", "export const last = 30;")(text)));
    edit(root, "test/a.test.ts", replace("toBe(1)", "toBe(5)"));
    const report = runStitch({ root });
    expect(report.edits.map((e) => e.docLine).sort((a, b) => a - b)).toEqual([19, 43, 58]);
    expect(read(root, "literate/a.md")).toBe(chapter.replace("const x = 1;", "const x = 5;").replace("last = 3;", "last = 30;").replace("toBe(1)", "toBe(5)"));
    expect(tangledCurrent(root)).toBe(true);
  });

  it("removes a block's own blank line when a blank line between two blocks is deleted, never the one tangle writes", () => {
    const root = book();
    // The block ending with a blank line is followed by tangle's blank line: two in a row.
    edit(root, "generated/a.ts", replace("export const last = 3;\n\n\n", "export const last = 3;\n\n"));
    runStitch({ root });
    expect(linesOf(read(root, "literate/a.md"), 42, 45)).toEqual([`${fence}ts`, "export const last = 3;", fence, ""]);
    expect(tangledCurrent(root)).toBe(true);
  });

  it("appends a blank line and a statement after a block's last line to that block, whichever blank line the diff pairs with tangle's", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("}\n\n// literate/a.md:26\n", "}\n\nexport const after = f();\n\n// literate/a.md:26\n"));
    runStitch({ root });
    expect(linesOf(read(root, "literate/a.md"), 10, 16)).toEqual([`${fence}ts`, "export function f(): number {", "  <<body>>", "}", "", "export const after = f();", fence]);
    expect(tangledCurrent(root)).toBe(true);
  });

  it("takes a re-indented `// literate/…` comment as no edit: the edits around it are taken back, and tangle writes the comment at its own indentation", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("  return x;\n  // literate/a.md:13\n}\n", "  return x + 1;\n    // literate/a.md:13\n}\n"));
    runStitch({ root });
    expect(read(root, "literate/a.md")).toBe(chapter.replace("return x;", "return x + 1;"));
    expect(read(root, "generated/a.ts")).toContain("  return x + 1;\n  // literate/a.md:13\n}\n");
    expect(tangledCurrent(root)).toBe(true);
  });

  it("writes back a file whose only change is a re-indented `// literate/…` comment, and the book stays as it was", async () => {
    const root = book();
    edit(root, "generated/a.ts", replace("\n  // literate/a.md:13\n", "\n    // literate/a.md:13\n"));
    const outcome = await commandInProcess("stitch", ["--root", root]);
    expect(outcome).toMatchObject({ status: 0, stdout: "stitch: generated/a.ts differ from what tangle wrote only in tangle's own lines; written back\n" });
    expect(read(root, "literate/a.md")).toBe(chapter);
    expect(read(root, "generated/a.ts")).toContain("\n  // literate/a.md:13\n");
    expect(tangledCurrent(root)).toBe(true);
  });

  it("keeps a CRLF document's line endings on the lines it writes", () => {
    const root = book(chapter.replaceAll("\n", "\r\n"));
    edit(root, "generated/a.ts", replace("  const x = 1;\n", "  const x = 41;\n  const y = 2;\n"));
    runStitch({ root });
    expect(read(root, "literate/a.md")).toBe(chapter.replace("const x = 1;\n", "const x = 41;\nconst y = 2;\n").replaceAll("\n", "\r\n"));
    expect(tangledCurrent(root)).toBe(true);
  });

  it("writes a line into a block inside a `>` quote with the quote's marker", () => {
    const quoted = chapter.replace("  <<body>>\n}\n```\n", "  <<body>>\n}\n```\n\n> A quoted block:\n>\n> ```ts\n> export const quoted = 1;\n> ```\n");
    const root = book(quoted);
    edit(root, "generated/a.ts", replace("export const quoted = 1;\n", "export const quoted = 2;\n\nexport const more = 3;\n"));
    runStitch({ root });
    expect(read(root, "literate/a.md")).toContain("> ```ts\n> export const quoted = 2;\n>\n> export const more = 3;\n> ```\n");
    expect(tangledCurrent(root)).toBe(true);
  });

  it("says so and writes nothing when no tangled file was edited", async () => {
    const root = book();
    const before = snapshot(root, { skipCache: true });
    const outcome = await commandInProcess("stitch", ["--root", root]);
    expect(outcome).toMatchObject({ status: 0, stdout: "stitch: no edits to take back\n" });
    expect(snapshot(root, { skipCache: true })).toEqual(before);
  });

  it("with --check, says where each edit would go and writes nothing", async () => {
    const root = book();
    edit(root, "generated/a.ts", replace("  const x = 1;", "  const x = 41;"));
    const before = snapshot(root, { skipCache: true });
    const outcome = await commandInProcess("stitch", ["--root", root, "--check"]);
    expect(outcome).toMatchObject({
      status: 0,
      stdout: "generated/a.ts:6 -> literate/a.md:19 (1 line(s) replaced by 1)\nstitch: 1 edit(s) from 1 file(s); would write literate/a.md\n",
    });
    expect(snapshot(root, { skipCache: true })).toEqual(before);
  });
});

describe("edits refused, at the edited file's line, with nothing written", () => {
  it("refuses an edit spanning two blocks", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("  return x;\n  // literate/a.md:13\n}\n", "  return x; }\n"));
    expect(refusals(root)).toEqual([{ rule: "stitch-across-blocks", at: "generated/a.ts:7", hint: expect.stringContaining("one block at a time") }]);
  });

  it("refuses an edit of the generated header", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("Do not edit", "Please do not edit"));
    expect(refusals(root)).toEqual([{ rule: "stitch-header", at: "generated/a.ts:1", hint: expect.stringContaining("tangle's own") }]);
  });

  it("refuses an edit of the inline source map line", () => {
    const root = book();
    edit(root, "generated/a.ts", (text) => text.replace(/\n$/, "AAAA\n"));
    const lines = read(root, "generated/a.ts").split("\n").length - 1;
    expect(refusals(root)).toEqual([{ rule: "stitch-map", at: `generated/a.ts:${lines}`, hint: expect.stringContaining("source map line") }]);
  });

  it("refuses an edit inside a block spliced in more than one place", () => {
    const root = book();
    edit(root, "generated/a.ts", (text) => text.replace("  return 2;", "  return 3;"));
    expect(refusals(root)).toEqual([{ rule: "stitch-spliced-twice", at: "generated/a.ts:14", hint: expect.stringContaining("spliced in more than one place") }]);
  });

  it("refuses lines inserted between two blocks, where no block can be said to hold them", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("}\n\n// literate/a.md:26\n", "}\n\nexport const stray = 0;\n// literate/a.md:26\n"));
    expect(refusals(root)).toEqual([{ rule: "stitch-between-blocks", at: "generated/a.ts:11", hint: expect.stringContaining("inside a block") }]);
  });

  it("refuses an edit the book could not give back (a spliced line moved left of its splice), found by tangling the stitched book", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("  return x;", "return x;"));
    expect(refusals(root)).toEqual([{ rule: "stitch-not-reproduced", at: "generated/a.ts:7", hint: expect.stringContaining("in the Markdown by hand") }]);
  });

  it("refuses an edit that would put a fence into a block and break the book", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("  const x = 1;", `  const x = 1;\n${fence}`));
    expect(refusals(root).map((r) => r.rule)).toContain("stitch-breaks-book");
  });

  it("refuses an edited file whose Markdown changed too since tangle wrote it", () => {
    const root = book();
    edit(root, "generated/a.ts", replace("  const x = 1;", "  const x = 41;"));
    edit(root, "literate/a.md", replace("return x;", "return x + 0;"));
    expect(refusals(root)).toEqual([{ rule: "stitch-book-changed", at: "generated/a.ts:0", hint: expect.stringContaining("stitch before changing the Markdown") }]);
  });

  it("writes nothing at all when one edit of several is refused, and exits 1 naming it", async () => {
    const root = book();
    edit(root, "test/a.test.ts", replace("toBe(1)", "toBe(5)"));
    edit(root, "generated/a.ts", (text) => replace("  const x = 1;", "  const x = 5;")(text.replace("  return 2;", "  return 3;")));
    const before = snapshot(root, { skipCache: true });
    const outcome = await commandInProcess("stitch", ["--root", root]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^generated\/a\.ts:14:1 stitch-spliced-twice: the edit is inside the block at literate\/a\.md:36 \(`#shared`\), which is spliced in more than one place\n {2}hint: /);
    expect(snapshot(root, { skipCache: true })).toEqual(before);
  });
});

describe("targets of other languages", () => {
  /** The chapter with a shell script (commented with `#`) and a text file of two blocks (no comments at all) after it. */
  const withOthers = `${chapter}\nA script.\n\n${fence}sh file=scripts/run.sh\nset -e\necho one\n${fence}\n\nNotes.\n\n${fence} file=notes.txt\nfirst note\n${fence}\n\nMore notes.\n\n${fence} file=notes.txt\nsecond note\n${fence}\n`;

  it("takes an edit of a `#`-commented script back, past its header and comments", () => {
    const root = book(withOthers);
    edit(root, "scripts/run.sh", replace("echo one\n", "echo one\necho two\n"));
    runStitch({ root });
    expect(read(root, "literate/a.md")).toBe(withOthers.replace("echo one\n", "echo one\necho two\n"));
    expect(tangledCurrent(root)).toBe(true);
  });

  it("in a file tangle writes no comments into, edits each block's lines and refuses a line between two blocks", () => {
    const root = book(withOthers);
    expect(read(root, "notes.txt")).toBe("first note\nsecond note\n");
    edit(root, "notes.txt", replace("first note\n", "first note, edited\n"));
    runStitch({ root });
    expect(read(root, "literate/a.md")).toBe(withOthers.replace("first note\n", "first note, edited\n"));
    edit(root, "notes.txt", replace("first note, edited\nsecond note\n", "first note, edited\na note of no block\nsecond note\n"));
    expect(refusals(root)).toEqual([{ rule: "stitch-between-blocks", at: "notes.txt:2", hint: expect.stringContaining("inside a block") }]);
  });

  it("refuses to stitch while a file no document writes any more was edited by hand (the tangle after the stitch would delete it)", () => {
    const root = book(withOthers);
    edit(root, "literate/a.md", (text) => text.slice(0, text.indexOf("\nNotes.\n") + 1));
    writeFiles(root, { "notes.txt": "kept by hand\n" });
    edit(root, "generated/a.ts", replace("  const x = 1;", "  const x = 41;"));
    const before = snapshot(root, { skipCache: true });
    expect(refusals(root)).toEqual([{ rule: "stitch-orphan", at: "notes.txt:0", hint: expect.stringContaining("move it away") }]);
    expect(snapshot(root, { skipCache: true })).toEqual(before);
  });
});

describe("stitch, the pure core", () => {
  it("places nothing and refuses nothing when the files are what the book tangles to", () => {
    const root = book();
    const outcome = stitch({ documents: [{ path: "literate/a.md", text: chapter }], files: (path) => read(root, path) });
    expect(outcome).toMatchObject({ ok: true, problems: [], edits: [], edited: [] });
    expect(outcome.documents.size).toBe(0);
  });

  it("refuses to stitch into a book that does not tangle, with tangle's own errors", () => {
    const broken = chapter.replace("  <<body>>", "  <<bodyy>>");
    const outcome = stitch({ documents: [{ path: "literate/a.md", text: broken }], files: () => undefined });
    expect(outcome.ok).toBe(false);
    expect(outcome.problems.map((p) => p.rule)).toContain("unknown-reference");
  });
});

describe("npm run stitch", () => {
  it("takes an edit back as a child process, exits 0, and reports where it went", async () => {
    const root = book();
    edit(root, "generated/a.ts", replace("  const x = 1;", "  const x = 41;"));
    const outcome = await commandProcess("stitch", ["--root", root]);
    expect(outcome).toMatchObject({ status: 0, stdout: "generated/a.ts:6 -> literate/a.md:19 (1 line(s) replaced by 1)\nstitch: 1 edit(s) from 1 file(s); wrote literate/a.md\n" });
    expect(read(root, "literate/a.md")).toBe(chapter.replace("const x = 1;", "const x = 41;"));
    expect(tangledCurrent(root)).toBe(true);
  });
});
