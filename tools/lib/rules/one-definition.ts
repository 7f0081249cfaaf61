/**
 * Rule 1: one top-level definition per block, read from the tangled files' syntax trees
 * (`definitions.ts` finds the problems while it analyses each block; this rule places them).
 */
import type { Diagnostic } from "../core/diagnostics.ts";
import { type Findings, type Rule } from "./rule.ts";
import { pushAt } from "../core/maps.ts";

export const oneDefinition: Rule = {
  id: "one-definition",
  description: "a block declares exactly one top-level definition (or is a fragment spliced into one)",
  reads: ["result", "definitionProblems"],
  check: ({ result, definitionProblems }): Findings => {
    const byBlock = new Map<number, Diagnostic[]>();
    const global: Diagnostic[] = [];
    const at = new Map(result.blocks.map((b, index) => [`${b.doc}:${b.line}:${b.column}`, index]));
    for (const d of definitionProblems) {
      const index = at.get(`${d.file}:${d.line}:${d.column}`);
      if (index === undefined) global.push(d);
      else pushAt(byBlock, index, d);
    }
    return { byBlock, global };
  },
};
