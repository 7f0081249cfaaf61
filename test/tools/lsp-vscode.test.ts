// The VS Code extension (editors/vscode/): a thin language client, bundled with esbuild and
// packaged into a .vsix with @vscode/vsce, in a temp copy of its folder (the repository is not
// written). The package must hold the bundled client and a manifest that starts the server.
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The names of a zip archive's entries, from its central directory. */
function zipEntries(zip: Buffer): string[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error("not a zip archive: no end of central directory");
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let k = 0; k < count; k++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${k}`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    names.push(zip.toString("utf8", at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extra + comment;
  }
  return names;
}

describe("the VS Code extension", () => {
  let folder: string;
  let vsix: Buffer;
  let bundle: string;
  let log = "";

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), "lsp-vscode-"));
    cpSync(resolve("editors/vscode"), folder, { recursive: true });
    await build({ entryPoints: [resolve("editors/vscode/src/extension.mts")], bundle: true, platform: "node", format: "cjs", target: "node20", external: ["vscode"], outfile: join(folder, "dist/extension.js"), logLevel: "error" });
    bundle = readFileSync(join(folder, "dist/extension.js"), "utf8");
    const child = spawn(process.execPath, [resolve("node_modules/@vscode/vsce/vsce"), "package", "--no-dependencies", "--skip-license", "--allow-missing-repository", "--out", "book.vsix"], { cwd: folder, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
    const code = await new Promise<number | null>((done) => child.on("exit", done));
    if (code !== 0) throw new Error(`vsce package failed (${String(code)}): ${log}`);
    vsix = readFileSync(join(folder, "book.vsix"));
  }, 120_000);
  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it("packages into a .vsix holding the bundled client and its manifest", () => {
    expect(zipEntries(vsix)).toEqual(expect.arrayContaining(["extension.vsixmanifest", "extension/package.json", "extension/dist/extension.js", "extension/readme.md"]));
  });

  it("starts the book's language server with tools/run.cjs lsp, over stdio, for the chapters", () => {
    expect(bundle).toContain('"run.cjs"');
    expect(bundle).toContain('"lsp"');
    expect(bundle).toContain("/literate/**/*.md");
    // The client library is inside the bundle; only `vscode` is left to the editor.
    expect(bundle).toMatch(/require\("vscode"\)/);
    expect(bundle).not.toMatch(/require\("vscode-languageclient/);
  });
});
