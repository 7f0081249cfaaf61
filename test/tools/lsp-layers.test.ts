// The language server's modules (tools/lib/lsp/) keep to their jobs: they read the toolchain's
// library, never dev or the docs; only the protocol side (server.ts) speaks the protocol; only
// disk.ts and server.ts read the disk or verify's disk side; the rest is pure over the Book.
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";

const folder = "tools/lib/lsp";
const modules = readdirSync(folder).filter((f) => f.endsWith(".ts"));
const importsOf = (file: string): string[] => [...readFileSync(`${folder}/${file}`, "utf8").matchAll(/^import [\s\S]*? from "([^"]+)";$/gm)].map((m) => m[1] ?? "");

describe("the language server's modules", () => {
  it.each(modules)("let %s import nothing of dev, the docs or the CLIs", (file) => {
    expect(importsOf(file).filter((spec) => /^\.\.\/(dev|docs)\/|^\.\.\/commands\/(cli|tangle-command|verify-command|stitch-command|mutate-command)\.ts$/.test(spec))).toEqual([]);
  });

  it.each(modules.filter((f) => f !== "server.ts"))("let only server.ts speak the protocol: not %s", (file) => {
    expect(importsOf(file).filter((spec) => spec.startsWith("vscode-"))).toEqual([]);
  });

  it.each(modules.filter((f) => !["disk.ts", "server.ts"].includes(f)))("keep %s off the disk and verify's disk side", (file) => {
    expect(importsOf(file).filter((spec) => ["node:fs", "node:fs/promises", "node:child_process", "../disk/io.ts", "../commands/verify.ts", "../commands/tangle-run.ts"].includes(spec))).toEqual([]);
  });
});
