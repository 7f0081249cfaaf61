// Source maps, carried inline on a generated file's last line, take every generated line back to
// its Markdown line: in vitest's stack traces, under tsx, and through an esbuild bundle under
// `node --enable-source-maps`.
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { RingBuffer } from "../../generated/ring-buffer.ts";
import { MappingsBuilder, encodeVlq, inlineSourceMapPrefix, readInlineSourceMap, type LineOrigin } from "../../tools/lib/core/sourcemap.ts";
import { runTangle } from "../../tools/lib/commands/tangle-run.ts";
import { decodeMappings, type Segment } from "./support.ts";

const tsx = join(process.cwd(), "node_modules", ".bin", "tsx");

const projects: string[] = [];
afterAll(() => {
  for (const root of projects) rmSync(root, { recursive: true, force: true });
});

/** A temp project whose `main.ts` calls `boom()` of literate/boom.md, which throws at line 10, column 9, tangled (in this process: the maps are the subject, not the CLI). */
function boomProject(): string {
  const root = mkdtempSync(join(tmpdir(), "tangle-map-"));
  projects.push(root);
  mkdirSync(join(root, "literate"));
  writeFileSync(join(root, "package.json"), '{"type":"module"}\n');
  const doc = ["---", "tangle: generated/boom.ts", "---", "# Boom", "", "A function that fails.", "", "```ts", "export function boom(): never {", '  throw new Error("boom");', "}", "```", ""].join("\n");
  writeFileSync(join(root, "literate", "boom.md"), doc);
  writeFileSync(join(root, "main.ts"), 'import { boom } from "./generated/boom.ts";\nboom();\n');
  runTangle({ root });
  return root;
}

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
    const root = boomProject();
    buildSync({ entryPoints: [join(root, "main.ts")], bundle: true, platform: "node", format: "esm", sourcemap: true, outfile: join(root, "dist", "main.js"), logLevel: "silent" });
    const run = spawnSync(process.execPath, ["--enable-source-maps", join(root, "dist", "main.js")], { encoding: "utf8" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${join(root, "literate", "boom.md")}:10:9`);
  });

  it("are read by tsx from the file itself, so `tsx main.ts` reports Markdown lines and columns", () => {
    const root = boomProject();
    expect(existsSync(join(root, "generated", "boom.ts.map"))).toBe(false);
    const run = spawnSync(tsx, [join(root, "main.ts")], { cwd: root, encoding: "utf8" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`at boom (${join(root, "literate", "boom.md")}:10:9)`);
    expect(run.stderr).not.toContain("generated/boom.ts:");
  });

  describe("readInlineSourceMap", () => {
    const map = { version: 3, file: "a.ts", sources: ["../literate/a.md"], names: [], mappings: "AAAA" } as const;
    const comment = `${inlineSourceMapPrefix}${Buffer.from(JSON.stringify(map), "utf8").toString("base64")}`;

    it("decodes the map a generated file ends with", () => {
      expect(readInlineSourceMap(`export const a = 1;\n${comment}\n`)).toEqual(map);
    });

    it("returns undefined for a file without an inline map", () => {
      expect(readInlineSourceMap("export const a = 1;\n")).toBeUndefined();
      expect(readInlineSourceMap("export const a = 1;\n//# sourceMappingURL=a.ts.map\n")).toBeUndefined();
    });

    it("returns undefined when the map comment is not the last line", () => {
      expect(readInlineSourceMap(`export const a = 1;\n${comment}\nexport const b = 2;\n`)).toBeUndefined();
    });
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

/** The segments a map must hold for `text` (one generated line) from `origin`: one per word start, by a regular expression. */
function expectedSegments(text: string, origin: LineOrigin): Segment[] {
  return [...text.matchAll(/(?<=^|[ \t])[^ \t]/g)].map((m) => ({ generatedColumn: m.index, source: origin.source, line: origin.line, column: Math.max(0, m.index + origin.shift) }));
}

describe("the mappings builder", () => {
  const long = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(" "); // ~17,000 characters: past the reusable buffer's ASCII fast path for blocks
  const texts: [string, string][] = [
    ["ASCII code", 'export const a = 1;\n  if (a) {\n\treturn   "x y";\n  }\n\n}'],
    ["accents and emoji (UTF-16 columns)", 'const café = "naïve";\nconst s = "😀 😀" + café;\n  // ünïcödé  words'],
    ["a line longer than the reusable buffer holds", `${long}\n${long}${long}${long}${long}`],
    ["non-ASCII in a long block", `${long} é ${long}\n${long}${long}${long}${long} 😀 x`],
    ["blank and space-only lines", "\n   \n\t\nx"],
  ];

  it.each(texts)("maps every word start of %s to its Markdown column, line by line or as one block alike", (_name, text) => {
    const origins: LineOrigin[] = [
      { source: 0, line: 41, shift: 0 },
      { source: 2, line: 7, shift: 3 },
      { source: 1, line: 0, shift: -2 },
    ];
    for (const origin of origins) {
      const byLine = new MappingsBuilder();
      const byBlock = new MappingsBuilder();
      // Something before the block, so its deltas start from a state other than zero.
      for (const builder of [byLine, byBlock]) builder.addMappedLines("  prior line", { source: 1, line: 90, shift: 5 });
      const lines = text.split("\n");
      lines.forEach((line, k) => byLine.addMappedLines(line, { ...origin, line: origin.line + k }));
      byBlock.addMappedLines(text, origin);
      expect(byBlock.toString()).toBe(byLine.toString());
      const decoded = decodeMappings(byBlock.toString());
      expect(decoded.slice(1)).toEqual(lines.map((line, k) => expectedSegments(line, { ...origin, line: origin.line + k })));
    }
  });

  it("starts a new map on reset, keeping nothing of the previous one", () => {
    const builder = new MappingsBuilder();
    builder.addMappedLines("a b", { source: 3, line: 10, shift: 0 });
    builder.reset();
    builder.addMappedLines("c d", { source: 0, line: 1, shift: 0 });
    const fresh = new MappingsBuilder();
    fresh.addMappedLines("c d", { source: 0, line: 1, shift: 0 });
    expect(builder.toString()).toBe(fresh.toString());
  });
});
