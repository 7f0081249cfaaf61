/**
 * The judge: every rule verify enforces (`rules/`), run once over the facts of the project, and
 * the one verdict per block and for the book that comes of it. verify, `npm run dev` (its printed
 * verdicts and its pages' badges), the docs build and `mutate` all call `judge`; none of them
 * decides a verdict of its own.
 *
 * The facts come from whoever holds the project: `factsOf` derives the tangle, hashes, syntax
 * trees and definition analyses from a project model (each computed once per tangle), and the
 * caller adds what only it can know: the type-check, the tests' evidence, the mutation records.
 * A model holds texts in memory, so an editor's unsaved text can be judged. Pure.
 */
import type { BlockAnalysis, BlockKind } from "../core/definitions.ts";
import { sortDiagnostics, type Diagnostic } from "../core/diagnostics.ts";
import type { LiterateBlock } from "../core/document.ts";
import { spanText } from "../core/mutation.ts";
import type { ProjectModel } from "../core/project.ts";
import { bookRunnables, definitionAnalyses, targetTrees } from "../core/project-code.ts";
import { compiles } from "./compiles.ts";
import { docComment } from "./doc-comment.ts";
import { oneDefinition } from "./one-definition.ts";
import { pinned, type PinnedFindings } from "./pinned.ts";
import { prose } from "./prose.ts";
import { readingOrder } from "./reading-order.ts";
import { analysisOf, type Facts, type Findings, type Rule, type RuleId } from "./rule.ts";
import { tested, type TestedFindings, type TestedState } from "./tested.ts";

export type { TestedState } from "./tested.ts";
export type { Facts, TestFacts } from "./rule.ts";

/** Every rule, in the order their problems are listed at a block. */
export const rules: readonly Rule[] = [oneDefinition, prose, compiles, readingOrder, tested, pinned, docComment];

/** Each rule's verdict on one block: true when it found no error there (warnings do not fail a block). */
export interface BlockChecks {
  readonly oneDefinition: boolean;
  readonly prose: boolean;
  readonly compiles: boolean;
  readonly tested: TestedState;
  readonly pinned: boolean;
  readonly order: boolean;
  /** False when the doc comment repeats its prose: a warning. */
  readonly docComment: boolean;
}

/** Everything the judge knows about one block; verify's `--json` prints these. */
export interface BlockReport {
  readonly doc: string;
  readonly index: number;
  /** The opening fence's line and column (1-based). */
  readonly line: number;
  readonly column: number;
  readonly lang: string;
  readonly kind: BlockKind;
  readonly names: readonly string[];
  readonly typeOnly: boolean;
  readonly hash: string;
  readonly stamp?: string;
  readonly generated?: { readonly target: string; readonly first: number; readonly last: number };
  readonly checks: BlockChecks;
  /** Rule 5, when the block's chapter has a current mutation record for it: its score and what survives. */
  readonly mutation?: BlockMutation;
  /** What the rules found at this block: errors, and warnings, which do not fail it. */
  readonly problems: readonly Diagnostic[];
}

/** A block's mutation evidence as the docs show it. */
export interface BlockMutation {
  /** Percent of its mutants killed, declared equivalents left out; absent when it has none to count. */
  readonly score?: number;
  readonly killed: number;
  readonly survived: number;
  readonly equivalent: number;
  /** Of the declared equivalents, those declared under an assumption (`assumes:`). */
  readonly assumed: number;
  /** Each survivor: its Markdown line and column, the mutator, the code it replaces and the replacement. */
  readonly survivors: readonly { readonly line: number; readonly column: number; readonly mutator: string; readonly original: string; readonly replacement: string }[];
}

/** A document's summary line. */
export interface DocumentSummary {
  readonly path: string;
  readonly blocks: number;
  readonly definitions: number;
  readonly typeOnly: number;
  readonly tested: number;
  /** Errors found in its blocks. */
  readonly problems: number;
  /** Warnings found in its blocks; they do not fail verify. */
  readonly warnings: number;
}

/** Rule 5 over the book. */
export interface BookMutation {
  /** The chapters with runtime blocks that have a mutation record file, and those that have none yet. */
  readonly recorded: readonly string[];
  readonly unrecorded: readonly string[];
  /** The book's score over every current record, declared equivalents left out; absent with no mutants recorded. */
  readonly score?: number;
  readonly mutants: number;
  /** The same score counting mutants declared equivalent under an assumption (`assumes:`) as survivors, and how many there are. */
  readonly strictScore?: number;
  readonly assumed: number;
}

/** The book's mutation score as a summary line says it: declared equivalents left out, and, when some are assumptions, the score counting those as survivors too. */
export function describeBookScore(m: Pick<BookMutation, "score" | "mutants" | "strictScore" | "assumed">): string {
  if (m.score === undefined) return "no mutants recorded";
  const strict = m.assumed > 0 && m.strictScore !== undefined ? `; ${m.strictScore.toFixed(1)}% counting the ${m.assumed} declared under an assumption as survivors` : "";
  return `${m.score.toFixed(1)}% of ${m.mutants} mutants killed (declared equivalents left out${strict})`;
}

/** The judge's verdict on the whole project. */
export interface Judgement {
  readonly ok: boolean;
  readonly blocks: readonly BlockReport[];
  readonly documents: readonly DocumentSummary[];
  /** Every problem, errors and warnings, sorted by location; only errors make `ok` false. */
  readonly problems: readonly Diagnostic[];
  readonly mutation: BookMutation;
  /** Rule 4's own findings: which blocks the evidence shows executed, the stamp each was judged with (what `--stamp` and dev write from). */
  readonly tested: TestedFindings;
}

/** Options of a judgement. */
export interface JudgeOptions {
  /** Problems of the whole book the caller found (evidence it could not use). */
  readonly extra?: readonly Diagnostic[];
  /** Run these rules alone (`mutate` needs rule 5 only); the others then pass every block. */
  readonly only?: readonly RuleId[];
}

/** What a rule left out by `only` finds: nothing. */
const notRun: TestedFindings & PinnedFindings = { byBlock: new Map(), global: [], states: new Map(), executed: new Set(), stamps: new Map(), scores: new Map(), survivors: new Map(), recorded: [], unrecorded: [] };

/** Each rule's last findings, with the facts it read for them. */
const lastFindings = new Map<RuleId, { readonly inputs: readonly unknown[]; readonly findings: Findings }>();

/**
 * `rule.check(facts)`, or its last findings when every fact the rule reads is the same object as
 * then: the facts are immutable values a project model hands out once per tangle, so the same
 * objects mean the same answer.
 */
function checkOnce(rule: Rule, facts: Facts): Findings {
  const inputs = rule.reads.map((key) => facts[key]);
  const last = lastFindings.get(rule.id);
  if (last !== undefined && last.inputs.every((input, i) => input === inputs[i])) return last.findings;
  const findings = rule.check(facts);
  lastFindings.set(rule.id, { inputs, findings });
  return findings;
}

/** Runs every rule over `facts`, and builds each block's report and the book's from what they found. */
export function judge(facts: Facts, options: JudgeOptions = {}): Judgement {
  const { extra = [], only } = options;
  const found = new Map<RuleId, Findings>(rules.map((rule) => [rule.id, only === undefined || only.includes(rule.id) ? checkOnce(rule, facts) : notRun]));
  const testedFindings = found.get("tested") as TestedFindings;
  const pinnedFindings = found.get("pinned") as PinnedFindings;
  const fails = (id: RuleId, index: number): boolean => (found.get(id)?.byBlock.get(index) ?? []).some((d) => d.severity === "error" || id === "doc-comment");
  const blocks: BlockReport[] = facts.result.blocks.map((block, index) => {
    const analysis = analysisOf(facts, index);
    const problems = rules.flatMap((rule) => found.get(rule.id)?.byBlock.get(index) ?? []);
    const mutation = blockMutation(block, index, pinnedFindings);
    const stamp = testedFindings.stamps.get(index);
    return {
      doc: block.doc,
      index: block.index,
      line: block.line,
      column: block.column,
      lang: block.lang,
      kind: analysis.kind,
      names: analysis.names,
      typeOnly: analysis.typeOnly,
      hash: facts.hashes[index] ?? "",
      ...(stamp === undefined ? {} : { stamp }),
      ...(analysis.generated === undefined ? {} : { generated: analysis.generated }),
      checks: {
        oneDefinition: !fails("one-definition", index),
        prose: !fails("prose", index),
        compiles: !fails("compiles", index),
        tested: testedFindings.states.get(index) ?? "exempt",
        pinned: !fails("pinned", index),
        order: !fails("order", index),
        docComment: !fails("doc-comment", index),
      },
      ...(mutation === undefined ? {} : { mutation }),
      problems,
    };
  });
  const problems = sortDiagnostics([...extra, ...rules.flatMap((rule) => found.get(rule.id)?.global ?? []), ...blocks.flatMap((b) => b.problems)]);
  const documents = facts.result.documents.map((d) => summarize(d.path, blocks.filter((b) => b.doc === d.path)));
  return {
    ok: problems.every((p) => p.severity !== "error"),
    blocks,
    documents,
    problems,
    mutation: { recorded: pinnedFindings.recorded, unrecorded: pinnedFindings.unrecorded, ...bookScore(pinnedFindings) },
    tested: testedFindings,
  };
}

/**
 * Does now the judging work that needs neither a type-check nor test evidence: every rule that
 * reads neither, over the model's current tangle, and the book's runnables rule 4 will hold the
 * evidence against. A later `judge` of the same tangle then finds those findings made (`npm run
 * dev` calls this while its type-check runs in another process).
 */
export function judgeAhead(model: ProjectModel, known: Pick<Facts, "inProgram" | "records">): void {
  // Stand-ins for the two facts not known yet, which no rule run here reads (a rule reads only
  // the facts it declares: the judge's tests hold every rule to that).
  const pending = new Set<keyof Facts>(["checked", "tests"]);
  const facts = factsOf(model, { ...known, checked: { compiler: "native", diagnostics: [], milliseconds: 0 }, tests: { evidence: undefined, scope: new Set(), refresh: "", absent: () => [] } });
  for (const rule of rules) if (!rule.reads.some((key) => pending.has(key))) checkOnce(rule, facts);
  facts.runnables();
}

/** The facts a project model holds (the tangle, hashes, syntax trees, definition analyses), with what only the caller knows. */
export function factsOf(model: ProjectModel, known: Pick<Facts, "checked" | "inProgram" | "tests" | "records">): Facts {
  if (model.scan !== "remark") throw new Error("the judge needs a model scanned with remark: rule 2 reads the prose before each block");
  const result = model.tangle();
  const { analyses, diagnostics } = model.derived(definitionAnalyses);
  return { result, hashes: model.hashes(), analyses, definitionProblems: diagnostics, sources: model.derived(targetTrees), runnables: () => model.derived(bookRunnables), ...known };
}

function blockMutation(block: LiterateBlock, index: number, found: PinnedFindings): BlockMutation | undefined {
  const scored = found.scores.get(index);
  if (scored === undefined) return undefined;
  return {
    ...(scored.score === undefined ? {} : { score: scored.score }),
    killed: scored.detected,
    survived: scored.survived,
    equivalent: scored.equivalent,
    assumed: scored.assumed,
    survivors: (found.survivors.get(index) ?? []).map((m) => ({ line: block.line + m.line, column: m.column, mutator: m.mutator, original: spanText(block.lines, block.columnShift, m), replacement: m.replacement })),
  };
}

/** The book's mutation score: killed over killed plus surviving, over every current record. */
function bookScore(found: PinnedFindings): Omit<BookMutation, "recorded" | "unrecorded"> {
  let killed = 0;
  let mutants = 0;
  let assumed = 0;
  for (const s of found.scores.values()) {
    killed += s.detected;
    mutants += s.detected + s.survived;
    assumed += s.assumed;
  }
  return mutants === 0 ? { mutants, assumed } : { score: (100 * killed) / mutants, mutants, strictScore: (100 * killed) / (mutants + assumed), assumed };
}

function summarize(path: string, blocks: readonly BlockReport[]): DocumentSummary {
  const definitions = blocks.filter((b) => b.kind === "definition" || b.kind === "fragment");
  return {
    path,
    blocks: blocks.length,
    definitions: definitions.length,
    typeOnly: definitions.filter((b) => b.typeOnly).length,
    tested: blocks.filter((b) => b.checks.tested === "tested").length,
    problems: blocks.reduce((n, b) => n + b.problems.filter((p) => p.severity === "error").length, 0),
    warnings: blocks.reduce((n, b) => n + b.problems.filter((p) => p.severity === "warning").length, 0),
  };
}
