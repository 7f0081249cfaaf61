// The re-check of recorded kills that `npm test` makes: a random sample of the mutants the
// records in `mutation/` say the tests kill, each put back into a copy of the project and the
// tests that killed it run again (`mutate --sample`). A kill that no longer kills, or a forged
// record, fails here at the mutant's `.md` location. It runs as the CLI runs, in a child process,
// after verify and beside the docs site's browser tests: neither waits for the other.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

/** How many recorded kills each `npm test` re-checks. */
const sampleSize = 8;

/** Runs `node tools/run.cjs ARGS` in the project and resolves to its exit code and output. */
function runTool(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join("tools", "run.cjs"), ...args], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

it(`re-checks ${sampleSize} recorded kills at random, and every one still kills`, async () => {
  const records = readdirSync("mutation").filter((f) => f.endsWith(".json"));
  const { code, output } = await runTool(["mutate", "--sample", String(sampleSize)]);
  process.stdout.write(output);
  expect(code, output).toBe(0);
  expect(output).toMatch(records.length === 0 ? /re-checking 0 recorded kills/ : new RegExp(`mutate: ${sampleSize}/${sampleSize} recorded kills still kill`));
}, 600_000);
