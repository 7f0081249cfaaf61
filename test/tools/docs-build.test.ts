// The whole docs build on a small project in a temporary folder under bench/.corpus (so that
// `node_modules` resolves from this project): the failure paths a reader of the site relies on.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocs, type DocsResult } from "../../tools/lib/docs/build.ts";
import { runTangle } from "../../tools/lib/tangle-run.ts";

const fence = "```";
const root = join(process.cwd(), "bench", ".corpus", `docs-build-test-${process.pid}`);
const doc = `---\ntangle: generated/index.ts\n---\n# Index\n\nThe public entry.\n\n${fence}ts\n/** A documented constant. */\nexport const documented = 1;\n${fence}\n\nAn export nobody documented.\n\n${fence}ts\nexport function undocumented(): number {\n  return documented;\n}\n${fence}\n`;
let result: DocsResult;
let cold: DocsResult;
let coldPage: string;

beforeAll(async () => {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, "literate"), { recursive: true });
  const project = JSON.parse(readFileSync("tsconfig.json", "utf8")) as { compilerOptions: Record<string, unknown> };
  writeFileSync(join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...project.compilerOptions, types: [] }, include: ["generated"] }));
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "docs-build-test", private: true, type: "module" }));
  writeFileSync(join(root, "literate", "index.md"), doc);
  runTangle({ root });
  cold = await buildDocs({ root, out: join(root, "site"), cache: false });
  coldPage = readFileSync(join(root, "site", "chapters", "index.html"), "utf8");
  await buildDocs({ root, out: join(root, "site") });
  result = await buildDocs({ root, out: join(root, "site") });
}, 180_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the docs build", () => {
  it("fails on an undocumented export of the public entry, at the chapter's block", () => {
    expect(cold.ok).toBe(false);
    const problem = cold.problems.find((p) => p.rule === "api");
    expect(problem?.message).toContain("undocumented");
    expect([problem?.file, problem?.line]).toEqual(["literate/index.md", 15]);
  });

  it("gives the same verdict and pages from its caches, reading them instead of recomputing", () => {
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual(cold.problems);
    expect(result.cached.steps).toEqual(["verify", "xref", "api"]);
    expect(result.cached.highlightedFromCache).toBe(result.cached.highlighted);
    expect(result.cached.pages).toBe(result.pages - 1); // all but the index, which is always rendered
    expect(readFileSync(join(root, "site", "chapters", "index.html"), "utf8")).toBe(coldPage);
  });
});
