/**
 * Finding fenced code blocks: what each scanner reports, when the fast one refuses, and the
 * documents on which the two once disagreed (found by markdown.differential.test.ts).
 */
import { describe, expect, it } from "vitest";
import { scanBlocks } from "../../tools/lib/core/document.ts";
import { scanFast, type RawBlock, type ScanResult } from "../../tools/lib/core/markdown.ts";
import { scanWithRemark } from "../../tools/lib/core/remark.ts";
import { fence, md } from "./support.ts";

/** remark's answer without the fields only remark computes. */
function reference(text: string): ScanResult {
  const result = scanWithRemark(text);
  return { frontMatter: result.frontMatter, blocks: result.blocks.map(({ proseBefore: _ignored, prose: _text, ...rest }): RawBlock => rest) };
}

const block = (line: number, lang: string, meta: string, value: string, closed = true, column = 1): RawBlock => ({ lang, meta, value, line, column, closed });

describe("scanFast", () => {
  it.each<[string, string, ScanResult]>([
    ["a plain chapter", md("---", "tangle: generated/a.ts", "---", "# A", "", `${fence}ts #x file=y`, "a", "", "b", fence), { frontMatter: { value: "tangle: generated/a.ts", line: 2 }, blocks: [block(6, "ts", "#x file=y", "a\n\nb")] }],
    ["tilde fences holding backtick fences", md("~~~ts", fence, "~~~"), { frontMatter: undefined, blocks: [block(1, "ts", "", fence)] }],
    ["a longer closing fence", md("````ts", fence, "`````"), { frontMatter: undefined, blocks: [block(1, "ts", "", fence)] }],
    ["a closing fence indented by up to three spaces, with trailing blanks", md(`${fence}ts`, "x", `   ${fence} \t`), { frontMatter: undefined, blocks: [block(1, "ts", "", "x")] }],
    ["an unclosed fence, running to the end", md(`${fence}ts`, "x", "", ""), { frontMatter: undefined, blocks: [block(1, "ts", "", "x\n\n", false)] }],
    ["backticks in a backtick info string (not a fence)", md(`${fence}ts \`x\``, "y"), { frontMatter: undefined, blocks: [] }],
    ["a tab between language and meta", md(`${fence}ts\tfile=x.ts`, fence), { frontMatter: undefined, blocks: [block(1, "ts", "file=x.ts", "")] }],
    ["unclosed front matter (a thematic break)", md("---", "title: x", `${fence}ts`, fence), { frontMatter: undefined, blocks: [block(3, "ts", "", "")] }],
    ["CRLF line endings, kept in values as remark keeps them", md("---", "a: 1", "b: 2", "---", `${fence}ts`, "x", "y", fence).replaceAll("\n", "\r\n"), { frontMatter: { value: "a: 1\r\nb: 2", line: 2 }, blocks: [block(5, "ts", "", "x\r\ny")] }],
  ])("reads %s", (_case, text, want) => {
    expect(scanFast(text)).toEqual(want);
    expect(reference(text)).toEqual(want);
  });

  it.each([
    ["a block quote", md("> quote", `${fence}ts`, fence)],
    ["an HTML block", md("<div>", "", `${fence}ts`, fence, "</div>")],
    ["an indented fence", md(`  ${fence}ts`, `  ${fence}`)],
    ["a tab-indented fence", md(`\t${fence}ts`, fence)],
    ["a fence in a list item", md(`- ${fence}ts`, `  ${fence}`)],
    ["a fence in a nested list item", md(`1. - ${fence}ts`)],
    ["a fence in a block quote in a list item", md(`- > ${fence}ts`)],
    ["a fence in a footnote definition", md(`[^1]: ${fence}ts`)],
    ["a lone carriage return", `${fence}ts\rx\r${fence}\r`],
    ["a NUL", md(`${fence}ts`, "\0", fence)],
    ["an escape in the info string", md(`${fence}ts \\#x`, fence)],
    ["an entity in the info string", md(`${fence}ts&#x20;x`, fence)],
  ])("refuses a document holding %s", (_case, text) => {
    expect(scanFast(text)).toBeUndefined();
    expect(scanBlocks(text).by).toBe("remark");
  });

  it("skips a leading byte-order mark, as remark does, keeping lines and columns", () => {
    const text = `\uFEFF${md("---", "tangle: generated/a.ts", "---", "", `${fence}ts`, "export const a = 1;", fence)}`;
    const fast = scanFast(text);
    expect(fast?.frontMatter).toEqual({ value: "tangle: generated/a.ts", line: 2 });
    expect(fast?.blocks).toEqual([{ lang: "ts", meta: "", value: "export const a = 1;", line: 5, column: 1, closed: true }]);
    const { proseBefore: _prose, prose: _text, ...byRemark } = scanWithRemark(text).blocks[0] ?? { proseBefore: false };
    expect(byRemark).toEqual(fast?.blocks[0]);
  });

  it("answers for a typical chapter, so tangle rarely needs remark", () => {
    expect(scanBlocks(md("# A", "", "Prose with `code` and <<name>>.", "", "- a list", "  - nested", "", `${fence}ts`, "x", fence)).by).toBe("fast");
  });
});

describe("documents the scanners once disagreed on", () => {
  // Each row was a document where scanFast answered something other than remark. Now it must
  // either refuse or give remark's answer.
  it.each([
    ["a fence behind a list marker and `>`", md(`- > ${fence}ts`, "- x")],
    ["a fence in an ordered list item's block quote", md("1) > ~~~ts")],
    ["a fence in a footnote definition", md("[^1]: ~~~ts", "foo")],
    ["a fence in a footnote definition in a list item", md(`* [^x]: ${fence}ts`)],
    ["a no-break space in the info string", md(`${fence}ts\u00a0x`, fence)],
    ["a no-break space before the language", md(`${fence} \u00a0ts`, fence)],
    ["trailing blanks after the language", md(`${fence}ts\u00a0`, fence)],
    ["a vertical tab in the info string", md(`${fence}ts\u000bx`, fence)],
    ["a line separator in the info string", md(`${fence}ts\u2028x`, fence)],
    ["CRLF in a block's value", `${fence}ts\r\na\r\nb\r\n${fence}\r\n`],
    ["CRLF in an unclosed block's trailing blank lines", `${fence}ts\r\ncode\r\n\r\n`],
    ["CRLF in front matter", "---\r\na: 1\r\nb: 2\r\n---\r\n"],
    ["an indented code block (mdast's other `code`)", md("# A", "\tindented();", "\tindented();", "", `${fence}ts`, fence)],
  ])("%s", (_case, text) => {
    const fast = scanFast(text);
    if (fast !== undefined) expect(fast).toEqual(reference(text));
  });

  it("keeps the info string's odd whitespace in the language, as remark does", () => {
    expect(scanFast(md(`${fence}ts\u00a0x`, fence))?.blocks[0]?.lang).toBe("ts\u00a0x");
  });
});

describe("scanWithRemark", () => {
  it("finds fences wherever remark does: lists, block quotes, HTML blocks", () => {
    const text = md("- item", "", `  ${fence}ts`, "  a", `  ${fence}`, "", `> ${fence}ts`, "> b", `> ${fence}`, "", "<div>", "", `${fence}ts`, "c", fence, "", "</div>");
    expect(reference(text).blocks).toEqual([block(3, "ts", "", "a", true, 3), block(7, "ts", "", "b", true, 3), block(13, "ts", "", "c")]);
  });

  it("says whether a heading or non-empty paragraph stands between blocks", () => {
    const text = md(`${fence}ts`, fence, "# Heading", `${fence}ts`, fence, `${fence}ts`, fence, "Some words.", "", `${fence}ts`, fence, "- a list item", "", `${fence}ts`, fence, "<!-- comment -->", "", `${fence}ts`, fence);
    expect(scanWithRemark(text).blocks.map((b) => b.proseBefore)).toEqual([false, true, false, true, true, false]);
  });

  it("skips indented code blocks, which have no fence", () => {
    expect(reference(md("Words.", "", "    indented", "", `${fence}ts`, fence)).blocks).toEqual([block(5, "ts", "", "")]);
  });

  it("reports a fence closed by a closing line inside its container", () => {
    expect(reference(md(`> ${fence}ts`, "> x", `> ${fence}`)).blocks[0]?.closed).toBe(true);
    expect(reference(md(`> ${fence}ts`, "> x", "", "after")).blocks[0]?.closed).toBe(false);
  });
});
