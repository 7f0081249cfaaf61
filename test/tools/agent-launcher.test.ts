// The agent's launcher, bin/passepartout.js, on a copy of this repository's bin/, generated/ and
// build script in the temp folder: it starts from a bundle of generated/, and a changed generated/
// (a re-tangle) is bundled anew before the next start, never run stale.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "./support.ts";

afterAll(removeTempDirs);

interface Outcome {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** A copy of what the launcher needs: bin/, generated/, the `tools` files named, node_modules linked. */
function repositoryCopy(tools: readonly string[] = ["build.js", "stack-map.cjs"]): string {
  const repo = tempDir("agent-launcher-");
  for (const part of ["bin", "generated", "package.json"]) cpSync(join(process.cwd(), part), join(repo, part), { recursive: true });
  mkdirSync(join(repo, "tools"));
  for (const file of tools) cpSync(join(process.cwd(), "tools", file), join(repo, "tools", file));
  symlinkSync(join(process.cwd(), "node_modules"), join(repo, "node_modules"), "dir");
  return repo;
}

describe("the agent's launcher, bin/passepartout.js", { timeout: 120_000 }, () => {
  it("starts the command from a bundle of generated/, bundled anew when generated/ changes", async ({ expect }) => {
    const repo = repositoryCopy();
    const launcher = join(repo, "bin", "passepartout.js");
    const first = await run(process.execPath, [launcher, "--help"]);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain("usage: passepartout <command>");
    expect(readdirSync(join(repo, ".cache", "agent"))).toHaveLength(1);
    // A re-tangle that changes the command's usage text.
    const cli = join(repo, "generated", "cli.ts");
    writeFileSync(cli, readFileSync(cli, "utf8").replace("usage: passepartout <command>", "usage: passepartout COMMAND"));
    const second = await run(process.execPath, [launcher, "--help"]);
    expect(second).toMatchObject({ status: 0, stderr: "" });
    expect(second.stdout).toContain("usage: passepartout COMMAND");
    const bundles = readdirSync(join(repo, ".cache", "agent"));
    expect(bundles).toHaveLength(2);
    expect(bundles.every((key) => existsSync(join(repo, ".cache", "agent", key, "cli.js")))).toBe(true);
  });

  it("runs the TypeScript through tsx when no bundle can be made", async ({ expect }) => {
    // No bundler here: an install without the dev dependencies, as far as the launcher can tell.
    const repo = repositoryCopy(["stack-map.cjs"]);
    const run1 = await run(process.execPath, [join(repo, "bin", "passepartout.js"), "--help"]);
    expect(run1).toMatchObject({ status: 0, stderr: "" });
    expect(run1.stdout).toContain("usage: passepartout <command>");
    expect(existsSync(join(repo, ".cache", "agent"))).toBe(false);
  });
});
