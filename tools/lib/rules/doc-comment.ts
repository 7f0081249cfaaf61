/** The doc-comment warning (`repetition.ts`): a doc comment says what the prose before its block does not. */
import { measureRepetition, repetitionWarnings } from "../core/repetition.ts";
import { analysisOf, type Findings, type Rule } from "./rule.ts";

export const docComment: Rule = {
  id: "doc-comment",
  description: "a definition's doc comment states its contract instead of repeating the prose before its block (a warning)",
  reads: ["result", "sources", "analyses"],
  check: (facts): Findings => {
    const judged = (index: number): boolean => analysisOf(facts, index).kind === "definition" && facts.result.blocks[index]?.proseBefore === true;
    return { byBlock: repetitionWarnings(measureRepetition(facts.result, facts.sources, judged)), global: [] };
  },
};
