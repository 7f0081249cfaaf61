/** The disk: listing documents, atomic writes, symlink checks and the stat cache, on real temp folders. */
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HashingReader, escapesThroughSymlink, listDocuments, loadStatCache, readIfExists, statCachePath, writeAtomically } from "../../tools/lib/io.ts";
import { sha256 } from "../../tools/lib/plan.ts";
import { listFiles, project, read, removeTempDirs, tempDir, writeFiles } from "./support.ts";

afterAll(removeTempDirs);

describe("listDocuments", () => {
  it("lists literate/**/*.md as sorted POSIX paths, skipping other files and folders named like documents", () => {
    const root = project({ "literate/b.md": "", "literate/a.md": "", "literate/sub/c.md": "", "literate/notes.txt": "", "other/d.md": "" });
    mkdirSync(join(root, "literate", "folder.md"));
    expect(listDocuments(root)).toEqual(["literate/a.md", "literate/b.md", "literate/sub/c.md"]);
  });

  it("finds nothing when there is no literate/ folder", () => {
    expect(listDocuments(tempDir())).toEqual([]);
  });
});

describe("writeAtomically", () => {
  it("creates the folders, replaces the content and leaves no temporary file behind", () => {
    const root = tempDir();
    writeAtomically(join(root, "deep", "er", "x.ts"), "one");
    writeAtomically(join(root, "deep", "er", "x.ts"), "two");
    expect(read(root, "deep/er/x.ts")).toBe("two");
    expect(listFiles(root)).toEqual(["deep/er/x.ts"]);
  });

  it("removes its temporary file when the rename fails", () => {
    const root = tempDir();
    mkdirSync(join(root, "x.ts"));
    expect(() => writeAtomically(join(root, "x.ts"), "content")).toThrow();
    expect(listFiles(root)).toEqual([]);
  });

  it("reads a missing file as undefined", () => {
    expect(readIfExists(join(tempDir(), "nope"))).toBeUndefined();
  });
});

describe("escapesThroughSymlink", () => {
  it("accepts a plain path, existing or not", () => {
    const root = project({ "generated/a.ts": "" });
    expect(escapesThroughSymlink(root, "generated/a.ts")).toBeUndefined();
    expect(escapesThroughSymlink(root, "generated/new/b.ts")).toBeUndefined();
    expect(escapesThroughSymlink(root, "fresh/c.ts")).toBeUndefined();
  });

  it("refuses a path whose folder is a symbolic link leading outside the root", () => {
    const root = tempDir();
    symlinkSync(tempDir("tangle-outside-"), join(root, "generated"));
    expect(escapesThroughSymlink(root, "generated/a.ts")).toBe("`generated/a.ts` leads outside the project through a symbolic link");
    expect(escapesThroughSymlink(root, "generated/deeper/a.ts")).toBe("`generated/deeper/a.ts` leads outside the project through a symbolic link");
  });

  it("refuses a target that is itself a symbolic link, even to a file inside the root", () => {
    const root = project({ "generated/real.ts": "" });
    symlinkSync(join(root, "generated", "real.ts"), join(root, "generated", "a.ts"));
    expect(escapesThroughSymlink(root, "generated/a.ts")).toBe("`generated/a.ts` is a symbolic link; tangle writes only regular files");
  });

  it("accepts a root that is itself reached through a symbolic link", () => {
    const real = project({ "generated/a.ts": "" });
    const link = join(tempDir(), "link");
    symlinkSync(real, link);
    expect(escapesThroughSymlink(link, "generated/a.ts")).toBeUndefined();
  });
});

describe("the stat cache", () => {
  const past = new Date("2020-01-01T00:00:00Z");

  it("hashes a file it has not seen by reading it", () => {
    const root = project({ "a.md": "hello" });
    const reader = new HashingReader(root, loadStatCache(root));
    expect(reader.hash("a.md")).toEqual({ hash: sha256("hello"), text: "hello" });
    expect(reader.hash("missing.md")).toBeUndefined();
    expect(reader.reads).toBe(1);
  });

  it("trusts a cached hash for a file unchanged since before the cache was written", () => {
    const root = project({ "a.md": "hello" });
    utimesSync(join(root, "a.md"), past, past);
    const first = new HashingReader(root, loadStatCache(root));
    first.hash("a.md");
    first.save();
    // Lie in the cache, to prove the second reader does not read the file.
    const cache = loadStatCache(root);
    const entry = cache.files["a.md"];
    expect(entry).toBeDefined();
    writeFiles(root, { [statCachePath]: JSON.stringify({ ...cache, files: { "a.md": { ...entry, hash: "cached" } } }) });
    const second = new HashingReader(root, loadStatCache(root));
    expect(second.hash("a.md")).toEqual({ hash: "cached" });
    expect(second.reads).toBe(0);
  });

  it("re-reads a file whose size or mtime changed, or that was modified when the cache was written", () => {
    const root = project({ "a.md": "hello" });
    utimesSync(join(root, "a.md"), past, past);
    const mtimeMs = past.getTime();
    const cacheWith = (entry: { size: number; mtimeMs: number }, writtenAtMs: number) => ({ version: 1 as const, writtenAtMs, files: { "a.md": { ...entry, hash: "cached" } } });
    for (const cache of [cacheWith({ size: 4, mtimeMs }, Date.now()), cacheWith({ size: 5, mtimeMs: mtimeMs - 1 }, Date.now()), cacheWith({ size: 5, mtimeMs }, mtimeMs)]) {
      const reader = new HashingReader(root, cache);
      expect(reader.hash("a.md")).toEqual({ hash: sha256("hello"), text: "hello" });
    }
  });

  it("treats a missing or broken cache as empty", () => {
    const empty = { version: 1, writtenAtMs: 0, files: {} };
    expect(loadStatCache(tempDir())).toEqual(empty);
    const root = tempDir();
    writeFiles(root, { [statCachePath]: "{not json" });
    expect(loadStatCache(root)).toEqual(empty);
    writeFileSync(join(root, statCachePath), JSON.stringify({ version: 2, writtenAtMs: 1, files: {} }));
    expect(loadStatCache(root)).toEqual(empty);
  });
});
