/** The reading order: a chapter uses only what chapters earlier in the book define (`order.ts`). */
import { readingOrderProblems } from "../core/order.ts";
import { analysisOf, type Findings, type Rule } from "./rule.ts";

export const readingOrder: Rule = {
  id: "order",
  description: "a chapter imports and uses only what chapters before it in the reading order define",
  reads: ["result", "sources", "analyses"],
  check: (facts): Findings => {
    const exempt = (index: number): boolean => {
      const kind = analysisOf(facts, index).kind;
      return kind === "test" || kind === "other";
    };
    return { byBlock: readingOrderProblems(facts.result, facts.sources, exempt), global: [] };
  },
};
