/**
 * The code lenses over each block: `compiles ✓ · tested by N · mutants 97%`, read from the one
 * judge's report of the block (`BlockReport`): whether it compiles, rule 4's state, and rule 5's
 * score. "Tested by N" counts the test blocks whose code refers to what the block defines,
 * found by TypeScript's references when the editor asks for that lens (`testedBy`). Pure.
 */
import ts from "typescript";
import type { BlockReport, Judgement, TestedState } from "../rules/judge.ts";
import type { Book, BookRange } from "./book.ts";
import { places } from "./features.ts";

/** One lens: where it stands, its title, and what resolving it needs. */
export interface Lens {
  readonly range: BookRange;
  readonly title: string;
  /** What the lens names: the block's problems, the tests that refer to it (its title then is rule 4's state), or its mutation record. */
  readonly names: "problems" | "tests" | "mutants";
  readonly block: number;
}

/** The lenses of `doc`'s blocks that the judge reports on (definitions and their test blocks). */
export function lenses(judgement: Judgement, doc: string): Lens[] {
  return judgement.blocks.flatMap((report, index) => {
    if (report.doc !== doc || report.kind === "other") return [];
    const range: BookRange = { doc, start: { line: report.line - 1, character: 0 }, end: { line: report.line - 1, character: 3 } };
    const errors = report.problems.filter((p) => p.severity === "error");
    const out: Lens[] = [{ range, block: index, names: "problems", title: report.checks.compiles ? "compiles ✓" : `compiles ✗ (${errors.filter((p) => p.rule === "compiles").length})` }];
    if (report.checks.tested !== "exempt") {
      out.push({ range, block: index, names: "tests", title: testedTitles[report.checks.tested] });
      out.push({ range, block: index, names: "mutants", title: mutantsTitle(report) });
    }
    return out;
  });
}

/** Rule 4's state, as the lens says it after the count of tests: empty when the block is tested. */
const testedTitles: Readonly<Record<TestedState, string>> = { tested: "", unstamped: "not stamped", stale: "stamp stale", untested: "untested", exempt: "untested" };

/** Rule 5's verdict: the score of a current record, or why there is none. */
function mutantsTitle(report: BlockReport): string {
  const score = report.mutation?.score;
  if (score !== undefined) return `mutants ${Math.floor(score)}%${report.checks.pinned ? "" : " ✗"}`;
  if (report.mutation !== undefined) return "mutants: none to count";
  return report.checks.pinned ? "mutants: no record" : "mutants: record stale ✗";
}

/** The test blocks whose code refers to a name block `index` defines, as Markdown ranges of the references. */
export function testedBy(book: Book, judgement: Judgement, index: number): BookRange[] {
  const report = judgement.blocks[index];
  const { result } = book.tangled();
  const target = result.placements[index]?.target;
  if (report === undefined || target === undefined) return [];
  const fileName = book.host.absolute(target);
  const source = book.service.getProgram()?.getSourceFile(fileName);
  if (source === undefined) return [];
  return source.statements.flatMap((statement) => {
    const name = declaredName(statement);
    if (name === undefined || !report.names.includes(name.text)) return [];
    const refs = (book.service.getReferencesAtPosition(fileName, name.getStart(source)) ?? []).filter((ref) => /\.test\.(c|m)?tsx?$/.test(book.host.tangledPath(ref.fileName) ?? ""));
    return places(book, refs).flatMap((place) => (place.kind === "book" ? [place.range] : []));
  });
}

/** The number of distinct test blocks among `refs`. */
export function testBlockCount(book: Book, refs: readonly BookRange[]): number {
  const map = book.tangled();
  return new Set(refs.map((r) => `${r.doc}#${map.blockAt(r.doc, r.start.line) ?? -1}`)).size;
}

/** The name a top-level statement declares, if it declares exactly one. */
function declaredName(statement: ts.Statement): ts.Identifier | undefined {
  if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name !== undefined) return statement.name;
  if (ts.isVariableStatement(statement)) {
    const first = statement.declarationList.declarations[0];
    if (first !== undefined && ts.isIdentifier(first.name)) return first.name;
  }
  return undefined;
}
