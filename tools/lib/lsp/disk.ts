/**
 * What the language server reads from the disk, read the way verify reads it: the documents of
 * `literate/`, and the evidence besides them (the program `tsconfig.json` checks, the mutation
 * records, the latest test run through `verifyTestFacts`). Only the server's CLI side calls it.
 */
import { join } from "node:path";
import { error, type Diagnostic } from "../core/diagnostics.ts";
import type { TestFacts } from "../rules/judge.ts";
import { readDocuments, readIfExists } from "../disk/io.ts";
import { isTypeScriptPath } from "../core/paths.ts";
import { tangle } from "../core/tangle.ts";
import { programFiles, readRecords, verifyTestFacts } from "../commands/verify.ts";

/** What verify reads from the disk besides the documents, as the judge takes it. */
export interface BookEvidence {
  /** The files of the program `tsconfig.json` checks; `undefined` when unknown. */
  readonly inProgram: ReadonlySet<string> | undefined;
  /** Each chapter's mutation record text. */
  readonly records: ReadonlyMap<string, string | undefined>;
  /** Rule 4's facts as verify reads them (`verifyTestFacts`). */
  readonly tests: TestFacts;
  /** The documents' texts when the evidence was read: the test run speaks only for blocks of documents that still hold theirs. */
  readonly texts: ReadonlyMap<string, string>;
}

/**
 * The evidence verify would judge the book on disk with (its documents tangled), and the
 * book-wide problems it found reading it (no test results, a failed run).
 */
export function readEvidence(root: string): { evidence: BookEvidence; problems: Diagnostic[] } {
  const inputs = readDocuments(root);
  const result = tangle(inputs);
  const texts = new Map(inputs.map((i) => [i.path, i.text]));
  const problems: Diagnostic[] = [];
  let tests: TestFacts;
  try {
    tests = verifyTestFacts(root, result, problems, false);
  } catch (caught) {
    // A tangled file missing on disk (the book was never tangled): verify would refuse to start; here every block is judged by its stamp.
    problems.push(error({ file: "test run", line: 0, column: 0 }, "tested", `the test evidence cannot be weighed: ${caught instanceof Error ? caught.message : String(caught)}`, "run `npm run tangle`, then `npm test`"));
    tests = { evidence: undefined, scope: new Set(), refresh: "`npm run verify -- --stamp`", absent: () => [] };
  }
  return { evidence: { inProgram: programFiles(root), records: readRecords(root, [...texts.keys()]), tests, texts }, problems };
}

/**
 * The project's TypeScript files outside the book (those `tsconfig.json` checks that no document
 * tangles to: `tangled` holds the targets) that import a module of `generated/` and have `name`
 * as a whole word: the files the book's rename of `name` does not edit.
 */
export function filesNamingTheBook(root: string, tangled: ReadonlySet<string>, name: string): string[] {
  const word = new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`);
  return [...programFiles(root)]
    .filter((path) => isTypeScriptPath(path) && !tangled.has(path))
    .sort()
    .filter((path) => {
      const text = readIfExists(join(root, path));
      return text !== undefined && /\bfrom\s+["'][^"']*\bgenerated\//.test(text) && word.test(text);
    });
}
