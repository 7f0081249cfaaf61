// bench/dev.ts: the `npm run dev` rows of `npm run bench`: its helpers, and one scripted save on a
// one-chapter project with the real launcher, dev server and event stream.
import { afterAll, describe, expect, it } from "vitest";
import { editBlock, editMarker, eventParser, runDevBench, updateNames } from "../../bench/dev.ts";
import { Project, doublingChapter as chapter, launcher } from "./verify-project.ts";

describe("the dev bench's scripted edit", () => {
  it("puts a numbered comment into the block after the anchor line, replaces it on the next save, and names the block's fence line", () => {
    const first = editBlock(chapter, "export function double(", 1);
    expect(first.fenceLine).toBe(9);
    expect(first.text.split("\n").slice(10, 13)).toEqual(["export function double(n: number): number {", `  ${editMarker(1)}`, "  return n * 2;"]);
    const second = editBlock(first.text, "export function double(", 2);
    expect(second.text).toBe(first.text.replace(editMarker(1), editMarker(2)));
  });

  it("refuses an anchor that is missing or outside a ts block", () => {
    expect(() => editBlock(chapter, "no such line", 1)).toThrow("no line contains `no such line`");
    expect(() => editBlock(chapter, "Doubling is what", 1)).toThrow("is not inside a ```ts block");
  });
});

describe("the dev bench's event stream reader", () => {
  it("reads events split across chunks, skips comments, and tells whether an update names a page", () => {
    const parse = eventParser();
    expect(parse(": dev\n\nevent: upd")).toEqual([]);
    const events = parse('ate\ndata: {"pages":["chapters/a.html"]}\n\nevent: problem\ndata: {"lines":[]}\n\n');
    expect(events).toEqual([
      { event: "update", data: '{"pages":["chapters/a.html"]}' },
      { event: "problem", data: '{"lines":[]}' },
    ]);
    expect(updateNames(events[0]?.data ?? "", "chapters/a.html")).toBe(true);
    expect(updateNames(events[0]?.data ?? "", "chapters/b.html")).toBe(false);
    expect(updateNames('{"pages":[]}', "chapters/b.html")).toBe(true);
  });
});

describe("the dev bench on a one-chapter project", () => {
  const project = new Project({ "literate/a.md": chapter });
  afterAll(() => project.remove());

  it("times one save to its verdict and to the chapter's page showing the edit, one type error to its location, one failing test to its verdict, and stops dev", async () => {
    const failingTests = { doc: "literate/a.md", anchor: "export function double(", line: (n: number) => `if (n === 2) return ${4 + n};`, edits: 1 };
    const result = await runDevBench({ root: project.root, launcher, doc: "literate/a.md", anchor: "export function double(", edits: 1, typeErrors: { doc: "literate/a.md", anchor: "export function double(", edits: 1 }, failingTests });
    expect(result.verdict).toBe("literate/a.md:9 compiles ✓ tested ✓ stamped ✓");
    expect(result.verdictMs).toHaveLength(1);
    expect(result.pageMs).toHaveLength(1);
    // The page is pushed after the verdict: it is built from the verdict's report.
    expect(result.pageMs[0]).toBeGreaterThan(result.verdictMs[0] ?? Number.POSITIVE_INFINITY);
    expect(result.firstDocsMs).toBeGreaterThanOrEqual(result.startMs);
    expect(project.read("literate/a.md")).toContain(editMarker(1));
    // The type error was located, then undone: the chapter is as the correct save left it.
    expect(result.typeErrorMs).toHaveLength(1);
    expect(project.read("literate/a.md")).not.toContain("devBenchTypeError");
    // The failing test was judged, then undone too.
    expect(result.failingTestMs).toHaveLength(1);
    expect(project.read("literate/a.md")).not.toContain("if (n === 2)");
  }, 240_000);
});
