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

/** Reads a cached JSON value, or `undefined` when there is none or it does not parse. */
export function readCachedJson<T>(root: string, name: string): T | undefined {
  const text = readIfExists(join(root, docsCacheFolder, name));
  return text === undefined ? undefined : (parseJson(text) as T | undefined);
}

/** Writes `value` as the one cache entry of `step` (named `step-KEY.json`): the step's entries under other keys are removed. */
export function replaceCachedJson(root: string, step: string, name: string, value: unknown): void {
  writeCachedJson(root, name, value);
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

/** Writes a JSON value to the cache atomically (a failure to write is not a build failure). */
export function writeCachedJson(root: string, name: string, value: unknown): void {
  writeCachedText(root, name, JSON.stringify(value));
}

/** The path of a cache entry, for copying it out without reading it. */
export function cachedPath(root: string, name: string): string {
  return join(root, docsCacheFolder, name);
}

/** Writes text to the cache atomically (a failure to write is not a build failure). */
export function writeCachedText(root: string, name: string, text: string): void {
  try {
    writeAtomically(join(root, docsCacheFolder, name), text);
  } catch {
    // A read-only checkout builds as before, only without the warm path.
  }
}

/** Removes the entries of the cache folder `folder` (default: the top) that are `stale`, e.g. a step's old keys. */
export function pruneCache(root: string, stale: (name: string) => boolean, folder = ""): void {
  const dir = join(root, docsCacheFolder, folder);
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

/** Links a cached folder to `to`; false when it is not cached. */
export function restoreCachedFolder(root: string, name: string, to: string): boolean {
  const from = join(root, docsCacheFolder, name);
  if (statSync(from, { throwIfNoEntry: false })?.isDirectory() !== true) return false;
  linkTree(from, to);
  return true;
}

/** Stores a copy of the folder `from` in the cache under `name`. */
export function storeCachedFolder(root: string, name: string, from: string): void {
  try {
    const folder = join(root, docsCacheFolder);
    mkdirSync(folder, { recursive: true });
    const temp = join(folder, `${name}.tmp-${process.pid}`);
    rmSync(temp, { recursive: true, force: true });
    linkTree(from, temp);
    rmSync(join(folder, name), { recursive: true, force: true });
    renameSync(temp, join(folder, name));
  } catch {
    // As above: no cache, no failure.
  }
}
