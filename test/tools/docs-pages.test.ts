import { describe, expect, it } from "vitest";
import { fillChapterList, renderPage } from "../../tools/lib/docs/layout.ts";
import { plainTokens } from "../../tools/lib/docs/code-html.ts";
import { buildModel } from "../../tools/lib/docs/model.ts";
import { renderBlock, renderSourcePage, withoutInlineSourceMap, type PageContext } from "../../tools/lib/docs/pages.ts";
import { inlineSourceMapPrefix } from "../../tools/lib/core/sourcemap.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";
import type { VerifyReport } from "../../tools/lib/commands/verify.ts";
import type { BlockReport } from "../../tools/lib/rules/judge.ts";

const fence = "```";
const doc = `---\ntangle: generated/a.ts\n---\n# A\n\nThe class.\n\n${fence}ts\nexport class A {\n  <<a-members>>\n}\n${fence}\n\nIts members.\n\n${fence}ts #a-members\nrun(): number { return "x" + LIMIT; }\n${fence}\n\nA constant.\n\n${fence}ts\nexport const LIMIT = 3;\n${fence}\n\nA script.\n\n${fence}js file=generated/b.js\nexport const b = 1;\n${fence}\n`;

/**
 * Block 0 is tested by two tests and stale, block 1 does not compile, block 2 is a tested
 * constant, block 3 a JavaScript file. `source` renders a generated file's page; `tokenized`
 * is every code the highlighter was given.
 */
function page(): { html: (index: number) => string; source: (file: string) => { content: string; html: string }; tokenized: string[] } {
  const tangled = tangle([{ path: "literate/a.md", text: doc }]);
  const line = (i: number): number => tangled.blocks[i]?.line ?? 0;
  const base = (i: number, names: string[], tested: string, extra: Partial<Record<string, unknown>> = {}): BlockReport =>
    ({ doc: "literate/a.md", index: i, line: line(i), lang: "ts", kind: "definition", names, typeOnly: false, hash: "abc", stamp: "def", checks: { oneDefinition: true, prose: true, compiles: true, tested }, problems: [], ...extra }) as unknown as BlockReport;
  const compileError = { file: "literate/a.md", line: line(1) + 1, column: 24, severity: "error", rule: "compiles", message: "Type 'string' is not assignable to type 'number'." };
  const blocks = [base(0, ["A"], "stale"), base(1, ["run"], "tested", { checks: { oneDefinition: true, prose: true, compiles: false, tested: "tested" }, problems: [compileError] }), base(2, ["LIMIT"], "tested", { mutation: { score: 50, killed: 1, survived: 1, equivalent: 0, survivors: [{ line: line(2) + 1, column: 21, mutator: "ArithmeticOperator", original: "3", replacement: "-3" }] } })];
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
  const tokenized: string[] = [];
  const tokenize = (code: string): ReturnType<typeof plainTokens> => {
    tokenized.push(code);
    return plainTokens(code);
  };
  const ctx: PageContext = { model, tokenize, siteTitle: "T", sourcePages: new Set(), documents: new Set(["literate/a.md"]) };
  const source = (file: string): { content: string; html: string } => {
    const content = tangled.files.get(file) ?? "";
    return { content, html: renderSourcePage(ctx, file, content).html };
  };
  return { html: (index) => renderBlock(ctx, "chapters/a.html", model.blocks[index] ?? (undefined as never), new Map()), source, tokenized };
}

describe("a rendered block", () => {
  const { html } = page();

  it("shows a `compiles ✗` badge and the compiler's message where the block is", () => {
    expect(html(1)).toContain("compiles ✗");
    expect(html(1)).toContain("Type &#39;string&#39; is not assignable to type &#39;number&#39;.");
  });

  it("shows its mutation score as a badge, and each surviving mutant as a one-line diff", () => {
    expect(html(2)).toMatch(/class="badge bad"[^>]*>mutants 50%</);
    expect(html(2)).toContain("1 surviving mutant</summary>");
    expect(html(2)).toContain('<span class="del">- 3</span>\n<span class="ins">+ -3</span>');
    expect(html(0)).not.toContain("mutants");
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

describe("a generated file's source page", () => {
  const { source, tokenized } = page();
  /** The text of line `n` of a page, tags and gutter dropped. */
  const lineText = (html: string, n: number): string | undefined =>
    new RegExp(`<span class="line" id="L${n}"><span class="gutter">.*?</span>(.*?)</span>(?:\\n|</code>)`).exec(html)?.[1]?.replace(/<[^>]*>/g, "").replaceAll("&quot;", '"');

  it.each(["generated/a.ts", "generated/b.js"])("shows %s without its inline source map, in a short note naming its line", (file) => {
    const { content, html } = source(file);
    const lines = content.split("\n");
    const mapLine = lines.findIndex((l) => l.startsWith(inlineSourceMapPrefix)) + 1;
    expect(mapLine).toBe(lines.length - 1); // the last line, before the final newline
    const payload = (lines[mapLine - 1] ?? "").slice(inlineSourceMapPrefix.length);
    expect(payload.length).toBeGreaterThan(20);
    expect(html).not.toContain(payload);
    expect(html).not.toContain("base64,");
    expect(html).not.toContain(`id="L${mapLine}"><span class="gutter">`);
    expect(html).toContain(`<p class="source-map" id="L${mapLine}">Line ${mapLine}, not shown, is the source map (inline)`);
    expect(tokenized.some((code) => code.includes(inlineSourceMapPrefix))).toBe(false);
  });

  it("keeps line N of the page line N of the file, cross-references included", () => {
    const { content, html } = source("generated/a.ts");
    const lines = content.split("\n");
    for (let n = 1; n < lines.length - 1; n++) expect(lineText(html, n), `line ${n}`).toBe(lines[n - 1]);
    const used = lines.findIndex((l) => l.includes("run(): number")) + 1;
    expect(html).toMatch(new RegExp(`id="L${used}">.*?<a class="ref" href="[^"]*#block-2"[^>]*><span[^>]*>LIMIT</span></a>`));
  });

  it("finds the inline map only on the last line", () => {
    const map = `${inlineSourceMapPrefix}eyJ9`;
    expect(withoutInlineSourceMap(`a;\nb;\n${map}\n`)).toEqual({ code: "a;\nb;\n", mapLine: 3 });
    expect(withoutInlineSourceMap(`a;\n${map}`)).toEqual({ code: "a;\n", mapLine: 2 });
    expect(withoutInlineSourceMap(`${map}\nb;\n`)).toEqual({ code: `${map}\nb;\n` });
    expect(withoutInlineSourceMap("a;\n//# sourceMappingURL=a.js.map\n")).toEqual({ code: "a;\n//# sourceMappingURL=a.js.map\n" });
  });
});

describe("the sidebar's chapter list", () => {
  it("puts a chapter's status inside its link, so no link sits in a block of other text (axe's link-in-text-block)", () => {
    const page = renderPage({ path: "chapters/a.html", title: "A", siteTitle: "Book", body: "<p>text</p>" });
    const html = fillChapterList(page, "chapters/a.html", [
      { title: "A", path: "chapters/a.html", status: { ok: true, text: "✓" } },
      { title: "Act", path: "chapters/act.html", status: { ok: false, text: "10 ✗" } },
    ]);
    expect(html).toContain('<li><a href="act.html">Act <span class="status bad">10 ✗</span></a></li>');
    expect(html).toContain('<li><a href="" aria-current="page">A <span class="status ok">✓</span></a></li>');
  });
});
