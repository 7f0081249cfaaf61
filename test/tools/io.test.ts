/** The disk: listing documents, atomic writes, symlink checks and the stat cache, on real temp folders. */
import { mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BatchWriteError, HashingReader, environmentProblem, escapesThroughSymlink, listDocuments, loadStatCache, parseJson, readIfExists, statCachePath, writeAllAtomically, writeAtomically } from "../../tools/lib/io.ts";
import { sha256 } from "../../tools/lib/plan.ts";
import { listFiles, project, read, removeTempDirs, tempDir, thrown, writeFiles } from "./support.ts";

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

describe("parseJson", () => {
  it("reads a file's JSON, and gives undefined for text cut short instead of throwing", () => {
    expect(parseJson('{"files":["generated/a.ts"]}')).toEqual({ files: ["generated/a.ts"] });
    expect(parseJson('{"files":["generated/a')).toBeUndefined();
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

  it("refuses a target that is a dangling symbolic link, instead of writing through it", () => {
    const root = project({ "generated/keep.ts": "" });
    symlinkSync(join(root, "nowhere", "x.ts"), join(root, "generated", "a.ts"));
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

describe("writeAllAtomically", () => {
  it("writes every file, creating folders, and returns each file's size and mtime as a stat sees them", () => {
    const root = tempDir();
    const stamps = writeAllAtomically(root, [
      { path: "generated/a.ts", content: "é\n" },
      { path: "generated/deep/b.ts", content: "b" },
    ]);
    expect(read(root, "generated/a.ts")).toBe("é\n");
    expect(listFiles(root)).toEqual(["generated/a.ts", "generated/deep/b.ts"]);
    const onDisk = statSync(join(root, "generated/a.ts"));
    expect(stamps.get("generated/a.ts")).toEqual({ size: onDisk.size, mtimeMs: onDisk.mtimeMs });
    expect(stamps.get("generated/a.ts")?.size).toBe(3);
  });

  it("changes nothing when a write fails, removing every temporary file", () => {
    const root = project({ "generated/a.ts": "old", blocked: "a file where a folder should be" });
    const error = thrown(() => writeAllAtomically(root, [{ path: "generated/a.ts", content: "new" }, { path: "blocked/b.ts", content: "b" }]));
    expect(error).toBeInstanceOf(BatchWriteError);
    expect((error as BatchWriteError).path).toBe("blocked/b.ts");
    expect((error as BatchWriteError).renamed.size).toBe(0);
    expect(read(root, "generated/a.ts")).toBe("old");
    expect(listFiles(root)).toEqual(["blocked", "generated/a.ts"]);
  });

  it("says which files are already in place when a rename fails, leaving no temporary file", () => {
    const root = project({ "generated/taken/keep.txt": "a folder stands at the second target" });
    const error = thrown(() => writeAllAtomically(root, [{ path: "generated/a.ts", content: "a" }, { path: "generated/taken", content: "b" }]));
    expect(error).toBeInstanceOf(BatchWriteError);
    expect((error as BatchWriteError).path).toBe("generated/taken");
    expect([...(error as BatchWriteError).renamed.keys()]).toEqual(["generated/a.ts"]);
    expect(listFiles(root)).toEqual(["generated/a.ts", "generated/taken/keep.txt"]);
  });
});

describe("writeAllAtomically with fresh files", () => {
  it("creates a fresh file in place, with no temporary file, and replaces the others through one", () => {
    const root = project({ "generated/old.ts": "old" });
    const stamps = writeAllAtomically(root, [{ path: "generated/old.ts", content: "new" }, { path: "generated/fresh.ts", content: "fresh" }], new Set(["generated/fresh.ts"]));
    expect(read(root, "generated/old.ts")).toBe("new");
    expect(read(root, "generated/fresh.ts")).toBe("fresh");
    expect([...stamps.keys()].sort()).toEqual(["generated/fresh.ts", "generated/old.ts"]);
    expect(listFiles(root)).toEqual(["generated/fresh.ts", "generated/old.ts"]);
  });

  it("removes the fresh files it created when a later write fails, but never a file that was already there", () => {
    const root = project({ "generated/taken.ts": "somebody's", blocked: "" });
    const error = thrown(() => writeAllAtomically(root, [{ path: "generated/fresh.ts", content: "x" }, { path: "generated/taken.ts", content: "y" }], new Set(["generated/fresh.ts", "generated/taken.ts"])));
    expect(error).toBeInstanceOf(BatchWriteError);
    expect((error as BatchWriteError).path).toBe("generated/taken.ts");
    expect(read(root, "generated/taken.ts")).toBe("somebody's");
    expect(listFiles(root)).toEqual(["blocked", "generated/taken.ts"]);
  });
});

describe("environmentProblem", () => {
  const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: oops`), { code });

  it.each([
    ["EACCES", "permission denied"],
    ["EPERM", "operation not permitted"],
    ["ENAMETOOLONG", "the name is too long for the file system"],
    ["EROFS", "the file system is read-only"],
    ["EEXIST", "the file appeared while it was being created (another run at the same time?)"],
  ])("turns %s into a user error naming the file", (code, meaning) => {
    const problem = environmentProblem("generated/a.ts", errno(code));
    expect(problem).toMatchObject({ file: "generated/a.ts", severity: "error", rule: "file-system", message: `cannot write or read \`generated/a.ts\`: ${meaning} (${code})` });
    expect(problem?.hint).toBeTruthy();
  });

  it("leaves other errors to be reported as bugs", () => {
    expect(environmentProblem("x", new Error("boom"))).toBeUndefined();
    expect(environmentProblem("x", errno("ENOENT"))).toBeUndefined();
  });
});
