// Source maps carry every generated line back to its Markdown line: in vitest's stack traces,
// and through an esbuild bundle under `node --enable-source-maps`.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { describe, expect, it } from "vitest";
import { RingBuffer } from "../../generated/ring-buffer.ts";
import { encodeVlq } from "../../tools/lib/sourcemap.ts";

const tsx = join(process.cwd(), "node_modules", ".bin", "tsx");

describe("source maps", () => {
  it("make vitest stack traces point at the chapter's Markdown line", () => {
    let stack = "";
    try {
      new RingBuffer(0);
    } catch (caught) {
      stack = (caught as Error).stack ?? "";
    }
    const chapter = readFileSync("literate/conventions.md", "utf8").split("\n");
    const throwLine = chapter.findIndex((line) => line.includes("throw new RangeError")) + 1;
    expect(stack).toContain(`literate/conventions.md:${throwLine}:`);
  });

  it("survive an esbuild bundle, so node --enable-source-maps reports Markdown lines", () => {
    const root = mkdtempSync(join(tmpdir(), "tangle-map-"));
    mkdirSync(join(root, "literate"));
    writeFileSync(join(root, "package.json"), '{"type":"module"}\n');
    const doc = ["---", "tangle: generated/boom.ts", "---", "# Boom", "", "A function that fails.", "", "```ts", "export function boom(): never {", '  throw new Error("boom");', "}", "```", ""].join("\n");
    writeFileSync(join(root, "literate", "boom.md"), doc);
    writeFileSync(join(root, "main.ts"), 'import { boom } from "./generated/boom.ts";\nboom();\n');
    execFileSync(tsx, [join(process.cwd(), "tools", "tangle.ts"), "--root", root, "--quiet"]);
    buildSync({ entryPoints: [join(root, "main.ts")], bundle: true, platform: "node", format: "esm", sourcemap: true, outfile: join(root, "dist", "main.js"), logLevel: "silent" });
    const run = spawnSync(process.execPath, ["--enable-source-maps", join(root, "dist", "main.js")], { encoding: "utf8" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${join(root, "literate", "boom.md")}:10:9`);
  });

  it.each([
    [0, "A"],
    [1, "C"],
    [-1, "D"],
    [15, "e"],
    [16, "gB"],
    [-16, "hB"],
    [1000, "w+B"],
  ])("encodes %i as the base64 VLQ %s", (value, encoded) => {
    expect(encodeVlq(value)).toBe(encoded);
  });
});
