/** One literate document: its fence attributes, front matter, block lines and column shifts. */
import { describe, expect, it } from "vitest";
import { parseLiterateDocument, type BlockAttributes } from "../../tools/lib/core/document.ts";
import { fence, md } from "./support.ts";

const parse = (text: string) => parseLiterateDocument("literate/a.md", text);

describe("block attributes", () => {
  it.each<[string, string, BlockAttributes]>([
    ["ts", "ts", { test: false, noTangle: false }],
    ["ts file=generated/x.ts", "ts", { test: false, noTangle: false, file: "generated/x.ts" }],
    ["ts #helper.part-2", "ts", { test: false, noTangle: false, name: "helper.part-2" }],
    ["ts test", "ts", { test: true, noTangle: false }],
    ["ts test file=test/x.test.ts", "ts", { test: true, noTangle: false, file: "test/x.test.ts" }],
    ["ts no-tangle", "ts", { test: false, noTangle: true }],
    ["ts #h tested=0123456789ab", "ts", { test: false, noTangle: false, name: "h", tested: "0123456789ab" }],
    ["ts\tfile=x.ts\t test", "ts", { test: true, noTangle: false, file: "x.ts" }],
    ["json file=config.json", "json", { test: false, noTangle: false, file: "config.json" }],
    ["", "", { test: false, noTangle: false }],
  ])("reads `%s` as lang %j with its attributes", (info, lang, attrs) => {
    const doc = parse(md(`${fence}${info}`, "x", fence));
    expect(doc.diagnostics).toEqual([]);
    expect(doc.blocks[0]?.lang).toBe(lang);
    expect(doc.blocks[0]?.attrs).toEqual(attrs);
  });

  it("points an unknown attribute at its own column, past a language that contains it", () => {
    const doc = parse(md(`${fence}ts ts`, "x", fence));
    expect(doc.diagnostics.map((d) => [d.rule, d.line, d.column, d.message])).toEqual([["unknown-attribute", 1, 7, "unknown block attribute `ts`"]]);
  });

  it.each([
    ["file=a.ts file=b.ts", "`file=` is given twice on one block", 17],
    ["#a #b", "`#name` is given twice on one block", 10],
    ["tested=0123456789ab tested=0123456789ab", "`tested=` is given twice on one block", 27],
    ["test test", "`test` is given twice on one block", 12],
  ])("reports `%s` as a duplicate", (meta, message, column) => {
    const doc = parse(md(`${fence}ts ${meta}`, "x", fence));
    expect(doc.diagnostics).toEqual([{ file: "literate/a.md", line: 1, column, severity: "error", rule: "duplicate-attribute", message, hint: "keep one of them" }]);
  });
});

describe("front matter", () => {
  it("reads the known keys, trimmed, with the line each stands on", () => {
    const doc = parse(md("---", "title: The loop", "description: How it turns.", "tangle: generated/loop.ts ", "test: test/loop.test.ts", "---"));
    expect(doc.diagnostics).toEqual([]);
    expect(doc.frontMatter).toEqual({
      title: "The loop",
      description: "How it turns.",
      tangle: "generated/loop.ts",
      test: "test/loop.test.ts",
      keyLines: { title: 2, description: 3, tangle: 4, test: 5 },
    });
  });

  it("is empty when the document has none, or an empty one", () => {
    expect(parse(md("# A")).frontMatter).toEqual({ keyLines: {} });
    expect(parse(md("---", "---", "# A")).frontMatter).toEqual({ keyLines: {} });
  });

  it("reports each malformed line of YAML at its line and column", () => {
    const doc = parse(md("---", "title: a", "  bad: indent", "---"));
    expect(doc.diagnostics.map((d) => [d.rule, d.line, d.column])).toEqual([
      ["front-matter", 2, 8],
      ["front-matter", 2, 8],
    ]);
    expect(doc.diagnostics.map((d) => d.message)).toEqual([
      "malformed front matter: Nested mappings are not allowed in compact mappings",
      "malformed front matter: Implicit keys need to be on a single line",
    ]);
  });

  it("refuses an empty target", () => {
    const doc = parse(md("---", 'tangle: " "', "---"));
    expect(doc.diagnostics.map((d) => [d.rule, d.line, d.column, d.message, d.hint])).toEqual([
      ["front-matter", 2, 1, "front matter key `tangle` must be a non-empty string", "write `tangle: generated/x.ts`"],
    ]);
  });
});

describe("blocks", () => {
  it("gives each block its lines, fence position, and the columns that stand before each line", () => {
    const doc = parse(md("# A", "", "- step", "", `  ${fence}ts`, "  const a = 1;", "    nested();", `  ${fence}`, "", `${fence}ts`, "b();", fence));
    expect(doc.blocks.map((b) => ({ index: b.index, line: b.line, column: b.column, lines: b.lines, columnShift: b.columnShift, closed: b.closed }))).toEqual([
      { index: 0, line: 5, column: 3, lines: ["const a = 1;", "  nested();"], columnShift: [2, 2], closed: true },
      { index: 1, line: 10, column: 1, lines: ["b();"], columnShift: [0], closed: true },
    ]);
  });

  it("offers a block's code as one verbatim string only when its lines are whole Markdown lines", () => {
    const cases: [string, string, string | undefined][] = [
      ["a fence at column 1", md(`${fence}ts`, "const a = 1;", "  if (a) {}", "", fence), "const a = 1;\n  if (a) {}\n"],
      ["one empty line", md(`${fence}ts`, "", fence), ""],
      ["no line at all", md(`${fence}ts`, fence), undefined],
      ["a fence inside a list item", md("- step", "", `  ${fence}ts`, "  x();", `  ${fence}`), undefined],
      ["a fence inside a block quote", md(`> ${fence}ts`, "> x();", `> ${fence}`), undefined],
      ["CRLF line endings", `${fence}ts\r\nx();\r\ny();\r\n${fence}\r\n`, undefined],
    ];
    for (const [name, text, verbatim] of cases) {
      const [block] = parse(text).blocks;
      expect(block?.verbatim, name).toBe(verbatim);
      if (verbatim !== undefined) {
        expect(block?.lines, name).toEqual(verbatim.split("\n"));
        expect(block?.columnShift, name).toEqual(verbatim.split("\n").map(() => 0));
      }
    }
  });

  it("tells an empty block (no lines) from a block holding one empty line", () => {
    const doc = parse(md(`${fence}ts no-tangle`, fence, "", `${fence}ts no-tangle`, "", fence));
    expect(doc.blocks.map((b) => b.lines)).toEqual([[], [""]]);
  });

  it("splits CRLF documents into clean lines, whichever scanner reads them", () => {
    const text = md(`${fence}ts no-tangle`, "a();", "b();", fence, "> quote").replaceAll("\n", "\r\n");
    for (const mode of ["auto", "remark"] as const) {
      expect(parseLiterateDocument("literate/a.md", text, mode).blocks[0]?.lines).toEqual(["a();", "b();"]);
    }
  });

  it("does not count an indented code block as a block, nor warn that it is unclosed", () => {
    const doc = parse(md("# A", "", "    indented code", "", `${fence}ts no-tangle`, "x", fence));
    expect(doc.diagnostics).toEqual([]);
    expect(doc.blocks.map((b) => b.line)).toEqual([5]);
  });

  it("warns about an unclosed fence at its opening line", () => {
    const doc = parse(md("# A", "", `~~~~ts no-tangle`, "x", "~~~"));
    expect(doc.diagnostics).toEqual([
      {
        file: "literate/a.md",
        line: 3,
        column: 1,
        severity: "warning",
        rule: "unclosed-fence",
        message: "code fence is never closed; the block runs to the end of its container",
        hint: "add a closing fence of the same character and at least the same length",
      },
    ]);
    expect(doc.blocks[0]?.lines).toEqual(["x", "~~~"]);
  });

  it("knows whether prose precedes a block only when remark scanned it", () => {
    const text = md("# A", "", `${fence}ts no-tangle`, "x", fence, `${fence}ts no-tangle`, "y", fence);
    expect(parseLiterateDocument("literate/a.md", text, "remark").blocks.map((b) => b.proseBefore)).toEqual([true, false]);
    expect(parseLiterateDocument("literate/a.md", text, "auto").blocks.map((b) => b.proseBefore)).toEqual([undefined, undefined]);
  });
});
