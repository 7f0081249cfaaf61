// The language server says what verify says: a book with one chapter per broken rule (one
// definition, prose, compiles, reading order, doc comment, and no test results for any block),
// judged by verify (in this process, as its CLI runs it) and by the server (a child process, the
// chapters opened in it as an editor opens them). For every chapter, the problems the server
// publishes (rule, line, column, message) are exactly the ones verify reports there.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyProject, type VerifyReport } from "../../tools/lib/commands/verify.ts";
import { BookClient } from "./lsp-client.ts";
import { Project } from "./verify-project.ts";

const fence = "```";

/** A chapter writing `generated/NAME.ts` at `order` in the book. */
function chapter(name: string, order: number, ...body: string[]): string {
  return ["---", `tangle: generated/${name}.ts`, `test: test/${name}.test.ts`, `order: ${order}`, "---", `# ${name}`, "", ...body, ""].join("\n");
}

/** A code block with its prose before it. */
const block = (prose: string, ...code: string[]): string[] => [prose, "", `${fence}ts`, ...code, fence, ""];

/** The book: each chapter breaks the rule it is named after (`ok` and `late` break none of their own). */
const book: Record<string, string> = {
  ok: chapter("ok", 1, ...block("Adds one, the smallest step there is.", "export function ok(n: number): number {", "  return n + 1;", "}")),
  two: chapter("two", 2, ...block("Two functions where one belongs.", "export function a(): number {", "  return 1;", "}", "export function b(): number {", "  return 2;", "}")),
  prose: chapter("prose", 3, ...block("The first step.", "export function first(): number {", "  return 1;", "}"), `${fence}ts`, "export function second(): number {", "  return 2;", "}", fence, ""),
  typed: chapter("typed", 4, ...block("A number said to be a string.", "export function typed(n: number): string {", "  return n + 1;", "}")),
  early: chapter("early", 6, ...block("What comes later in the book, needed early.", 'import { late } from "./late.ts";'), ...block("One past the late value.", "export function early(): number {", "  return late() + 1;", "}")),
  late: chapter("late", 7, ...block("The late value.", "export function late(): number {", "  return 1;", "}")),
  repeat: chapter(
    "repeat",
    8,
    ...block("Triples the given number: multiplies the given number by three and returns the tripled number.", "/** Triples the given number: multiplies the given number by three and returns the tripled number. */", "export function triple(n: number): number {", "  return n * 3;", "}"),
  ),
};

/** A problem as both sides can say it. */
const said = (rule: string, line: number, column: number, message: string): string => `${rule} ${line}:${column} ${message}`;

describe("the language server's diagnostics and verify's verdicts on a book that breaks every rule", () => {
  let project: Project;
  let client: BookClient;
  let report: VerifyReport;

  beforeAll(async () => {
    project = new Project(Object.fromEntries(Object.entries(book).map(([name, text]) => [`literate/${name}.md`, text])));
    project.tangleNow();
    report = verifyProject({ root: project.root });
    client = await BookClient.start(project.root);
    for (const name of Object.keys(book)) await client.open(`literate/${name}.md`, readFileSync(join(project.root, `literate/${name}.md`), "utf8"));
    await client.waitForDiagnostics(`literate/${Object.keys(book).at(-1) ?? ""}.md`);
    // The judge's verdict follows the type errors (under load, by more than any quiet spell: wait
    // for the server to say it published it); then the server is quiet.
    await client.waitForLog(/the judge's verdict published/, 120_000, 0);
    await client.quiet(1500);
  }, 120_000);
  afterAll(async () => {
    await client.stop();
    project.remove();
  });

  it("has verify find each chapter's own fault (the fixture breaks what it says)", () => {
    const rules = (name: string): string[] => [...new Set(report.problems.filter((p) => p.file === `literate/${name}.md` && p.rule !== "tested").map((p) => p.rule))].sort();
    expect(Object.fromEntries(Object.keys(book).map((name) => [name, rules(name)]))).toEqual({ ok: [], two: ["one-definition"], prose: ["prose"], typed: ["compiles"], early: ["order"], late: [], repeat: ["doc-comment"] });
  });

  it.each(Object.keys(book))("publishes in %s exactly the problems verify reports there", (name) => {
    const doc = `literate/${name}.md`;
    const fromVerify = report.problems.filter((p) => p.file === doc).map((p) => said(p.rule, p.line, p.column, p.message));
    const fromServer = (client.diagnostics(doc) ?? []).map((d) => said(String(d.code), d.range.start.line + 1, d.range.start.character + 1, (typeof d.message === "string" ? d.message : d.message.value).split("\nhint: ")[0] ?? ""));
    expect(fromServer.sort()).toEqual(fromVerify.sort());
  });
});
