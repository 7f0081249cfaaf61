/** The disk: listing documents, atomic writes, symlink checks and the stat cache, on real temp folders. */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BatchWriteError, FolderListings, HashingReader, decodeTexts, environmentProblem, escapesThroughSymlink, listDocuments, loadStatCache, parseJson, readFiles, readIfExists, statCachePath, writeAllAtomically, writeAtomically, writeFully } from "../../tools/lib/disk/io.ts";
import { fillDisk, smallDisk } from "../helpers/small-disk.ts";
import { LiterateError, error } from "../../tools/lib/core/diagnostics.ts";
import { sha256 } from "../../tools/lib/core/plan.ts";
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

  it("follows a symbolic link to a document, but not one to a folder or to nothing", () => {
    const root = project({ "literate/a.md": "", "elsewhere/b.md": "" });
    symlinkSync(join(root, "elsewhere", "b.md"), join(root, "literate", "b.md"));
    symlinkSync(join(root, "elsewhere"), join(root, "literate", "dir.md"));
    symlinkSync(join(root, "nowhere.md"), join(root, "literate", "dangling.md"));
    expect(listDocuments(root)).toEqual(["literate/a.md", "literate/b.md"]);
  });
});

describe("decodeTexts", () => {
  const files: [string, Buffer[]][] = [
    ["ASCII files", [Buffer.from("# A\n"), Buffer.from(""), Buffer.from("```ts\nx;\n```\r\n")]],
    ["a file with accents among ASCII ones", [Buffer.from("# A\n"), Buffer.from("café — naïve 😀\n"), Buffer.from("b\n")]],
    ["a byte-order mark", [Buffer.from("\uFEFF# A\n"), Buffer.from("b")]],
  ];

  it.each(files)("reads %s exactly as readFileSync reads them as UTF-8", (_name, buffers) => {
    const root = tempDir();
    buffers.forEach((bytes, i) => writeFileSync(join(root, `${i}.md`), bytes));
    expect(decodeTexts(buffers)).toEqual(buffers.map((_, i) => readFileSync(join(root, `${i}.md`), "utf8")));
  });

  it.each(files)("reads %s file by file, with the same texts, when they hold more bytes than one string may", (_name, buffers) => {
    expect(decodeTexts(buffers, 1)).toEqual(decodeTexts(buffers));
  });

  it.each([
    ["a byte no character starts with", [0x61, 0x0a, 0x62, 0xff, 0x0a], 2, 2, "0xFF 0x0A"],
    ["a character cut short at the end", [0x61, 0x62, 0xc3], 1, 3, "0xC3"],
    ["an overlong form", [0xc0, 0x80], 1, 1, "0xC0 0x80"],
    ["a UTF-16 surrogate", [0x78, 0xed, 0xa0, 0x80], 1, 2, "0xED 0xA0 0x80"],
    ["a byte no character starts with, after a replacement character the document holds itself", [0x61, 0xef, 0xbf, 0xbd, 0x80], 1, 3, "0x80"],
    ["a code point past U+10FFFF, after a byte-order mark and an emoji", [0xef, 0xbb, 0xbf, 0xf0, 0x9f, 0x98, 0x80, 0xf4, 0x90, 0x80, 0x80], 1, 3, "0xF4 0x90 0x80 0x80"],
  ])("refuses %s, naming the file, line and column", (_name, bytes, line, column, shown) => {
    const buffers = [Buffer.from("# A\n"), Buffer.from(bytes)];
    for (const limit of [undefined, 1]) {
      expect(() => decodeTexts(buffers, limit, ["a.md", "b.md"])).toThrow(
        new LiterateError([error({ file: "b.md", line, column }, "encoding", `the document is not valid UTF-8: the bytes ${shown} start no character`, "save the document as UTF-8 (tangle never guesses an encoding)")]),
      );
    }
  });
});

describe("readFiles", () => {
  it("reads files of known sizes into views of one buffer, end to end, that decode as readFileSync reads them", () => {
    const contents = ["# A\n", "", "```ts\nx;\n```\n", "café 😀\n"];
    const root = project(Object.fromEntries(contents.map((text, i) => [`${i}.md`, text])));
    const files = contents.map((_, i) => ({ path: `${i}.md`, size: statSync(join(root, `${i}.md`)).size }));
    const views = readFiles(root, files);
    expect(views.map((v) => v.toString("utf8"))).toEqual(contents);
    expect(new Set(views.map((v) => v.buffer)).size).toBe(1);
    views.slice(1).forEach((v, i) => expect(v.byteOffset).toBe((views[i]?.byteOffset ?? 0) + (views[i]?.length ?? 0)));
    expect(decodeTexts(views)).toEqual(contents);
    // Past the limit, each file is read on its own, with the same bytes.
    const separate = readFiles(root, files, 1);
    expect(separate.map((v) => v.toString("utf8"))).toEqual(contents);
    expect(decodeTexts(separate, 1)).toEqual(contents);
  });

  it("reads a file whose size changed since its stat again, whole, so no document is cut short or run into the next", () => {
    const root = project({ "a.md": "aaaa", "b.md": "bb", "c.md": "cccccc" });
    // Sizes as a stat saw them before a.md grew and b.md shrank.
    const views = readFiles(root, [{ path: "a.md", size: 2 }, { path: "b.md", size: 5 }, { path: "c.md", size: 6 }]);
    expect(views.map((v) => v.toString("utf8"))).toEqual(["aaaa", "bb", "cccccc"]);
    expect(decodeTexts(views)).toEqual(["aaaa", "bb", "cccccc"]);
  });

  it("names the file it cannot read", () => {
    const root = project({ "a.md": "x" });
    expect(() => readFiles(root, [{ path: "a.md", size: 1 }, { path: "gone.md", size: 3 }])).toThrow(/gone\.md/);
  });
});

describe("FolderListings", () => {
  it("says what stands at a path from one listing of its folder: a file, a folder, a link, nothing, or no folder at all", () => {
    const root = project({ "generated/a.ts": "x", "generated/sub/b.ts": "y" });
    symlinkSync("a.ts", join(root, "generated", "link.ts"));
    const listings = new FolderListings(root);
    expect(["generated/a.ts", "generated/sub", "generated/link.ts", "generated/missing.ts", "absent/x.ts"].map((p) => listings.entry(p))).toEqual(["file", "folder", "link", undefined, null]);
    writeFiles(root, { "generated/new.ts": "z" });
    expect(listings.entry("generated/new.ts")).toBeUndefined(); // a listing is kept until forgotten
    listings.forget("generated/new.ts");
    expect(listings.entry("generated/new.ts")).toBe("file");
  });

  it("cannot tell for a folder it cannot list, so the path itself must be asked", () => {
    const root = tempDir();
    symlinkSync("loop", join(root, "loop"));
    expect(new FolderListings(root).entry("loop/a.ts")).toBe("unknown");
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

  it("keeps the old file whole and leaves no temporary file when the flush fails", () => {
    const root = tempDir();
    writeAtomically(join(root, "x.ts"), "old");
    const failing = (): void => {
      throw Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
    };
    expect(() => writeAtomically(join(root, "x.ts"), "new", failing)).toThrow("EIO: i/o error, fsync");
    expect([read(root, "x.ts"), listFiles(root)]).toEqual(["old", ["x.ts"]]);
  });

  it("reads a missing file as undefined", () => {
    expect(readIfExists(join(tempDir(), "nope"))).toBeUndefined();
  });
});

describe("writing every byte", () => {
  it("goes round on short writes, and throws at a write that makes no progress instead of spinning", () => {
    const calls: number[] = [];
    writeFully(7, Buffer.from("abcdef"), "/x", (_fd, _bytes, offset, length) => (calls.push(offset), Math.min(length, 2)));
    expect(calls).toEqual([0, 2, 4]);
    expect(() => writeFully(7, Buffer.from("abc"), "/x", () => 0)).toThrow("EIO: writing /x made no progress with 3 of 3 bytes left");
    expect(() => writeFully(7, Buffer.from("abc"), "/x", (_fd, _bytes, offset) => (offset === 0 ? 1 : -1))).toThrow("made no progress with 2 of 3 bytes left");
  });

  it("fails a stamp or tangle write on a real full disk, keeping the file it was to replace whole", (ctx) => {
    const disk = smallDisk("256k");
    if ("refused" in disk) {
      console.warn(`skipped the real full disk: ${disk.refused}; the injected short writes above still run`);
      return ctx.skip();
    }
    try {
      const path = join(disk.dir, "chapter.md");
      writeAtomically(path, "good\n");
      const filler = fillDisk(disk.dir);
      expect(() => writeAtomically(path, "x".repeat(100_000))).toThrow(/ENOSPC|EIO/);
      expect(() => writeAllAtomically(disk.dir, [{ path: "generated/a.ts", content: "y".repeat(100_000) }])).toThrow();
      expect(readFileSync(path, "utf8")).toBe("good\n");
      expect(readdirSync(disk.dir).sort()).toEqual(["chapter.md", "filler", "generated"]);
      expect(readdirSync(join(disk.dir, "generated"))).toEqual([]);
      rmSync(filler);
      writeAtomically(path, "x".repeat(100_000));
      expect(statSync(path).size).toBe(100_000);
    } finally {
      disk.unmount();
    }
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

  it("names the linked folder, not the target, when the nearest existing part of a target is a link", () => {
    const root = project({ "generated/keep.ts": "" });
    symlinkSync("generated", join(root, "gen"));
    expect(escapesThroughSymlink(root, "gen/new/a.ts")).toBe("`gen` is a symbolic link, so tangle will not create `gen/new/a.ts` through it");
    expect(escapesThroughSymlink(root, "gen/keep.ts")).toBeUndefined();
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

  it("tells whether the cache proves a document unchanged, without reading or hashing it", () => {
    const root = project({ "a.md": "hello" });
    utimesSync(join(root, "a.md"), past, past);
    const first = new HashingReader(root, loadStatCache(root));
    expect(first.stat("a.md")).toEqual({ stamp: { size: 5, mtimeMs: past.getTime() }, unchanged: false });
    expect(first.stat("missing.md")).toBeUndefined();
    first.save();
    expect(loadStatCache(root).files["a.md"]).toEqual({ size: 5, mtimeMs: past.getTime() });
    const second = new HashingReader(root, loadStatCache(root));
    expect(second.stat("a.md")).toEqual({ stamp: { size: 5, mtimeMs: past.getTime() }, unchanged: true });
    expect(second.reads).toBe(0);
  });

  it("answers that a file is missing from its folder's listing, without asking for the file", () => {
    const root = project({ "generated/a.ts": "x" });
    const listings = new FolderListings(root);
    const reader = new HashingReader(root, loadStatCache(root), listings);
    expect(reader.hash("generated/a.ts")).toEqual({ hash: sha256("x"), text: "x" });
    writeFiles(root, { "generated/b.ts": "y" });
    expect(reader.hash("generated/b.ts")).toBeUndefined(); // not in the listing taken before it was written
    reader.recordWritten("generated/b.ts", sha256("y"));
    expect(reader.hash("generated/b.ts")?.hash).toBe(sha256("y"));
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
