import { describe, expect, it } from "vitest";
import { byChapterOrder } from "../../tools/lib/core/document.ts";
import { buildModel, compareDefinitionNames } from "../../tools/lib/docs/model.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";
import type { VerifyReport } from "../../tools/lib/commands/verify.ts";
import type { BlockReport } from "../../tools/lib/rules/judge.ts";

const fence = "```";

/** A model of inline documents, with verify's verdict reduced to each block's kind and names. */
function model(docs: Record<string, string>, names: Record<string, { kind: BlockReport["kind"]; names: string[] }>) {
  const tangled = tangle(Object.entries(docs).map(([path, text]) => ({ path, text })));
  expect(tangled.diagnostics).toEqual([]);
  const blocks = tangled.blocks.map((b) => {
    const n = names[`${b.doc}#${b.index}`] ?? { kind: "other" as const, names: [] };
    return { doc: b.doc, index: b.index, line: b.line, lang: b.lang, kind: n.kind, names: n.names, typeOnly: false, hash: "", checks: { oneDefinition: true, prose: true, compiles: true, tested: "tested" }, problems: [] } as unknown as BlockReport;
  });
  const report: VerifyReport = { ok: true, blocks, documents: [], problems: [], typeCheck: { compiler: "native", milliseconds: 0 } };
  return buildModel({ tangle: tangled, report, xref: { symbols: [], occurrences: [], milliseconds: 0 } });
}

const agent = `---\ntangle: generated/agent.ts\n---\n# Agent\n\nThe class.\n\n${fence}ts\nexport class Agent {\n  <<agent-members>>\n}\n${fence}\n\nIts members.\n\n${fence}ts #agent-members\nconstructor() {}\n#run(): void {}\n${fence}\n`;
const zebraWith = (order: string): string => `---\ntangle: generated/zebra.ts\n${order}---\n# Zebra\n\nFirst.\n\n${fence}ts\nexport const zebra = 1;\n${fence}\n`;
const zebra = zebraWith("order: 1\n");

describe("the docs model", () => {
  const m = model({ "literate/agent.md": agent, "literate/zebra.md": zebra }, {
    "literate/agent.md#0": { kind: "definition", names: ["Agent"] },
    "literate/agent.md#1": { kind: "definition", names: ["constructor", "#run"] },
    "literate/zebra.md#0": { kind: "definition", names: ["zebra"] },
  });

  it("orders chapters by their `order` front matter, then by path", () => {
    expect(m.chapters.map((c) => c.doc)).toEqual(["literate/zebra.md", "literate/agent.md"]);
    const docs = [{ path: "c.md", frontMatter: {} }, { path: "b.md", frontMatter: { order: 2 } }, { path: "a.md", frontMatter: {} }, { path: "d.md", frontMatter: { order: 1 } }];
    expect(docs.sort(byChapterOrder).map((d) => d.path)).toEqual(["d.md", "b.md", "a.md", "c.md"]);
  });

  it("qualifies members spliced into a class body with the class's name", () => {
    expect(m.definitions.map((d) => d.name)).toEqual(["Agent", "Agent.constructor", "Agent.#run", "zebra"]);
  });

  it("links a `<<name>>` line to the named block and the named block back to where it is spliced", () => {
    const [host, members] = m.blocks;
    expect(host?.chunkRefs).toEqual([{ line: 1, name: "agent-members", blocks: [1] }]);
    expect(members?.splicedInto).toEqual([0]);
  });

  it("sorts definition names by letter, ignoring case and a private `#`", () => {
    expect(["#work", "beta", "Delta", "alpha", "#Cycle"].sort(compareDefinitionNames)).toEqual(["alpha", "beta", "#Cycle", "Delta", "#work"]);
  });
});
