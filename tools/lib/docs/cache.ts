/**
 * Content-hash caches for the docs build, under `.cache/docs/` in the project root.
 *
 * Each expensive step (verify's report, the cross-references, the API reference, highlighted
 * code) is keyed by a hash of exactly what it reads, so a warm rebuild redoes only what changed.
 * A cache entry is a plain file written atomically; a corrupt or missing one is a miss, never an
 * error. Deleting `.cache/` is always safe.
 */
import { createHash } from "node:crypto";
import { copyFileSync, linkSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseJson, readIfExists, writeAtomically } from "../disk/io.ts";

/** The cache folder of the docs build, below the project root. */
export const docsCacheFolder = ".cache/docs";

/** A hex digest of the parts, each length-prefixed so that no two part lists collide. */
export function hashParts(parts: readonly string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(`${part.length}:`).update(part);
  return hash.digest("hex").slice(0, 32);
}

/** Folders never part of the tree's fingerprint: outputs, caches and dependencies. */
const ignoredFolders: ReadonlySet<string> = new Set(["node_modules", ".git", ".cache", "site", "site-artifacts", ".corpus"]);

/**
 * A fingerprint of the project tree as verify sees it: the path, size and modification time of
 * every `.ts`, `.md` and `.json` file outside outputs and dependencies (test evidence under
 * `coverage/` included). Stat only, no reads: cheap enough to take on every build.
 */
export function treeFingerprint(root: string): string {
  const parts: string[] = [];
  const walk = (dir: string, rel: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (entry.isDirectory()) {
        if (ignoredFolders.has(entry.name) || entry.name.includes(".tmp-")) continue;
        walk(join(dir, entry.name), `${rel}${entry.name}/`);
      } else if (/\.(ts|md|json)$/.test(entry.name)) {
        const stat = statSync(join(dir, entry.name), { throwIfNoEntry: false });
        if (stat !== undefined) parts.push(`${rel}${entry.name}\0${stat.size}\0${stat.mtimeMs}`);
      }
    }
  };
  walk(root, "");
  return hashParts(parts);
}

/** The path of a cache entry, for copying it out without reading it. */
export function cachedPath(root: string, name: string): string {
  return join(root, docsCacheFolder, name);
}

/** Reads a cached JSON value, or `undefined` when there is none or it does not parse. */
export function readCachedJson<T>(root: string, name: string): T | undefined {
  const text = readIfExists(cachedPath(root, name));
  return text === undefined ? undefined : (parseJson(text) as T | undefined);
}

/** Writes a cache entry atomically: a string as it is, any other value as JSON (a failure to write is not a build failure). */
export function writeCached(root: string, name: string, value: unknown): void {
  try {
    writeAtomically(cachedPath(root, name), typeof value === "string" ? value : JSON.stringify(value));
  } catch {
    // A read-only checkout builds as before, only without the warm path.
  }
}

/** Writes `value` as the one cache entry of `step` (named `step-KEY.json`): the step's entries under other keys are removed. */
export function replaceCachedJson(root: string, step: string, name: string, value: unknown): void {
  writeCached(root, name, value);
  pruneCache(root, (n) => n.startsWith(`${step}-`) && n !== name);
}

/**
 * A step's value through the cache: the entry `step-KEY.json` when it holds an object (anything
 * else, a hand edit or a cut-short write, is a miss), else `compute()`'s, stored as the step's
 * one entry. Without `useCache`, computed only.
 */
export function throughCache<T extends object>(root: string, step: string, key: string, useCache: boolean, compute: () => T): { value: T; cached: boolean } {
  const name = `${step}-${key}.json`;
  const cached = useCache ? readCachedJson<T>(root, name) : undefined;
  if (typeof cached === "object" && cached !== null) return { value: cached, cached: true };
  const value = compute();
  if (useCache) replaceCachedJson(root, step, name, value);
  return { value, cached: false };
}

/** A cache file holding one map from content keys to values (highlighted code, Markdown trees), as one build uses it. */
export interface MapCache<T> {
  /** The value under `key`: this build's, else the file's (read on first use, or `held` as a previous build left it). */
  get(key: string): T | undefined;
  set(key: string, value: T): void;
  /** The entries this build used. */
  readonly used: ReadonlyMap<string, T>;
  /** Whether this build changed what the file should hold: it set a value, or left unused one the file held. */
  changed(): boolean;
}

/** The map cache in the file `name`; not read at all when nothing is asked of it. */
export function mapCache<T>(root: string, name: string, useCache: boolean, held?: Record<string, T>): MapCache<T> {
  let stored: Record<string, T> | undefined;
  let loaded = false;
  let added = false;
  const used = new Map<string, T>();
  return {
    get: (key) => {
      if (!loaded) {
        stored = held ?? (useCache ? readCachedJson<Record<string, T>>(root, name) : undefined);
        loaded = true;
      }
      const value = used.get(key) ?? stored?.[key];
      if (value !== undefined) used.set(key, value);
      return value;
    },
    set: (key, value) => {
      used.set(key, value);
      added = true;
    },
    used,
    changed: () => added || Object.keys(stored ?? {}).some((key) => !used.has(key)),
  };
}

/** Removes the entries of the cache folder `folder` (default: the top) that are `stale`, e.g. a step's old keys. */
export function pruneCache(root: string, stale: (name: string) => boolean, folder = ""): void {
  const dir = cachedPath(root, folder);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (stale(name)) rmSync(join(dir, name), { recursive: true, force: true });
}

/**
 * Mirrors the folder `from` at `to` with hard links (a copy where links are refused, e.g. across
 * devices). Safe because no file of the site or the cache is ever rewritten in place: each build
 * writes new files into a staging folder and swaps it in. A warm build of several hundred API
 * pages then costs a directory walk instead of copying every byte.
 */
export function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) linkTree(source, target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
      }
    }
  }
}

/** Stores a copy of the folder `from` in the cache under `name`. */
export function storeCachedFolder(root: string, name: string, from: string): void {
  try {
    const temp = cachedPath(root, `${name}.tmp-${process.pid}`);
    rmSync(temp, { recursive: true, force: true });
    linkTree(from, temp);
    rmSync(cachedPath(root, name), { recursive: true, force: true });
    renameSync(temp, cachedPath(root, name));
  } catch {
    // As above: no cache, no failure.
  }
}
