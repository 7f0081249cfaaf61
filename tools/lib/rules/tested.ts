/**
 * Rule 4: tested. A passing test run executed every function of the block (or, for a value with
 * no function in it, code that ran read it: `runs.ts`), and the block's `tested=` stamp equals
 * its current hash (`stamps.ts`). For a block the evidence does not speak for (`TestFacts.scope`),
 * the stamp stands for the evidence: it was written from a passing run of this exact code.
 */
import { error, type Diagnostic } from "../core/diagnostics.ts";
import type { BlockAnalysis } from "../core/definitions.ts";
import { judgeExecution, type TestEvidence } from "../core/evidence.ts";
import { judgeRunnables, type Runnables, type RunVerdicts } from "../core/runs.ts";
import type { TangleResult } from "../core/tangle.ts";
import { analysisOf, isRuntime, type Findings, type Rule } from "./rule.ts";
import { pushAt, valueAt } from "../core/maps.ts";

/** The state of rule 4 for one block. */
export type TestedState = "tested" | "untested" | "unstamped" | "stale" | "exempt";

/** What rule 4 found, with each block's state and the stamp it is judged with. */
export interface TestedFindings extends Findings {
  readonly states: ReadonlyMap<number, TestedState>;
  /** The runtime blocks in scope that the evidence shows executed: those a run earns a stamp. */
  readonly executed: ReadonlySet<number>;
  /** The stamp each block was judged with (after `stampFromEvidence` and `stamps`). */
  readonly stamps: ReadonlyMap<number, string | undefined>;
}

export const tested: Rule<TestedFindings> = {
  id: "tested",
  description: "a passing test run executed every function of the block, and its tested= stamp is its current hash",
  reads: ["result", "hashes", "analyses", "runnables", "tests"],
  check: (facts): TestedFindings => {
    const { result, hashes, tests } = facts;
    const { evidence } = tests;
    const byBlock = new Map<number, Diagnostic[]>();
    const states = new Map<number, TestedState>();
    const executed = new Set<number>();
    const stamps = new Map<number, string | undefined>();
    const parts = evidence === undefined ? undefined : partsOf(facts.runnables(), evidence);
    const children = childrenOf(result);
    result.blocks.forEach((block, index) => {
      const analysis = analysisOf(facts, index);
      const hash = hashes[index] ?? "";
      const inScope = tests.scope === "all" || tests.scope.has(index);
      const runtime = isRuntime(analysis.kind, analysis.typeOnly);
      const missed = runtime && inScope && evidence !== undefined && parts !== undefined ? missedParts(evidence, result, index, children, analysis, parts) : undefined;
      const ran = missed?.length === 0;
      if (ran) executed.add(index);
      const stamp = tests.stamps?.get(index) ?? (tests.stampFromEvidence === true && inScope ? (ran ? hash : undefined) : block.attrs.tested);
      stamps.set(index, stamp);
      if (!runtime) {
        states.set(index, "exempt");
        return;
      }
      const at = { file: block.doc, line: block.line, column: block.column };
      const named = analysis.names.length > 0 ? ` (\`${analysis.names.join("`, `")}\`)` : "";
      if (!inScope) {
        // The stamp stands for the evidence.
        if (stamp === hash) states.set(index, "tested");
        else if (stamp === undefined) {
          states.set(index, "untested");
          pushAt(byBlock, index, error(at, "tested", `no stamp: this block${named} is not known to be tested`, `run its tests and stamp it: ${tests.refresh}`));
        } else {
          states.set(index, "stale");
          pushAt(byBlock, index, error(at, "tested", `stamp \`tested=${stamp}\` is stale: the block changed since it was tested (now \`${hash}\`)`, `run its tests and stamp it: ${tests.refresh}`));
        }
        return;
      }
      if (!ran) {
        states.set(index, "untested");
        if (missed === undefined) for (const d of tests.absent(block, named)) pushAt(byBlock, index, d);
        else for (const miss of missed) pushAt(byBlock, index, error(at, "tested", miss.message, `${miss.hint}, then ${tests.refresh}`));
      } else if (stamp === undefined) {
        states.set(index, "unstamped");
        pushAt(byBlock, index, error(at, "tested", "the tests execute this block but it carries no `tested=` stamp", `run ${tests.refresh} to stamp it from the evidence`));
      } else if (stamp !== hash) {
        states.set(index, "stale");
        pushAt(byBlock, index, error(at, "tested", `stamp \`tested=${stamp}\` is stale: the block changed since it was tested (now \`${hash}\`)`, `run the tests and ${tests.refresh}`));
      } else states.set(index, "tested");
    });
    return { byBlock, global: [], states, executed, stamps };
  },
};

/** The runnables grouped for judging blocks: functions by the block that defines them, reads by the block read. */
interface Parts {
  readonly runnables: Runnables;
  readonly verdicts: RunVerdicts;
  readonly functionsOf: ReadonlyMap<number, readonly number[]>;
  readonly readsOf: ReadonlyMap<number, readonly number[]>;
}

function partsOf(runnables: Runnables, evidence: TestEvidence): Parts {
  const functionsOf = new Map<number, number[]>();
  runnables.functions.forEach((f, i) => pushAt(functionsOf, f.block, i));
  const readsOf = new Map<number, number[]>();
  runnables.references.forEach((r, i) => {
    for (const block of r.blocks) if (block !== r.block) pushAt(readsOf, block, i);
  });
  return { runnables, verdicts: judgeRunnables(evidence, runnables), functionsOf, readsOf };
}

/**
 * What of a block did not run, as what to say and the hint: that nothing did, or one entry per
 * function that never ran (the outermost: a closure inside a function that never ran goes
 * unsaid) or the value nothing read. Empty when the block counts as executed.
 */
function missedParts(
  evidence: TestEvidence,
  result: TangleResult,
  index: number,
  children: ReadonlyMap<number, number[]>,
  analysis: Pick<BlockAnalysis, "kind" | "names">,
  parts: Parts,
): { readonly message: string; readonly hint: string }[] {
  const { runnables, verdicts } = parts;
  const named = analysis.names.length > 0 ? ` (\`${analysis.names.join("`, `")}\`)` : "";
  const nothing = [{ message: `no passing test executed this block${named}`, hint: "write a test that runs it" }];
  const own = parts.functionsOf.get(index) ?? [];
  if (own.length > 0) {
    if (!own.some((f) => verdicts.functionRan[f] === true) && !executedBlock(evidence, result, index, children)) return nothing;
    return own
      .filter((f) => {
        if (verdicts.functionRan[f] === true) return false;
        const parent = runnables.functions[runnables.functions[f]?.parent ?? -1];
        return parent === undefined || parent.block !== index || verdicts.functionRan[runnables.functions[f]?.parent ?? -1] === true;
      })
      .map((f) => {
        const fn = runnables.functions[f];
        return { message: `${fn?.description ?? "a function"} (line ${fn?.line ?? 0}) never ran`, hint: "add a test that calls it, stating the behaviour that needs it (or remove it, if nothing can)" };
      });
  }
  if (!executedBlock(evidence, result, index, children)) return nothing;
  if (analysis.kind !== "definition" || analysis.names.length === 0) return [];
  if ((parts.readsOf.get(index) ?? []).some((r) => verdicts.referenceRan[r] === true)) return [];
  const declared = runnables.kinds.get(index);
  const what = `the ${declared?.kind ?? "value"} \`${analysis.names.join("`, `")}\`${declared === undefined ? "" : ` (line ${declared.line})`}`;
  return [{ message: `${what} is never read by code that ran`, hint: "add a test that uses it, or the code that reads it (or remove it, if nothing needs it)" }];
}

/** Blocks spliced into each block (first placements). */
function childrenOf(result: TangleResult): Map<number, number[]> {
  const children = new Map<number, number[]>();
  result.placements.forEach((placement, index) => {
    if (placement !== undefined && placement.parent >= 0) pushAt(children, placement.parent, index);
  });
  return children;
}

/** Whether a block (with the blocks spliced into it, from any document) ran in the evidence's test run. */
function executedBlock(evidence: TestEvidence, result: TangleResult, index: number, children: ReadonlyMap<number, number[]>): boolean {
  const linesByDoc = new Map<string, Set<number>>();
  const collect = (i: number): void => {
    const b = result.blocks[i];
    if (b === undefined) return;
    const lines = valueAt(linesByDoc, b.doc, () => new Set<number>());
    for (let k = 0; k < b.lines.length; k++) lines.add(b.line + 1 + k);
    for (const child of children.get(i) ?? []) collect(child);
  };
  collect(index);
  const verdicts = [...linesByDoc].map(([doc, lines]) => judgeExecution(evidence, doc, lines));
  if (verdicts.includes("executed")) return true;
  if (verdicts.includes("not-executed")) return false;
  const own = evidence.documents.get(result.blocks[index]?.doc ?? "");
  return own !== undefined && own.statements.some((s) => s.count > 0);
}

