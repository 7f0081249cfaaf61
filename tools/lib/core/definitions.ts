/**
 * Rule 1, "one definition": what each block declares, read from the tangled files.
 *
 * Blocks are analysed where they end up, not one by one: each tangled TypeScript file is parsed
 * once, and every top-level statement (and every class or interface member) is charged to the
 * block its first line came from. So a class assembled from `<<methods>>` counts once, each
 * method block counts once, and a fragment spliced into a function body declares nothing at
 * top level and is judged as part of its parent.
 */
import ts from "typescript";
import { error, type Diagnostic } from "./diagnostics.ts";
import { isTypeScript } from "./document.ts";
import type { TangleResult } from "./tangle.ts";
import { parseTargets } from "./runs.ts";
import { valueAt } from "./maps.ts";

/**
 * What a block is, for the rules:
 * `definition` declares one binding; `preamble` holds only imports/re-exports; `fragment` is
 * spliced inside another definition; `test` is test code; `other` is not TypeScript or not written.
 */
export type BlockKind = "definition" | "preamble" | "fragment" | "test" | "other";

export interface BlockAnalysis {
  readonly kind: BlockKind;
  /** The names it declares (overloads and merged declarations count once). */
  readonly names: readonly string[];
  /** True when everything it declares is a type (interface, type alias, `declare`, interface member). */
  readonly typeOnly: boolean;
  /** Where in its target its lines are: 1-based first and last generated line, when written. */
  readonly generated?: { readonly target: string; readonly first: number; readonly last: number };
}

interface Tally {
  names: Set<string>;
  runtime: boolean;
  preamble: number;
  others: string[];
}

/** Classifies every block and reports rule-1 problems; `sources` are the targets' trees (`parseTargets`), parsed here when not given. */
export function analyzeDefinitions(result: TangleResult, sources: ReadonlyMap<string, ts.SourceFile> = parseTargets(result)): { analyses: BlockAnalysis[]; diagnostics: Diagnostic[] } {
  const tallies = new Map<number, Tally>();
  const tally = (block: number): Tally => valueAt(tallies, block, () => ({ names: new Set(), runtime: false, preamble: 0, others: [] }));
  const testTargets = new Set<string>();
  result.placements.forEach((placement, index) => {
    if (placement !== undefined && placement.parent === -1 && result.blocks[index]?.attrs.test === true) testTargets.add(placement.target);
  });
  const spans = new Map<number, { target: string; first: number; last: number }>();

  for (const target of result.targets) {
    target.lineBlock.forEach((block, line) => {
      if (block >= 0) valueAt(spans, block, () => ({ target: target.path, first: line + 1, last: line + 1 })).last = line + 1;
    });
    const source = sources.get(target.path);
    if (source === undefined || testTargets.has(target.path)) continue;
    const ownerOf = (node: ts.Node): number => target.lineBlock[source.getLineAndCharacterOfPosition(node.getStart(source)).line] ?? -1;
    for (const statement of source.statements) {
      const owner = ownerOf(statement);
      if (owner < 0) continue;
      chargeStatement(statement, tally(owner), source);
      const members = ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) ? statement.members : undefined;
      if (members === undefined) continue;
      for (const member of members) {
        const memberOwner = ownerOf(member);
        if (memberOwner < 0 || memberOwner === owner) continue;
        const t = tally(memberOwner);
        t.names.add(member.name === undefined ? member.getText(source).split("(")[0]?.trim() ?? "member" : member.name.getText(source));
        if (ts.isClassDeclaration(statement)) t.runtime = true;
      }
    }
  }

  const analyses: BlockAnalysis[] = [];
  const diagnostics: Diagnostic[] = [];
  result.blocks.forEach((block, index) => {
    const placement = result.placements[index];
    const span = spans.get(index);
    const push = (kind: BlockKind, names: readonly string[] = [], typeOnly = false): number => analyses.push({ kind, names, typeOnly, ...(span === undefined ? {} : { generated: span }) });
    if (!isTypeScript(block) || block.attrs.noTangle || placement === undefined) {
      push("other");
      return;
    }
    if (block.attrs.test || testTargets.has(placement.target)) {
      push("test");
      return;
    }
    const t = tallies.get(index);
    const names = [...(t?.names ?? [])];
    const at = { file: block.doc, line: block.line, column: block.column };
    const typeOnly = names.length > 0 && t?.runtime === false;
    if (t === undefined || (names.length === 0 && t.others.length === 0 && t.preamble === 0)) {
      if (placement.parent >= 0 && block.lines.some((line) => line.trim() !== "" && !line.trim().startsWith("//"))) push("fragment");
      else {
        push("definition");
        diagnostics.push(error(at, "one-definition", "block declares nothing", "a definition block declares one function, class, interface, type, enum or `const`; mark an illustration `no-tangle`"));
      }
      return;
    }
    if (names.length === 0 && t.others.length === 0) {
      push("preamble", [], true);
      return;
    }
    push("definition", names, typeOnly);
    if (names.length > 1) {
      diagnostics.push(error(at, "one-definition", `block declares ${names.length} definitions (${names.map((n) => `\`${n}\``).join(", ")})`, "split it into one block per definition, each with its own prose"));
    }
    if (t.others.length > 0) {
      diagnostics.push(error(at, "one-definition", `block holds a top-level statement that is not a definition (\`${t.others[0]}\`)`, "move it into a function or a test block; top-level statements run on import"));
    }
  });
  return { analyses, diagnostics };
}

/** Adds what one top-level statement declares to a block's tally. */
function chargeStatement(statement: ts.Statement, t: Tally, source: ts.SourceFile): void {
  if (ts.isImportDeclaration(statement) || ts.isImportEqualsDeclaration(statement) || ts.isExportDeclaration(statement) || ts.isEmptyStatement(statement)) {
    t.preamble++;
    return;
  }
  if (ts.isExportAssignment(statement)) {
    if (ts.isIdentifier(statement.expression)) t.preamble++;
    else t.others.push(firstLine(statement, source));
    return;
  }
  const declared = ts.canHaveModifiers(statement) && (ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword) ?? false);
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
    t.names.add(statement.name.text);
    return;
  }
  if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement) || ts.isModuleDeclaration(statement)) {
    t.names.add(statement.name?.getText(source) ?? "default");
    if (!declared) t.runtime = true;
    return;
  }
  if (ts.isVariableStatement(statement)) {
    for (const declaration of statement.declarationList.declarations) t.names.add(declaration.name.getText(source));
    if (!declared) t.runtime = true;
    return;
  }
  t.others.push(firstLine(statement, source));
}

function firstLine(node: ts.Node, source: ts.SourceFile): string {
  const text = node.getText(source).split("\n")[0] ?? "";
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
