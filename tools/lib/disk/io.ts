/**
 * The disk, for the CLIs: finding documents, atomic writes, symlink-safe paths, and the stat
 * cache that lets a no-change re-tangle finish without reading or hashing anything.
 */
import { type Stats, closeSync, existsSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, realpathSync, renameSync, rmdirSync, statSync, unlinkSync, writeSync } from "node:fs";
import { Buffer, isAscii, isUtf8 } from "node:buffer";
import { basename, dirname, isAbsolute, join, posix, relative, sep } from "node:path";
import { LiterateError, error, type Diagnostic } from "../core/diagnostics.ts";
import { forbiddenRoots, manifestPath } from "../core/paths.ts";
import { sha256 } from "../core/plan.ts";
import { valueAt } from "../core/maps.ts";

/** Lists `literate/**\/*.md` (or `folder/**\/*EXTENSION`) under `root`, as sorted project-relative POSIX paths. */
export function listDocuments(root: string, folder = "literate", extension = ".md"): string[] {
  const base = join(root, folder);
  if (!existsSync(base)) return [];
  // The entries' types come with the listing: only a symbolic link needs a `stat` to say whether it leads to a file.
  const entries = readdirSync(base, { recursive: true, withFileTypes: true });
  const paths: string[] = [];
  for (const entry of entries) {
    if (!entry.name.endsWith(extension)) continue;
    const full = join(entry.parentPath, entry.name);
    if (entry.isFile() || (entry.isSymbolicLink() && statSync(full, { throwIfNoEntry: false })?.isFile() === true)) {
      paths.push(`${folder}/${relative(base, full).split(sep).join("/")}`);
    }
  }
  return paths.sort();
}

/** Every document under `root` (`listDocuments`) with its text as it is on disk; `""` for one gone since it was listed. */
export function readDocuments(root: string): { path: string; text: string }[] {
  return listDocuments(root).map((path) => ({ path, text: readIfExists(join(root, path)) ?? "" }));
}

/** What a folder listing says stands at a name; `unknown` when the folder could not be listed (the path itself must be asked). */
export type EntryKind = "file" | "folder" | "link" | "other" | "unknown";

/**
 * Folder listings of a project, read once per folder and kept until `forget`: one `readdir`
 * answers whether hundreds of targets exist, where a `stat` each would cost hundreds of calls.
 */
export class FolderListings {
  readonly #root: string;
  readonly #folders = new Map<string, ReadonlyMap<string, EntryKind> | null | "unknown">();

  constructor(root: string) {
    this.#root = root;
  }

  /** What stands at project-relative `path`: its kind, `undefined` for nothing in an existing folder, `null` when its folder is missing. */
  entry(path: string): EntryKind | undefined | null {
    const folder = posix.dirname(path);
    const listing = valueAt(this.#folders, folder, () => readFolder(join(this.#root, folder)));
    return listing === null || listing === "unknown" ? listing : listing.get(posix.basename(path));
  }

  /** Drops what is known of `path`'s folder (after writing or deleting there). */
  forget(path: string): void {
    this.#folders.delete(posix.dirname(path));
  }
}

/**
 * A folder's entries by name, `null` when it is missing or not a folder, `unknown` when it
 * cannot be listed (a symbolic link loop, no permission): the caller then asks each path, and
 * the error it meets names that path.
 */
function readFolder(full: string): ReadonlyMap<string, EntryKind> | null | "unknown" {
  let entries;
  try {
    entries = readdirSync(full, { withFileTypes: true });
  } catch (caught) {
    return isMissing(caught) ? null : "unknown";
  }
  return new Map(entries.map((e) => [e.name, e.isFile() ? "file" : e.isDirectory() ? "folder" : e.isSymbolicLink() ? "link" : "other"]));
}

/** A file's JSON, or `undefined` when it is not JSON (a run cut short, a hand edit). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads the document at project-relative `path` as `decodeDocument` decodes it: invalid UTF-8 is an error at its position. */
export function readDocument(root: string, path: string): string {
  return decodeDocument(path, readFileSync(join(root, path)));
}

/** Reads a file as UTF-8, or `undefined` when it does not exist. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (caught) {
    if (isMissing(caught)) return undefined;
    // Node leaves the path out of some of its errors (a folder read as a file): the report names it.
    const failure = caught as NodeJS.ErrnoException;
    failure.path ??= path;
    throw failure;
  }
}

/**
 * Refuses a project-relative path whose existing part resolves outside `root` through a
 * symlink, or whose real path (every link in its existing folders followed) lands where no
 * target may go: in a forbidden folder (`.git/` through `ln -s .git g`) or on the manifest.
 * Returns the reason, or `undefined` when the path is safe.
 */
export function escapesThroughSymlink(root: string, path: string, realpaths?: Map<string, string>): string | undefined {
  // Callers checking many paths at once (nothing written in between) share resolved folders through `realpaths`.
  const realpath = (p: string): string => {
    let resolved = realpaths?.get(p);
    if (resolved === undefined) {
      resolved = realpathSync(p);
      realpaths?.set(p, resolved);
    }
    return resolved;
  };
  const realRoot = realpath(root);
  let probe = join(root, path);
  // The nearest part of the path that exists (a dangling symbolic link counts: it exists as a link).
  let found = lstatIfExists(probe);
  while (found === undefined) {
    const parent = dirname(probe);
    if (parent === probe) break;
    probe = parent;
    found = lstatIfExists(probe);
  }
  const stat = found ?? lstatSync(probe);
  const linkRefusal =
    probe === join(root, path) ? `\`${path}\` is a symbolic link; tangle writes only regular files` : `\`${relative(root, probe).split(sep).join("/")}\` is a symbolic link, so tangle will not create \`${path}\` through it`;
  let resolved: string;
  try {
    resolved = stat.isSymbolicLink() || probe !== join(root, path) ? realpath(probe) : realpath(dirname(probe));
  } catch (caught) {
    // A dangling link resolves nowhere: refuse it as the link it is.
    if (stat.isSymbolicLink() && isMissing(caught)) return linkRefusal;
    throw caught;
  }
  const rel = relative(realRoot, resolved);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return `\`${path}\` leads outside the project through a symbolic link`;
  if (stat.isSymbolicLink()) return linkRefusal;
  if (probe === join(root, path) && stat.isDirectory()) return `\`${path}\` is a folder; tangle writes only regular files`;
  if (probe !== join(root, path) && !stat.isDirectory()) return `\`${relative(root, probe).split(sep).join("/")}\` is a file, so \`${path}\` cannot be created inside it`;
  // Where the file really lands: the resolved folder, then the part of the path below it (or just the name).
  const below = probe === join(root, path) ? posix.basename(path) : relative(probe, join(root, path));
  const real = join(rel, below).split(sep).join("/");
  if (real === path) return undefined;
  const first = real.split("/")[0] ?? "";
  if (forbiddenRoots.includes(first)) return `\`${path}\` leads into \`${first}/\` through a symbolic link, and tangle never writes there`;
  if (real === manifestPath) return `\`${path}\` leads to tangle's own manifest through a symbolic link`;
  return undefined;
}

/** `lstat`, or `undefined` when nothing is there (no entry, or a file where a folder should be). */
function lstatIfExists(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (caught) {
    if (isMissing(caught)) return undefined;
    throw caught;
  }
}

/**
 * Writes every byte of `bytes` to `fd`, going round on a short write; a write that makes no
 * progress throws (`EIO`, naming `path`) rather than spinning, since a full or failing disk
 * must fail the write, never leave a file cut short behind a success.
 */
export function writeFully(fd: number, bytes: Uint8Array, path: string, write: (fd: number, bytes: Uint8Array, offset: number, length: number) => number = writeSync): void {
  for (let at = 0; at < bytes.length; ) {
    const written = write(fd, bytes, at, bytes.length - at);
    if (!(written > 0)) throw Object.assign(new Error(`EIO: writing ${path} made no progress with ${bytes.length - at} of ${bytes.length} bytes left`), { code: "EIO" });
    at += written;
  }
}

/**
 * Writes a file atomically (`writeAllAtomically` of one file): a temporary file beside it,
 * written whole and flushed (`flush`, the real `fsync` but in tests), then a rename. Creates
 * folders. Any failure, a failed flush included, removes the temporary file, leaves the old file
 * as it was, and throws the file system's own error.
 */
export function writeAtomically(path: string, content: string, flush: (fd: number) => void = fsyncSync): void {
  try {
    writeAllAtomically(dirname(path), [{ path: basename(path), content }], new Set(), flush);
  } catch (caught) {
    throw caught instanceof BatchWriteError ? caught.cause : caught;
  }
}

/** One file of a batch write: its path (relative to the batch's root) and content (text is written as UTF-8). */
export interface BatchFile {
  readonly path: string;
  readonly content: string | Uint8Array;
}

/**
 * Thrown by `writeAllAtomically` when a batch failed: `cause` is the file-system error,
 * `path` the file it concerns, and `renamed` the files already in place (empty unless the
 * failure came while renaming, after every temporary file had been written).
 */
export class BatchWriteError extends Error {
  readonly path: string;
  readonly renamed: ReadonlyMap<string, StatStamp>;
  constructor(path: string, cause: unknown, renamed: ReadonlyMap<string, StatStamp>) {
    super(`cannot write \`${path}\`: ${(cause as Error).message}`, { cause });
    this.name = "BatchWriteError";
    this.path = path;
    this.renamed = renamed;
  }
}

/**
 * Writes a batch of files all-or-nothing as far as a file system allows. A file that replaces
 * another goes to a temporary file beside it (created exclusively); a file in `fresh` (one that
 * did not exist when the batch was planned) is created at its own path, exclusively (`wx`), since
 * there is no old content a reader could see half replaced, and a rename per file is saved.
 * Only when every file is written are the temporary files renamed into place. A failure while
 * writing removes every temporary file and every fresh file the batch created, so the disk is
 * as it was. Folders are created once each. Returns each file's size and mtime, read from the
 * open file (a rename keeps both), so callers need no second `stat`. `flush`, when given, runs on
 * each file before it is closed (`writeAtomically`'s `fsync`).
 */
export function writeAllAtomically(root: string, files: readonly BatchFile[], fresh: ReadonlySet<string> = new Set(), flush?: (fd: number) => void): Map<string, StatStamp> {
  const made = new Set<string>();
  /** Written so far: `temporary` is the file to rename, or `undefined` for a fresh file already in place. */
  const staged: { path: string; full: string; temporary: string | undefined; stamp: StatStamp }[] = [];
  // Temporary names are short and beside their targets (a rename stays within one folder), so a
  // target whose name is near the file system's limit can still be replaced.
  const prefix = `.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}-`;
  const discard = (alsoFresh: boolean): void => {
    for (const s of staged) {
      if (s.temporary === undefined && !alsoFresh) continue;
      try {
        unlinkSync(s.temporary ?? s.full);
      } catch {
        // already renamed, or never created
      }
    }
  };
  let current = "";
  try {
    for (const file of files) {
      current = file.path;
      const full = join(root, file.path);
      const dir = dirname(full);
      if (!made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
      const temporary = fresh.has(file.path) ? undefined : join(dir, `${prefix}${staged.length}`);
      const fd = openSync(temporary ?? full, "wx");
      const entry = { path: file.path, full, temporary, stamp: { size: 0, mtimeMs: 0 } };
      staged.push(entry);
      try {
        const bytes = typeof file.content === "string" ? Buffer.from(file.content, "utf8") : file.content;
        writeFully(fd, bytes, full);
        flush?.(fd);
        const s = fstatSync(fd);
        if (s.size !== bytes.length) throw Object.assign(new Error(`EIO: ${full} holds ${s.size} bytes after writing ${bytes.length}`), { code: "EIO" });
        entry.stamp = { size: s.size, mtimeMs: s.mtimeMs };
      } finally {
        closeSync(fd);
      }
    }
  } catch (caught) {
    // A file is staged only once it was opened, so one that `wx` refused (not ours) is never removed.
    discard(true);
    throw new BatchWriteError(current, caught, new Map());
  }
  const renamed = new Map<string, StatStamp>();
  for (const s of staged) if (s.temporary === undefined) renamed.set(s.path, s.stamp);
  for (const s of staged) {
    if (s.temporary === undefined) continue;
    try {
      renameSync(s.temporary, s.full);
    } catch (caught) {
      discard(false);
      throw new BatchWriteError(s.path, caught, renamed);
    }
    renamed.set(s.path, s.stamp);
  }
  return renamed;
}

/**
 * After deleting the file at project-relative `path`, removes the folders it leaves empty,
 * innermost first: folders tangle created for targets. A top-level folder (`generated/`,
 * `scripts/`) is never removed, nor the project root.
 */
export function removeEmptyFolders(root: string, path: string): void {
  let dir = posix.dirname(path);
  while (dir.includes("/")) {
    try {
      rmdirSync(join(root, dir));
    } catch {
      return; // not empty (or already gone): stop climbing
    }
    dir = posix.dirname(dir);
  }
}

/** Size and modification time: enough to tell that a file has not changed since we looked. */
export interface StatStamp {
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * What the stat cache remembers of one file: its size and mtime, and the hash of its content
 * for a file tangle wrote. A document has no hash: its size and mtime stand for its content.
 */
export interface CachedFile extends StatStamp {
  readonly hash?: string;
}

/** The stat cache (in `.cache/`, never committed). */
export interface StatCache {
  readonly version: 1;
  /** When the cache was written (ms); files modified at or after it are re-read ("racily clean"). */
  readonly writtenAtMs: number;
  readonly files: Readonly<Record<string, CachedFile>>;
  /**
   * The last successful tangle: a digest of its sources, the hash of the manifest it left, and
   * its warnings (so a run that tangles nothing still repeats them).
   */
  readonly lastRun?: { readonly sourcesDigest: string; readonly manifestHash: string; readonly warnings?: readonly Diagnostic[] };
}

/** Where the stat cache lives. */
export const statCachePath = ".cache/tangle-stat.json";

/** Stats a file, or `undefined` when it does not exist. */
export function statIfExists(path: string): StatStamp | undefined {
  // `throwIfNoEntry: false` answers `undefined` for ENOENT only (and throws the rest), without an exception per missing file.
  const s = statSync(path, { throwIfNoEntry: false });
  return s === undefined ? undefined : { size: s.size, mtimeMs: s.mtimeMs };
}

/** Loads the stat cache; a missing or unreadable cache is an empty one (it is only an optimisation). */
export function loadStatCache(root: string): StatCache {
  // A broken cache is ignored and rewritten.
  const value = parseJson(readIfExists(join(root, statCachePath)) ?? "") as Partial<StatCache> | null | undefined;
  if (value?.version === 1 && typeof value.writtenAtMs === "number" && typeof value.files === "object") return value as StatCache;
  return { version: 1, writtenAtMs: 0, files: {} };
}

/**
 * Hashes files through the cache: a file whose size and mtime match its entry, and that was
 * not modified in the same instant the cache was written, keeps its cached hash unread.
 */
export class HashingReader {
  readonly #root: string;
  readonly #cache: StatCache;
  readonly #seen: Record<string, CachedFile> = {};
  readonly #listings: FolderListings | undefined;
  /** How many files `hash` had to read (for tests and benchmarks); documents are read by `readFiles`. */
  reads = 0;

  /** `listings`: folder listings to answer "not there" from, without a `stat` per missing file. */
  constructor(root: string, cache: StatCache, listings?: FolderListings) {
    this.#root = root;
    this.#cache = cache;
    this.#listings = listings;
  }

  /** The cached entry for `path` when `stat` proves the file unchanged since the cache was written. */
  #unchanged(path: string, stat: StatStamp): CachedFile | undefined {
    const cached = this.#cache.files[path];
    return cached !== undefined && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs && stat.mtimeMs < this.#cache.writtenAtMs ? cached : undefined;
  }

  /**
   * A document's size and mtime, and whether the cache proves it unchanged since the last run.
   * Nothing is read here: a run that must tangle reads every document at once (`readFiles`),
   * and documents are never hashed, since their size and mtime stand for their content.
   */
  stat(path: string): { stamp: StatStamp; unchanged: boolean } | undefined {
    const stat = statIfExists(join(this.#root, path));
    if (stat === undefined) return undefined;
    this.#seen[path] = stat;
    return { stamp: stat, unchanged: this.#unchanged(path, stat) !== undefined };
  }

  /** The hash of a file, or `undefined` if it does not exist; `text` is filled when it had to be read. */
  hash(path: string): { hash: string; text?: string } | undefined {
    const listed = this.#listings?.entry(path);
    if (this.#listings !== undefined && (listed === undefined || listed === null)) return undefined;
    const stat = statIfExists(join(this.#root, path));
    if (stat === undefined) return undefined;
    const cached = this.#unchanged(path, stat);
    if (cached?.hash !== undefined) {
      this.#seen[path] = cached;
      return { hash: cached.hash };
    }
    const text = readFileSync(join(this.#root, path), "utf8");
    this.reads++;
    const hash = sha256(text);
    this.#seen[path] = { ...stat, hash };
    return { hash, text };
  }

  /** Records a file just written with known content hash (and, when known, its size and mtime). */
  recordWritten(path: string, hash: string, written?: StatStamp): void {
    this.#listings?.forget(path);
    const stat = written ?? statIfExists(join(this.#root, path));
    if (stat !== undefined) this.#seen[path] = { ...stat, hash };
  }

  /** Forgets a deleted file. */
  forget(path: string): void {
    this.#listings?.forget(path);
    delete this.#seen[path];
  }

  /** Writes the cache of every file seen in this run, with the run it describes. */
  save(lastRun?: StatCache["lastRun"]): void {
    const cache: StatCache = { version: 1, writtenAtMs: Date.now(), files: this.#seen, ...(lastRun === undefined ? {} : { lastRun }) };
    try {
      writeAtomically(join(this.#root, statCachePath), JSON.stringify(cache));
    } catch {
      // the cache is an optimisation; a read-only checkout still tangles
    }
  }
}

/** Past this many bytes, files are decoded one by one: V8 strings hold at most 2^29 - 24 characters. */
const wholeTextLimit = 2 ** 28;

/**
 * Reads files whose sizes a `stat` just gave into one buffer, in order, and returns a view of
 * each: one allocation for the whole set instead of one per file, which `decodeTexts` then
 * decodes without a copy. Each read asks for one byte more than the size, so a file that grew
 * since its `stat` is noticed (that byte lands where the next file goes, before it is read);
 * a file whose size changed is read again, whole, on its own. Past `limit` bytes in all, each
 * file is read into a buffer of its own.
 */
export function readFiles(root: string, files: readonly { readonly path: string; readonly size: number }[], limit = wholeTextLimit): Buffer[] {
  const total = files.reduce((sum, file) => sum + file.size, 0);
  // A set too large to decode as one text gains nothing from one buffer (and may not fit in one).
  if (total > limit) return files.map(({ path }) => readFileSync(join(root, path)));
  const all = Buffer.allocUnsafeSlow(total + 1);
  let at = 0;
  return files.map(({ path, size }) => {
    const full = join(root, path);
    const fd = openSync(full, "r");
    let got = 0;
    try {
      // Until the end of the file, or one byte past the size the stat gave.
      while (got <= size) {
        const n = readSync(fd, all, at + got, size + 1 - got, null);
        if (n === 0) break;
        got += n;
      }
    } finally {
      closeSync(fd);
    }
    if (got !== size) return readFileSync(full);
    const view = all.subarray(at, at + size);
    at += size;
    return view;
  });
}

/**
 * Decodes files read as bytes into their texts (UTF-8, as `readFileSync(path, "utf8")` reads
 * them, but refusing invalid UTF-8: see `decodeDocument`; `paths` name the files in that error).
 * When every file is ASCII they are decoded as one string, and each text is a slice of
 * it: one large string, allocated where the garbage collector never copies it, instead of
 * hundreds of mid-sized ones it would copy until the run ends. Views that lie end to end in one
 * buffer (as `readFiles` returns them) are decoded in place, without first being copied together.
 * Past `limit` bytes in all, each file is decoded on its own.
 */
export function decodeTexts(files: readonly Buffer[], limit = wholeTextLimit, paths: readonly string[] = []): string[] {
  const total = files.reduce((sum, bytes) => sum + bytes.length, 0);
  if (total > limit || !files.every((bytes) => isAscii(bytes))) return files.map((bytes, i) => decodeDocument(paths[i] ?? `(file ${i + 1})`, bytes));
  const whole = (endToEnd(files) ?? Buffer.concat(files)).toString("latin1");
  let at = 0;
  return files.map((bytes) => whole.slice(at, (at += bytes.length)));
}

/**
 * A document's bytes as text, or a `LiterateError` at the `file:line:col` of the first byte that
 * is not UTF-8 (a lossy decode would turn it into U+FFFD and write that into the targets
 * unnoticed). The check is `isUtf8`, one pass much cheaper than the decode itself; the position
 * is found only for a document that fails it.
 */
export function decodeDocument(path: string, bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString("utf8");
  const at = firstInvalidUtf8(bytes);
  const lineStart = bytes.lastIndexOf(0x0a, at - 1) + 1;
  const line = lineStart === 0 ? 1 : countNewlines(bytes, lineStart) + 1;
  // A leading byte-order mark is not counted (as the documents' parser counts columns).
  const from = lineStart === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : lineStart;
  const column = bytes.subarray(Math.min(from, at), at).toString("utf8").length + 1;
  const shown = [...bytes.subarray(at, at + 4)].map((b) => `0x${b.toString(16).toUpperCase().padStart(2, "0")}`);
  throw new LiterateError([
    error({ file: path, line, column }, "encoding", `the document is not valid UTF-8: the bytes ${shown.join(" ")} start no character`, "save the document as UTF-8 (tangle never guesses an encoding)"),
  ]);
}

/** How many `\n` bytes stand before `end`. */
function countNewlines(bytes: Buffer, end: number): number {
  let count = 0;
  for (let nl = bytes.indexOf(0x0a); nl !== -1 && nl < end; nl = bytes.indexOf(0x0a, nl + 1)) count++;
  return count;
}

/**
 * The offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629: no
 * overlong forms, surrogates or code points past U+10FFFF), or -1. The decoder puts U+FFFD where
 * such a sequence starts, and the text before it decodes exactly: the first U+FFFD the bytes do
 * not spell themselves (`EF BF BD`) stands at that offset.
 */
function firstInvalidUtf8(bytes: Buffer): number {
  const text = bytes.toString("utf8");
  for (let at = text.indexOf("\uFFFD"); at !== -1; at = text.indexOf("\uFFFD", at + 1)) {
    const offset = Buffer.byteLength(text.slice(0, at), "utf8");
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) return offset;
  }
  return -1;
}

/** The one buffer the views `files` make up when each begins where the one before it ends; `undefined` otherwise. */
function endToEnd(files: readonly Buffer[]): Buffer | undefined {
  const first = files[0];
  if (first === undefined) return undefined;
  let end = first.byteOffset;
  for (const bytes of files) {
    if (bytes.buffer !== first.buffer || bytes.byteOffset !== end) return undefined;
    end += bytes.length;
  }
  return Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset);
}

/** True for the errors that mean "nothing is there": no such file, or a file where a folder should be. */
function isMissing(caught: unknown): boolean {
  const code = (caught as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** What each file-system error code means for a user, and what to do about it. */
const environmentCodes: Readonly<Record<string, { readonly meaning: string; readonly hint: string }>> = {
  ENAMETOOLONG: { meaning: "the name is too long for the file system", hint: "choose a shorter target path" },
  EACCES: { meaning: "permission denied", hint: "check the permissions of the file and its folder" },
  EPERM: { meaning: "operation not permitted", hint: "check the permissions of the file and its folder (and that it is not locked or immutable)" },
  EROFS: { meaning: "the file system is read-only", hint: "run it in a writable checkout" },
  ENOSPC: { meaning: "no space left on the device", hint: "free some disk space and run it again" },
  EDQUOT: { meaning: "disk quota exceeded", hint: "free some disk space and run it again" },
  EISDIR: { meaning: "a folder stands where a file is expected", hint: "move the folder away or choose another path" },
  ENOTDIR: { meaning: "a file stands where a folder is expected", hint: "move the file away or choose another path" },
  ELOOP: { meaning: "too many symbolic links", hint: "replace the symbolic link loop with a real folder" },
  EEXIST: { meaning: "the file appeared while it was being created (another run at the same time?)", hint: "run it again" },
  EMFILE: { meaning: "too many open files", hint: "raise the open-file limit (`ulimit -n`) and run it again" },
};

/**
 * A file-system error that is the environment's doing, not a bug (a name too long, no
 * permission, a read-only disk), as a diagnostic naming `path`; `undefined` for anything else.
 */
export function environmentProblem(path: string, caught: unknown): Diagnostic | undefined {
  const code = (caught as NodeJS.ErrnoException | undefined)?.code;
  const known = code === undefined ? undefined : environmentCodes[code];
  if (known === undefined) return undefined;
  return error({ file: path, line: 0, column: 0 }, "file-system", `cannot write or read \`${path}\`: ${known.meaning} (${code ?? ""})`, known.hint);
}
