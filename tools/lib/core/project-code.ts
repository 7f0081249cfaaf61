/**
 * What the project model knows about the tangled code: the TypeScript targets' syntax trees,
 * every block's definition analysis (rule 1) and the book's runnables (rule 4), each a
 * `Derivation` the model computes once per tangle result. Apart from `project.ts` so that a tangle, which needs neither, never loads the
 * TypeScript compiler.
 */
import type ts from "typescript";
import { analyzeDefinitions, type BlockAnalysis } from "./definitions.ts";
import type { Diagnostic } from "./diagnostics.ts";
import type { Derivation } from "./project.ts";
import { findRunnables, parseTargets, type Runnables } from "./runs.ts";

/** The syntax tree of every TypeScript target; a target whose content is unchanged since the model's last tangle keeps its tree. */
export const targetTrees: Derivation<ReadonlyMap<string, ts.SourceFile>> = {
  name: "target trees",
  derive: (model, previous) => parseTargets(model.tangle(), previous),
};

/** Every block's analysis (`analyzeDefinitions`) and the rule-1 problems, over the target trees. */
export const definitionAnalyses: Derivation<{ readonly analyses: readonly BlockAnalysis[]; readonly diagnostics: readonly Diagnostic[] }> = {
  name: "definition analyses",
  derive: (model) => analyzeDefinitions(model.tangle(), model.derived(targetTrees)),
};

/**
 * Every function of the book and the reads of its value blocks (`findRunnables`, a walk of every
 * tangled file): what rule 4 holds a test run's evidence against, and its main cost.
 */
export const bookRunnables: Derivation<Runnables> = {
  name: "runnables",
  derive: (model) => {
    const values = model.derived(definitionAnalyses).analyses.flatMap((a, block) => (a.kind === "definition" && !a.typeOnly && a.names.length > 0 ? [{ block, names: a.names }] : []));
    return findRunnables(model.tangle(), model.derived(targetTrees), values);
  },
};
