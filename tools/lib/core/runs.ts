/**
 * Rule 4, "tested", part by part: a block counts as run only when every function it defines
 * ran, and a block that defines a value with no function in it only when code that ran read it.
 *
 * Coverage alone cannot say this: it knows functions and statements, not blocks, and a module
 * that loads runs every top-level statement, so a constant nothing reads looks executed. The
 * syntax trees of the tangled files can: they say which functions each block defines and where
 * each value is referred to; the coverage then says, for each, whether it ran.
 *
 * Functions are matched to the coverage's functions by Markdown line (coverage columns pass
 * through two source maps and are approximate; lines are exact), in column order when a line
 * holds several. A function with no coverage entry never ran: V8 reports every function of a
 * loaded module, except those inside a function that never ran.
 *
 * A reference to a value is an identifier naming it in a tangled file: in the module that
 * declares it, or in a file that imports it under that name (renamed imports and `ns.name`
 * through a namespace import included); names in types, declarations, property keys and
 * `export { … }` lists are not reads. In a covered file (generated/, test helpers) a reference
 * counts when the function around it ran and the innermost statement on its line ran. Vitest
 * never covers a test file (its own exclusion, which configuration cannot lift), so there a
 * reference counts when the run ran the file and it is not inside a `.skip` or `.todo` call: the
 * run passed, so its tests ran; a helper in a test file nobody calls is the gap. Resolution is by name,
 * without a type checker: a local variable that shadows a module's constant is taken for it, a
 * risk the book's naming makes small and the speed (one walk over trees already parsed) pays for.
 */
import ts from "typescript";
import type { DocumentEvidence, TestEvidence } from "./evidence.ts";
import type { TangleResult, TangledTarget } from "./tangle.ts";
import { isTypeScriptPath } from "./paths.ts";
import { pushAt, valueAt } from "./maps.ts";

/** A place in a Markdown document: 1-based line, 0-based column (as istanbul counts). */
interface Place {
  readonly block: number;
  readonly doc: string;
  readonly line: number;
  readonly column: number;
}

/** A function a block defines. */
export interface BlockFunction extends Place {
  /** How the problem line names it: "the method `foo`", "the callback passed to `xs.map`". */
  readonly description: string;
  /** The function it is nested in (index into the list), or -1. */
  readonly parent: number;
  /** Where its body starts. */
  readonly body: { readonly line: number; readonly column: number };
}

/** An identifier that reads a value some block declares. */
interface Reference extends Place {
  /** The blocks the name may mean. */
  readonly blocks: readonly number[];
  /** The function it is in (index into the function list), or -1 at a module's top level. */
  readonly within: number;
  /** The tangled file it is in. */
  readonly target: string;
  /** True inside a call to `….skip(…)` or `….todo(…)`: a test the run skips. */
  readonly skipped: boolean;
}

/** What the tangled files say can run: every function, and every read of a value block. */
export interface Runnables {
  readonly functions: readonly BlockFunction[];
  readonly references: readonly Reference[];
  /** What each value block declares, for its problem line: "constant", "variable", "class", "enum". */
  readonly kinds: ReadonlyMap<number, { readonly kind: string; readonly line: number }>;
}

/** A value block: a runtime definition with no function of its own, and the names it declares. */
export interface ValueBlock {
  readonly block: number;
  readonly names: readonly string[];
}

/**
 * Parses every TypeScript target once; verify shares the trees between rule 1 and rule 4. A tree
 * in `reuse` (an earlier parse) is taken as it is when its text is the target's content.
 */
export function parseTargets(result: TangleResult, reuse?: ReadonlyMap<string, ts.SourceFile>): Map<string, ts.SourceFile> {
  const sources = new Map<string, ts.SourceFile>();
  for (const target of result.targets) {
    if (!isTypeScriptPath(target.path)) continue;
    const known = reuse?.get(target.path);
    sources.set(target.path, known !== undefined && known.text === target.content ? known : ts.createSourceFile(target.path, target.content, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
  }
  return sources;
}

/** Walks every tangled TypeScript file once, collecting functions and the reads of `values`. */
export function findRunnables(result: TangleResult, sources: ReadonlyMap<string, ts.SourceFile>, values: readonly ValueBlock[]): Runnables {
  const functions: BlockFunction[] = [];
  const references: Reference[] = [];
  const kinds = new Map<number, { kind: string; line: number }>();
  const valueBlocks = new Set(values.map((v) => v.block));
  const byName = new Map<string, number[]>();
  for (const v of values) for (const name of v.names) pushAt(byName, name, v.block);
  const targetOf = (block: number): string | undefined => result.placements[block]?.target;
  for (const target of result.targets) {
    const source = sources.get(target.path);
    if (source === undefined) continue;
    const place = (at: number): Place | undefined => placeOf(result, target, source, at);
    const { aliases, namespaces } = importsOf(source);
    for (const statement of source.statements) {
      const at = place(statement.getStart(source));
      if (at === undefined || !valueBlocks.has(at.block) || kinds.has(at.block)) continue;
      const name = ts.isVariableStatement(statement) ? statement.declarationList.declarations[0]?.name : (statement as ts.Node & { readonly name?: ts.Node }).name;
      const line = name === undefined ? at : place(name.getStart(source));
      kinds.set(at.block, { kind: kindOf(statement), line: line?.line ?? at.line });
    }
    // In the declaring module a name means its own block; elsewhere, the blocks it is imported from.
    const meaning = (name: string): number[] => {
      const own = (byName.get(name) ?? []).filter((b) => targetOf(b) === target.path);
      if (own.length > 0) return own;
      const imported = aliases.get(name);
      return imported === undefined ? [] : (byName.get(imported) ?? []).filter((b) => targetOf(b) !== target.path);
    };
    const visit = (node: ts.Node, within: number, skipped: boolean): void => {
      if (isTypeOnly(node)) return;
      if (ts.isCallExpression(node) && /\.(skip|todo)$/.test(node.expression.getText(source))) skipped = true;
      if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
        const at = place(anchorOf(node, source));
        const body = place(node.body.getStart(source)) ?? at;
        if (at !== undefined && body !== undefined) {
          functions.push({ ...at, description: describe(node, source), parent: within, body: { line: body.line, column: body.column } });
          within = functions.length - 1;
        }
      }
      // A read of a name, or of `ns.name` through a namespace import.
      const read = ts.isIdentifier(node) && isRead(node)
        ? { name: node, blocks: meaning(node.text) }
        : ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && namespaces.has(node.expression.text)
          ? { name: node.name, blocks: (byName.get(node.name.text) ?? []).filter((b) => targetOf(b) !== target.path) }
          : undefined;
      const at = read !== undefined && read.blocks.length > 0 ? place(read.name.getStart(source)) : undefined;
      if (read !== undefined && at !== undefined) references.push({ ...at, blocks: read.blocks, within, target: target.path, skipped });
      ts.forEachChild(node, (child) => visit(child, within, skipped));
    };
    visit(source, -1, false);
  }
  return { functions, references, kinds };
}

function kindOf(statement: ts.Statement): string {
  if (ts.isClassDeclaration(statement)) return "class";
  if (ts.isEnumDeclaration(statement)) return "enum";
  if (ts.isVariableStatement(statement)) return (statement.declarationList.flags & ts.NodeFlags.Const) !== 0 ? "constant" : "variable";
  return "value";
}

/** The Markdown place of a position in a tangled file, or undefined on a line tangle wrote itself. */
function placeOf(result: TangleResult, target: TangledTarget, source: ts.SourceFile, at: number): Place | undefined {
  const { line, character } = source.getLineAndCharacterOfPosition(at);
  const block = target.lineBlock[line] ?? -1;
  const doc = result.blocks[block]?.doc;
  if (block < 0 || doc === undefined) return undefined;
  return { block, doc, line: target.lineSource[line] ?? 0, column: character + (target.lineShift[line] ?? 0) };
}

/** A file's value imports: local name → imported name, and the names of namespace imports. */
function importsOf(source: ts.SourceFile): { aliases: Map<string, string>; namespaces: Set<string> } {
  const aliases = new Map<string, string>();
  const namespaces = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const clause = statement.importClause;
    if (clause === undefined || clause.isTypeOnly) continue;
    const bindings = clause.namedBindings;
    if (bindings === undefined) continue;
    if (ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    else for (const el of bindings.elements) if (!el.isTypeOnly) aliases.set(el.name.text, (el.propertyName ?? el.name).text);
  }
  return { aliases, namespaces };
}

/** Nodes whose identifiers never run: types, and the declarations and lists that only name. */
function isTypeOnly(node: ts.Node): boolean {
  if (ts.isExpressionWithTypeArguments(node) && ts.isHeritageClause(node.parent) && node.parent.token === ts.SyntaxKind.ExtendsKeyword && ts.isClassLike(node.parent.parent)) return false;
  return (
    ts.isTypeNode(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isImportDeclaration(node) ||
    ts.isImportEqualsDeclaration(node) ||
    ts.isExportDeclaration(node) ||
    ts.isHeritageClause(node) && node.token === ts.SyntaxKind.ImplementsKeyword ||
    (ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword) ?? false))
  );
}

/** True for an identifier that reads a binding (not a name being declared, nor a property key). */
function isRead(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isShorthandPropertyAssignment(parent)) return parent.name === node;
  if (ts.isPropertyAccessExpression(parent)) return parent.expression === node;
  if (ts.isPropertyAssignment(parent) || ts.isBindingElement(parent)) return parent.initializer === node;
  if (ts.isQualifiedName(parent) || ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent) || ts.isExportAssignment(parent)) return false;
  // Every other node with a `name` declares it (variables, functions, classes, members, parameters…).
  return !("name" in parent && parent.name === node);
}

/** Where coverage puts a function's start: its name when it has one, else its first token. */
function anchorOf(node: ts.SignatureDeclaration, source: ts.SourceFile): number {
  return node.name !== undefined && !ts.isArrowFunction(node) ? node.name.getStart(source) : node.getStart(source);
}

/** How a problem line names a function. */
function describe(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  const nameOf = (n: ts.Node): string => n.getText(source);
  if (ts.isFunctionDeclaration(node)) return `the function \`${node.name === undefined ? "default" : nameOf(node.name)}\``;
  if (ts.isMethodDeclaration(node)) return `the method \`${nameOf(node.name)}\``;
  if (ts.isGetAccessorDeclaration(node)) return `the getter \`${nameOf(node.name)}\``;
  if (ts.isSetAccessorDeclaration(node)) return `the setter \`${nameOf(node.name)}\``;
  if (ts.isConstructorDeclaration(node)) {
    const owner = node.parent.name;
    return owner === undefined ? "the constructor" : `the constructor of \`${nameOf(owner)}\``;
  }
  if (ts.isFunctionExpression(node) && node.name !== undefined) return `the function \`${nameOf(node.name)}\``;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return `the function \`${nameOf(parent.name)}\``;
  if (ts.isPropertyDeclaration(parent)) return `the function in the field \`${nameOf(parent.name)}\``;
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const callee = nameOf(parent.expression).replace(/\s+/g, " ");
    const short = callee.length <= 40 ? callee : ts.isPropertyAccessExpression(parent.expression) ? `….${nameOf(parent.expression.name)}` : `${callee.slice(0, 39)}…`;
    return `the callback passed to \`${short}\``;
  }
  return ts.isArrowFunction(node) ? "the arrow function" : "the function expression";
}

/** Which functions ran and which references were executed, judged by one run's coverage. */
export interface RunVerdicts {
  readonly functionRan: readonly boolean[];
  readonly referenceRan: readonly boolean[];
}

/** Judges every function and reference against the coverage; one pass over each document's maps. */
export function judgeRunnables(evidence: TestEvidence, runnables: Runnables): RunVerdicts {
  const { functions, references } = runnables;
  const functionRan = functions.map(() => false);
  // Per document and line: the functions the trees found and the coverage counted, by column.
  const lines = new Map<string, { ast: number[]; counts: { column: number; count: number }[] }>();
  const keyOf = (doc: string, line: number): string => `${doc}\0${line}`;
  functions.forEach((f, i) => valueAt(lines, keyOf(f.doc, f.line), () => ({ ast: [], counts: [] })).ast.push(i));
  // A declaration start with no source-map segment of its own takes the one before it, maybe on
  // the line above; the body's start is mapped where it is. So a function the declaration lines
  // do not find is looked for by its body.
  const bodies = new Map<string, { column: number; count: number }[]>();
  for (const [doc, data] of evidence.documents) {
    for (const f of data.functions) {
      lines.get(keyOf(doc, f.line))?.counts.push({ column: f.column, count: f.count });
      pushAt(bodies, keyOf(doc, f.body.line), { column: f.body.column, count: f.count });
    }
  }
  for (const { ast, counts } of lines.values()) {
    if (counts.length === 0) {
      for (const fn of ast) {
        const f = functions[fn];
        const found = f === undefined ? undefined : nearest(bodies.get(keyOf(f.doc, f.body.line)) ?? [], f.body.column);
        functionRan[fn] = (found?.count ?? 0) > 0;
      }
      continue;
    }
    ast.sort((a, b) => (functions[a]?.column ?? 0) - (functions[b]?.column ?? 0));
    counts.sort((a, b) => a.column - b.column);
    ast.forEach((fn, k) => {
      const column = functions[fn]?.column ?? 0;
      // Same number on the line: the k-th is the k-th. Otherwise the nearest by column.
      const paired = counts.length === ast.length ? counts[k] : nearest(counts, column);
      functionRan[fn] = (paired?.count ?? 0) > 0;
    });
  }
  // Vitest never covers its test files: a read in one counts when the run ran the file, outside a skipped test.
  const testFiles = new Set(evidence.testFiles);
  const referenceRan = references.map((r) =>
    testFiles.has(r.target) ? !r.skipped : (r.within < 0 || functionRan[r.within] === true) && statementRan(evidence.documents.get(r.doc), r.line, r.column),
  );
  return { functionRan, referenceRan };
}

function nearest<T extends { column: number }>(list: readonly T[], column: number): T | undefined {
  let best: T | undefined;
  for (const item of list) if (best === undefined || Math.abs(item.column - column) < Math.abs(best.column - column)) best = item;
  return best;
}

/**
 * Whether the innermost statement holding a place ran: of the statements that span its line,
 * those that start last (at or before its column, when some on its own line do).
 */
function statementRan(data: DocumentEvidence | undefined, line: number, column: number): boolean {
  if (data === undefined) return false;
  const spanning = data.statements.filter((s) => s.line <= line && line <= s.endLine);
  if (spanning.length === 0) return data.statements.some((s) => s.count > 0);
  const onLine = spanning.filter((s) => s.line === line && s.column <= column);
  const pool = onLine.length > 0 ? onLine : spanning;
  const start = Math.max(...pool.map((s) => s.line * 1e6 + s.column));
  return pool.some((s) => s.line * 1e6 + s.column === start && s.count > 0);
}
