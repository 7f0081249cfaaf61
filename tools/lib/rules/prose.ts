/** Rule 2: prose before each block that defines something (remark decides what a heading or paragraph is). */
import { error, type Diagnostic } from "../core/diagnostics.ts";
import { analysisOf, type Findings, type Rule } from "./rule.ts";

export const prose: Rule = {
  id: "prose",
  description: "a heading or a paragraph stands between a defining block and the block before it, saying why the code exists",
  reads: ["result", "analyses"],
  check: (facts): Findings => {
    const byBlock = new Map<number, Diagnostic[]>();
    facts.result.blocks.forEach((block, index) => {
      // The blocks that define something (a preamble included).
      const { kind } = analysisOf(facts, index);
      if ((kind !== "definition" && kind !== "fragment" && kind !== "preamble") || block.proseBefore !== false) return;
      byBlock.set(index, [error({ file: block.doc, line: block.line, column: block.column }, "prose", "no prose before this block", "write a heading or a paragraph that says why this code exists, between it and the previous block")]);
    });
    return { byBlock, global: [] };
  },
};
