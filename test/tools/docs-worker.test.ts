// `docs --worker`, the docs builder `npm run dev` keeps alive: a real child process over IPC,
// building a one-chapter project once per request.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { WorkerReply, WorkerRequest } from "../../tools/lib/docs/command.ts";
import { childEnvironment, runProcess } from "./support.ts";
import { Project, edit, launcher } from "./verify-project.ts";

const fence = "```";

const chapter = [
  "# Doubling",
  "",
  "Doubling is what this chapter is about.",
  "",
  `${fence}ts file=generated/a.ts`,
  "/** Twice `n`. */",
  "export function double(n: number): number {",
  "  return n * 2;",
  "}",
  fence,
  "",
].join("\n");

const other = ["# Using it", "", "It uses the doubling.", "", `${fence}ts file=generated/b.ts`, 'import { double } from "./a.ts";', "", "/** Four. */", "export const four = double(2);", fence, ""].join("\n");

describe("docs --worker", () => {
  const project = new Project({ "literate/a.md": chapter, "literate/b.md": other });
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill();
    project.remove();
  });

  it("refuses to start without a parent to talk to, and says who starts it", async () => {
    const run = await runProcess(process.execPath, [launcher, "docs", "--worker", "--root", project.root, "--no-api"], project.root);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("--worker needs a parent process that talks to it over IPC (`npm run dev` starts it)");
  });

  it("builds on each request, the second resolving only the changed file's identifiers, and names the pages it rendered", async () => {
    const site = join(project.root, "site");
    child = spawn(process.execPath, [launcher, "docs", "--worker", "--root", project.root, "--out", site, "--no-api"], { cwd: project.root, env: childEnvironment(), stdio: ["ignore", "pipe", "pipe", "ipc"] });
    const worker = child;
    const build = (request: WorkerRequest): Promise<WorkerReply> =>
      new Promise((resolve) => {
        worker.once("message", (reply: WorkerReply) => resolve(reply));
        worker.send(request);
      });
    // The build verifies the project in-process, which reads the tangled files.
    const tangle = (): Promise<unknown> => runProcess(process.execPath, [launcher, "tangle", "--root", project.root], project.root);
    await tangle();
    const first = await build({ id: 0 });
    expect(first.code, first.output).toBe(0);
    expect(first.output).toMatch(/docs: cross-references: \d+ identifiers, \d+ symbols, one program, \d+ ms\n/);
    expect(first.rendered).toContain("chapters/a.html");

    project.write("literate/a.md", edit(chapter, "  return n * 2;", "  // a comment the page must show\n  return n * 2;"));
    await tangle();
    const second = await build({ id: 1 });
    expect(second.id).toBe(1);
    expect(second.code, second.output).toBe(0);
    expect(second.output).toContain("(the changed files only)");
    expect(second.rendered).toContain("chapters/a.html");
    expect(readFileSync(join(site, "chapters", "a.html"), "utf8")).toContain("a comment the page must show");
    // The other chapter's use of `double`, kept from the first build, still links to its block.
    expect(readFileSync(join(site, "chapters", "b.html"), "utf8")).toContain("a.html#block-0");

    const exact = await build({ id: 2, exact: true });
    expect(exact.code, exact.output).toBe(0);
    expect(exact.output).not.toContain("(the changed files only)");
  }, 180_000);
});

describe("docs --warm", () => {
  const project = new Project({ "literate/a.md": chapter, "literate/b.md": other });
  afterAll(() => project.remove());

  it("fills the caches without writing a site, so the next build takes its cross-references from them", async () => {
    await runProcess(process.execPath, [launcher, "tangle", "--root", project.root], project.root);
    const warm = await runProcess(process.execPath, [launcher, "docs", "--warm", "--root", project.root, "--no-api"], project.root);
    expect(warm.status, warm.stderr).toBe(0);
    expect(warm.stdout).toMatch(/^docs: caches under \.cache\/docs warmed in \d+ ms\n$/);
    expect(existsSync(join(project.root, "site"))).toBe(false);
    expect(readdirSync(join(project.root, ".cache", "docs")).filter((name) => name.startsWith("xref-"))).toHaveLength(1);

    const build = await runProcess(process.execPath, [launcher, "docs", "--root", project.root, "--no-api"], project.root);
    expect(build.status, build.stderr).toBe(0);
    expect(build.stdout).toMatch(/docs: cross-references: .* \(cached for these sources\)\n/);
    expect(readFileSync(join(project.root, "site", "chapters", "a.html"), "utf8")).toContain("Doubling is what this chapter is about.");
  });

  it("refuses the flags of a site it does not write, and names them", async () => {
    const run = await runProcess(process.execPath, [launcher, "docs", "--warm", "--root", project.root, "--out", join(project.root, "elsewhere"), "--no-cache"], project.root);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("docs: --warm writes no site and reads no report, so it takes no --out, --no-cache");
    expect(existsSync(join(project.root, "elsewhere"))).toBe(false);
  });
});
