import { describe, expect, it } from "vitest";
import { plainTokens } from "../../tools/lib/docs/code-html.ts";
import { buildModel } from "../../tools/lib/docs/model.ts";
import { renderBlock, type PageContext } from "../../tools/lib/docs/pages.ts";
import { tangle } from "../../tools/lib/tangle.ts";
import type { BlockReport, VerifyReport } from "../../tools/lib/verify.ts";

const fence = "```";
const doc = `---\ntangle: generated/a.ts\n---\n# A\n\nThe class.\n\n${fence}ts\nexport class A {\n  <<a-members>>\n}\n${fence}\n\nIts members.\n\n${fence}ts #a-members\nrun(): number { return "x" + LIMIT; }\n${fence}\n\nA constant.\n\n${fence}ts\nexport const LIMIT = 3;\n${fence}\n`;

/** Block 0 is tested by two tests and stale, block 1 does not compile, block 2 is a tested constant. */
function page(): { html: (index: number) => string } {
  const tangled = tangle([{ path: "literate/a.md", text: doc }]);
  const line = (i: number): number => tangled.blocks[i]?.line ?? 0;
  const base = (i: number, names: string[], tested: string, extra: Partial<Record<string, unknown>> = {}): BlockReport =>
    ({ doc: "literate/a.md", index: i, line: line(i), lang: "ts", kind: "definition", names, typeOnly: false, hash: "abc", stamp: "def", checks: { oneDefinition: true, prose: true, compiles: true, tested }, problems: [], ...extra }) as unknown as BlockReport;
  const compileError = { file: "literate/a.md", line: line(1) + 1, column: 24, severity: "error", rule: "compiles", message: "Type 'string' is not assignable to type 'number'." };
  const blocks = [base(0, ["A"], "stale"), base(1, ["run"], "tested", { checks: { oneDefinition: true, prose: true, compiles: false, tested: "tested" }, problems: [compileError] }), base(2, ["LIMIT"], "tested")];
  const report = { ok: false, blocks, documents: [], problems: [compileError], typeCheck: { compiler: "native", milliseconds: 1 } } as unknown as VerifyReport;
  // `run` (block 1) uses LIMIT (block 2): one symbol, declared in block 2, used on run's line.
  const target = tangled.targets.find((t) => t.path === "generated/a.ts");
  const lines = target?.content.split("\n") ?? [];
  const declared = lines.findIndex((l) => l.includes("export const LIMIT"));
  const used = lines.findIndex((l) => l.includes("run(): number"));
  const xref = {
    symbols: [{ name: "LIMIT", hover: "const LIMIT: 3", definition: { file: "generated/a.ts", line: declared, character: 13 } }],
    occurrences: [
      { file: "generated/a.ts", line: declared, character: 13, length: 5, symbol: 0, isDefinition: true },
      { file: "generated/a.ts", line: used, character: (lines[used] ?? "").indexOf("LIMIT"), length: 5, symbol: 0, isDefinition: false },
    ],
    milliseconds: 0,
  };
  const model = buildModel({ tangle: tangled, report, xref, tests: new Map([[0, ["A runs", "A stops"]], [1, ["run counts to the limit"]]]) });
  const ctx: PageContext = { model, tokenize: plainTokens, siteTitle: "T", sourcePages: new Set(), documents: new Set(["literate/a.md"]) };
  return { html: (index) => renderBlock(ctx, "chapters/a.html", model.blocks[index] ?? (undefined as never), new Map()) };
}

describe("a rendered block", () => {
  const { html } = page();

  it("shows a `compiles ✗` badge and the compiler's message where the block is", () => {
    expect(html(1)).toContain("compiles ✗");
    expect(html(1)).toContain("Type &#39;string&#39; is not assignable to type &#39;number&#39;.");
  });

  it("shows a stale stamp as a badge", () => {
    expect(html(0)).toMatch(/class="badge[^"]*"[^>]*>stale</);
  });

  it("names the tests that executed it", () => {
    expect(html(0)).toContain("Tested by 2 tests");
    expect(html(0)).toContain("<li>A runs</li>");
  });

  it("names, for a tested constant, the tests of the blocks that use it instead of listing nothing", () => {
    expect(html(2)).toContain("used by blocks tested by 1 test");
    expect(html(2)).toContain("<li>run counts to the limit</li>");
  });

  it("links a `<<name>>` line to the named block, which says where it is spliced", () => {
    expect(html(0)).toMatch(/<a [^>]*href="#block-1"[^>]*>[^]*?a-members/);
    expect(html(1)).toContain("Spliced into");
  });
});
