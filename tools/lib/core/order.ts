/**
 * The reading order, checked: a chapter's module may import only from modules that chapters
 * earlier in the book tangle, so a reader never meets a name before the chapter that explains it.
 * Nor may a chapter use a class member a later chapter defines (a method block spliced into the
 * class from further on): `this.name`, and `x.#name` on any instance, are resolved to the member
 * the enclosing class declares, and refused like an import of a later chapter's module.
 *
 * The book's order is the docs site's: front matter `order`, then path; a chapter without
 * `order` comes after every chapter with one (`byChapterOrder`). The import lines are read from
 * the tangled files' syntax trees verify already has, and each is reported at the Markdown line it
 * came from. Type-only imports and re-exports count too; test blocks may import anything. Pure.
 */
import { posix } from "node:path";
import ts from "typescript";
import { error, type Diagnostic } from "./diagnostics.ts";
import { byChapterOrder, type LiterateDocument } from "./document.ts";
import type { TangleResult } from "./tangle.ts";
import { pushAt } from "./maps.ts";

/** A block verify does not hold to the reading order: a test block, or one that is not TypeScript code written to a target. */
export type ExemptBlock = (index: number) => boolean;

/**
 * One problem per import (or `export … from`) of a later chapter's module, keyed by the global
 * index of the block the import line is in. `exempt` names the blocks whose imports are not checked.
 */
export function readingOrderProblems(result: TangleResult, sources: ReadonlyMap<string, ts.SourceFile>, exempt: ExemptBlock): Map<number, Diagnostic[]> {
  const documents = new Map(result.documents.map((d) => [d.path, d]));
  const rank = new Map([...result.documents].sort(byChapterOrder).map((d, i) => [d.path, i]));
  const writers = writersOf(result);
  const problems = new Map<number, Diagnostic[]>();
  for (const target of result.targets) {
    const source = sources.get(target.path);
    if (source === undefined) continue;
    for (const statement of source.statements) {
      const specifier = importedSpecifier(statement);
      if (specifier === undefined || !specifier.startsWith(".")) continue;
      const start: ts.LineAndCharacter = source.getLineAndCharacterOfPosition(statement.getStart(source));
      const block = target.lineBlock[start.line] ?? -1;
      const importer = result.blocks[block]?.doc;
      if (block < 0 || importer === undefined || exempt(block)) continue;
      const path = posix.normalize(posix.join(posix.dirname(target.path), specifier));
      // `./a.ts`, and the spellings that name the same file: `./a.js`, `./a`.
      const imported = [path, path.replace(/\.(c|m)?js$/, ".$1ts"), `${path}.ts`].find((candidate) => writers.has(candidate));
      if (imported === undefined) continue;
      const ownRank = rank.get(importer) ?? -1;
      // The module is complete only once the last chapter writing into it has been read.
      const later = [...(writers.get(imported) ?? [])].filter((doc) => doc !== importer && (rank.get(doc) ?? -1) > ownRank).sort((a, b) => (rank.get(b) ?? 0) - (rank.get(a) ?? 0))[0];
      if (later === undefined) continue;
      const at = { file: importer, line: target.lineSource[start.line] ?? 0, column: start.character + 1 + (target.lineShift[start.line] ?? 0) };
      pushAt(
        problems,
        block,
        error(
          at,
          "order",
          `imports \`${specifier}\` from \`${later}\` (${describeOrder(documents.get(later))}), which comes later in the book (this chapter is ${describeOrder(documents.get(importer))}${documents.get(later)?.frontMatter.order === documents.get(importer)?.frontMatter.order ? ", and sorts first by path" : ""})`,
          `move what this chapter needs from \`${later}\` into a chapter before this one, or change the chapters' \`order\` so \`${later}\` comes first`,
        ),
      );
    }
    // One problem per use of a class member defined in a chapter later than the using block's: a
    // `this.name` or `x.#name` inside a class whose own member `name` (or `#name`) is written by a
    // block of a later chapter. Only what the syntax resolves is judged: a member the class itself
    // declares, reached through `this` or by its private name.
    const blockAt = (position: number): number => target.lineBlock[source.getLineAndCharacterOfPosition(position).line] ?? -1;
    const visit = (node: ts.Node, members: ReadonlyMap<string, number> | undefined): void => {
      let inside = members;
      if (ts.isClassLike(node)) {
        const own = new Map<string, number>();
        for (const member of node.members) if (member.name !== undefined && (ts.isIdentifier(member.name) || ts.isPrivateIdentifier(member.name))) own.set(member.name.text, blockAt(member.getStart(source)));
        inside = own;
      }
      if (inside !== undefined && ts.isPropertyAccessExpression(node) && (ts.isPrivateIdentifier(node.name) || node.expression.kind === ts.SyntaxKind.ThisKeyword)) {
        const defined = inside.get(node.name.text) ?? -1;
        const user = blockAt(node.name.getStart(source));
        const definer = result.blocks[defined]?.doc;
        const reader = result.blocks[user]?.doc;
        if (definer !== undefined && reader !== undefined && definer !== reader && !exempt(user) && (rank.get(definer) ?? -1) > (rank.get(reader) ?? -1)) {
          const start = source.getLineAndCharacterOfPosition(node.name.getStart(source));
          const at = { file: reader, line: target.lineSource[start.line] ?? 0, column: start.character + 1 + (target.lineShift[start.line] ?? 0) };
          pushAt(
            problems,
            user,
            error(
              at,
              "order",
              `uses \`${node.name.text}\`, a member \`${definer}\` (${describeOrder(documents.get(definer))}) defines, which comes later in the book (this chapter is ${describeOrder(documents.get(reader))})`,
              `move the block of \`${node.name.text}\` into this chapter or one before it, or change the chapters' \`order\` so \`${definer}\` comes first`,
            ),
          );
        }
      }
      ts.forEachChild(node, (child) => visit(child, inside));
    };
    visit(source, undefined);
  }
  return problems;
}

/** The module an `import … from` or `export … from` statement names; undefined for any other statement. */
function importedSpecifier(statement: ts.Statement): string | undefined {
  const specifier = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
  return specifier !== undefined && ts.isStringLiteral(specifier) ? specifier.text : undefined;
}

/** For each target, the documents whose blocks are written into it (spliced blocks included). */
function writersOf(result: TangleResult): Map<string, Set<string>> {
  return new Map(result.targets.map((target) => [target.path, new Set(target.lineBlock.flatMap((block) => result.blocks[block]?.doc ?? []))]));
}

function describeOrder(doc: LiterateDocument | undefined): string {
  const order = doc?.frontMatter.order;
  return order === undefined ? "no `order`" : `order ${order}`;
}
