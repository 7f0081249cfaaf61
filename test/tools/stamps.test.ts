// Stamps: a block's hash covers its own text and every block it splices, and `applyStampEdits`
// rewrites only the fence lines it is told to, keeping everything else byte for byte.
import { describe, expect, it } from "vitest";
import { parseLiterateDocument } from "../../tools/lib/core/document.ts";
import { applyStampEdits, blockHashes, type StampEdit } from "../../tools/lib/core/stamps.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";

const path = "literate/x.md";

/** A document whose function `outer` splices `<<middle>>`, which splices `<<inner>>`; plus an unrelated block. */
function documentOf(parts: { readonly outer?: string; readonly middle?: string; readonly inner?: string; readonly other?: string; readonly prose?: string; readonly outerInfo?: string } = {}): string {
  return [
    "---",
    "tangle: generated/x.ts",
    "---",
    "",
    parts.prose ?? "**outer** adds its parts.",
    "",
    `\`\`\`ts${parts.outerInfo ?? ""}`,
    "export function outer(n: number): number {",
    parts.outer ?? "  let total = n;",
    "  <<middle>>",
    "  return total;",
    "}",
    "```",
    "",
    "The middle part.",
    "",
    "```ts #middle",
    parts.middle ?? "total += 1;",
    "<<inner>>",
    "```",
    "",
    "The inner part.",
    "",
    "```ts #inner",
    parts.inner ?? "total += 2;",
    "```",
    "",
    "An unrelated constant.",
    "",
    "```ts",
    parts.other ?? "export const other = 1;",
    "```",
    "",
  ].join("\n");
}

/** Hashes of [outer, middle, inner, other]. */
function hashes(parts: Parameters<typeof documentOf>[0] = {}): string[] {
  const result = tangle([{ path, text: documentOf(parts) }]);
  expect(result.diagnostics).toEqual([]);
  return blockHashes(result);
}

describe("blockHashes", () => {
  const base = hashes();

  it("gives every block twelve hex digits, distinct for distinct blocks", () => {
    expect(base).toHaveLength(4);
    for (const h of base) expect(h).toMatch(/^[0-9a-f]{12}$/);
    expect(new Set(base).size).toBe(4);
  });

  it.each([
    ["the block's own text changes", { outer: "  let total = n * 1;" }, [true, false, false, false]],
    ["a block it splices changes", { middle: "total += 10;" }, [true, true, false, false]],
    ["a block spliced two levels down changes", { inner: "total += 20;" }, [true, true, true, false]],
    ["only an unrelated block changes", { other: "export const other = 2;" }, [false, false, false, true]],
    ["only the prose changes, moving every block down", { prose: "**outer** adds its parts.\n\nIt is short." }, [false, false, false, false]],
    ["the fence gains a stamp", { outerInfo: " tested=0123456789ab" }, [false, false, false, false]],
  ] as const)("changes exactly where expected when %s", (_, parts, changed) => {
    const now = hashes(parts);
    expect(now.map((h, i) => h !== base[i])).toEqual(changed);
  });

  it("counts every block of a name that is defined twice", () => {
    const twice = documentOf().replace("```ts #inner\ntotal += 2;\n```", "```ts #inner\ntotal += 2;\n```\n\nMore of the inner part.\n\n```ts #inner\ntotal += 3;\n```");
    const before = blockHashes(tangle([{ path, text: twice }]));
    const after = blockHashes(tangle([{ path, text: twice.replace("total += 3;", "total += 4;") }]));
    expect(after[0]).not.toBe(before[0]);
    expect(after[2]).toBe(before[2]);
  });

  it("follows references across documents", () => {
    const user = (inner: string): string[] =>
      blockHashes(
        tangle([
          { path: "literate/a.md", text: "---\ntangle: generated/a.ts\n---\n\nUses a shared part.\n\n```ts\nexport function a(): number {\n  <<shared>>\n}\n```\n" },
          { path: "literate/b.md", text: `# Shared\n\nThe shared part.\n\n\`\`\`ts #shared\n${inner}\n\`\`\`\n` },
        ]),
      );
    expect(user("return 1;")[0]).not.toBe(user("return 2;")[0]);
  });

  it("reads tangle's splice graph, so an illustration named like a spliced block changes no stamp", () => {
    const withIllustration = (example: string): string =>
      `---\ntangle: generated/x.ts\n---\n\nOuter.\n\n\`\`\`ts\nexport function f(): number {\n  <<part>>\n}\n\`\`\`\n\nThe part.\n\n\`\`\`ts #part\nreturn 1;\n\`\`\`\n\nAn illustration.\n\n\`\`\`ts no-tangle #part\n${example}\n\`\`\`\n`;
    const before = tangle([{ path, text: withIllustration("return 2;") }]);
    expect(before.references[0]).toEqual([{ line: 1, name: "part", blocks: [1] }]);
    expect(before.references[2]).toEqual([]);
    expect(blockHashes(tangle([{ path, text: withIllustration("return 3;") }]))[0]).toBe(blockHashes(before)[0]);
  });

  it("ends on a reference cycle, which tangle reports", () => {
    const text = "---\ntangle: generated/x.ts\n---\n\nA.\n\n```ts\nexport const a = 1;\n<<b>>\n```\n\nB.\n\n```ts #b\n<<c>>\n```\n\nC.\n\n```ts #c\n<<b>>\n```\n";
    const result = tangle([{ path, text }]);
    expect(result.diagnostics.map((d) => d.rule)).toContain("reference-cycle");
    const cyclic = blockHashes(result);
    expect(cyclic).toHaveLength(3);
    for (const h of cyclic) expect(h).toMatch(/^[0-9a-f]{12}$/);
  });
});

describe("applyStampEdits", () => {
  const stamp = "0123456789ab";
  const old = "aaaaaaaaaaaa";

  it.each<[string, string, readonly StampEdit[], string]>([
    ["adds a stamp after the other attributes", "Prose.\n\n```ts #name\ncode\n```\n", [{ line: 3, stamp }], `Prose.\n\n\`\`\`ts #name tested=${stamp}\ncode\n\`\`\`\n`],
    ["adds a stamp without doubling trailing blanks", "```ts  \ncode\n```\n", [{ line: 1, stamp }], `\`\`\`ts tested=${stamp}\ncode\n\`\`\`\n`],
    ["replaces a stamp where it stands", `\`\`\`ts tested=${old} #name\ncode\n\`\`\`\n`, [{ line: 1, stamp }], `\`\`\`ts tested=${stamp} #name\ncode\n\`\`\`\n`],
    ["replaces a stamp keeping the tab before it", `\`\`\`ts\ttested=${old}\ncode\n\`\`\`\n`, [{ line: 1, stamp }], `\`\`\`ts\ttested=${stamp}\ncode\n\`\`\`\n`],
    ["removes a stamp, keeping the attributes around it", `\`\`\`ts #name tested=${old} file=x.ts\ncode\n\`\`\`\n`, [{ line: 1, stamp: undefined }], "```ts #name file=x.ts\ncode\n```\n"],
    ["removes a stamp at the end of the fence", `\`\`\`ts tested=${old}\ncode\n\`\`\`\n`, [{ line: 1, stamp: undefined }], "```ts\ncode\n```\n"],
    ["leaves a fence without a stamp alone when asked to remove one", "```ts\ncode\n```\n", [{ line: 1, stamp: undefined }], "```ts\ncode\n```\n"],
    ["keeps CRLF line endings", "Prose.\r\n\r\n```ts\r\ncode\r\n```\r\n", [{ line: 3, stamp }], `Prose.\r\n\r\n\`\`\`ts tested=${stamp}\r\ncode\r\n\`\`\`\r\n`],
    ["keeps lone CR line endings", "Prose.\r\r```ts\rcode\r```\r", [{ line: 3, stamp }], `Prose.\r\r\`\`\`ts tested=${stamp}\rcode\r\`\`\`\r`],
    ["keeps a document without a final newline", "```ts\ncode\n```", [{ line: 1, stamp }], `\`\`\`ts tested=${stamp}\ncode\n\`\`\``],
    ["stamps a fence inside a list item", "1. Prose:\n\n   ```ts\n   code\n   ```\n", [{ line: 3, stamp }], `1. Prose:\n\n   \`\`\`ts tested=${stamp}\n   code\n   \`\`\`\n`],
    [
      "applies several edits at once, touching no other line",
      `# T\n\n\`\`\`ts tested=${old}\na\n\`\`\`\n\n\`\`\`ts\nb\n\`\`\`\n\n\`\`\`ts tested=${old}\nc\n\`\`\`\n`,
      [
        { line: 3, stamp: undefined },
        { line: 7, stamp },
        { line: 11, stamp },
      ],
      `# T\n\n\`\`\`ts\na\n\`\`\`\n\n\`\`\`ts tested=${stamp}\nb\n\`\`\`\n\n\`\`\`ts tested=${stamp}\nc\n\`\`\`\n`,
    ],
    ["ignores an edit past the end of the text", "```ts\ncode\n```\n", [{ line: 40, stamp }], "```ts\ncode\n```\n"],
  ])("%s", (_, text, edits, want) => {
    expect(applyStampEdits(text, edits)).toBe(want);
  });

  it("returns the very same text when there is nothing to edit", () => {
    const text = "```ts\ncode\n```\n";
    expect(applyStampEdits(text, [])).toBe(text);
  });

  it("writes a stamp the document parser reads back, with no new diagnostic", () => {
    const text = "---\ntangle: generated/x.ts\n---\n\nWhy.\n\n```ts #name\ncode\n```\n";
    const stamped = applyStampEdits(text, [{ line: 7, stamp }]);
    const parsed = parseLiterateDocument(path, stamped);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.blocks[0]?.attrs).toEqual({ test: false, noTangle: false, name: "name", tested: stamp });
  });
});
