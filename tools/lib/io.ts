/**
 * The disk, for the CLIs: finding documents, atomic writes, symlink-safe paths, and the stat
 * cache that lets a no-change re-tangle finish without reading or hashing anything.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { sha256 } from "./plan.ts";

/** Lists `literate/**\/*.md` under `root`, as sorted project-relative POSIX paths. */
export function listDocuments(root: string, folder = "literate"): string[] {
  const base = join(root, folder);
  if (!existsSync(base)) return [];
  const entries = readdirSync(base, { recursive: true, encoding: "utf8" });
  return entries
    .filter((entry) => entry.endsWith(".md"))
    .map((entry) => `${folder}/${entry.split(sep).join("/")}`)
    .filter((path) => statSync(join(root, path)).isFile())
    .sort();
}

/** Reads a file as UTF-8, or `undefined` when it does not exist. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (caught) {
    if (isMissing(caught)) return undefined;
    throw caught;
  }
}

/**
 * Refuses a project-relative path whose existing part resolves outside `root` through a
 * symlink. Returns the reason, or `undefined` when the path is safe.
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
  while (!existsSync(probe)) {
    const parent = dirname(probe);
    if (parent === probe) break;
    probe = parent;
  }
  const stat = lstatSync(probe);
  const resolved = stat.isSymbolicLink() || probe !== join(root, path) ? realpath(probe) : realpath(dirname(probe));
  const rel = relative(realRoot, resolved);
  if (rel.startsWith("..") || rel.startsWith(sep)) return `\`${path}\` leads outside the project through a symbolic link`;
  if (stat.isSymbolicLink()) return `\`${path}\` is a symbolic link; tangle writes only regular files`;
  if (probe === join(root, path) && stat.isDirectory()) return `\`${path}\` is a folder; tangle writes only regular files`;
  if (probe !== join(root, path) && !stat.isDirectory()) return `\`${relative(root, probe).split(sep).join("/")}\` is a file, so \`${path}\` cannot be created inside it`;
  return undefined;
}

/** Writes a file atomically: a temporary file beside it, then a rename. Creates folders. */
export function writeAtomically(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  try {
    writeFileSync(temporary, content);
    renameSync(temporary, path);
  } catch (caught) {
    try {
      unlinkSync(temporary);
    } catch {
      // the temporary file was never created
    }
    throw caught;
  }
}

/** Size and modification time: enough to tell that a file has not changed since we looked. */
export interface StatStamp {
  readonly size: number;
  readonly mtimeMs: number;
}

/** What the stat cache remembers of one file. */
export interface CachedFile extends StatStamp {
  readonly hash: string;
}

/** The stat cache (in `.cache/`, never committed). */
export interface StatCache {
  readonly version: 1;
  /** When the cache was written (ms); files modified at or after it are re-read ("racily clean"). */
  readonly writtenAtMs: number;
  readonly files: Readonly<Record<string, CachedFile>>;
  /** The last successful tangle: a digest of its sources and the hash of the manifest it left. */
  readonly lastRun?: { readonly sourcesDigest: string; readonly manifestHash: string };
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
  const text = readIfExists(join(root, statCachePath));
  if (text !== undefined) {
    try {
      const value = JSON.parse(text) as StatCache;
      if (value.version === 1 && typeof value.writtenAtMs === "number" && typeof value.files === "object") return value;
    } catch {
      // a broken cache is ignored and rewritten
    }
  }
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
  /** How many files had to be read (for tests and benchmarks). */
  reads = 0;

  constructor(root: string, cache: StatCache) {
    this.#root = root;
    this.#cache = cache;
  }

  /** The hash of a file, or `undefined` if it does not exist; `text` is filled when it had to be read. */
  hash(path: string): { hash: string; text?: string } | undefined {
    const stat = statIfExists(join(this.#root, path));
    if (stat === undefined) return undefined;
    const cached = this.#cache.files[path];
    if (cached !== undefined && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs && stat.mtimeMs < this.#cache.writtenAtMs) {
      this.#seen[path] = cached;
      return { hash: cached.hash };
    }
    const text = readFileSync(join(this.#root, path), "utf8");
    this.reads++;
    const hash = sha256(text);
    this.#seen[path] = { ...stat, hash };
    return { hash, text };
  }

  /** Records a file just written with known content hash. */
  recordWritten(path: string, hash: string): void {
    const stat = statIfExists(join(this.#root, path));
    if (stat !== undefined) this.#seen[path] = { ...stat, hash };
  }

  /** Forgets a deleted file. */
  forget(path: string): void {
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

/** True for the errors that mean "nothing is there": no such file, or a file where a folder should be. */
function isMissing(caught: unknown): boolean {
  const code = (caught as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}
