/**
 * One tangle run against a project folder: the CLI's whole job, as a function tests can call.
 *
 * Order of work: read documents (through the stat cache), tangle in memory, refuse on any
 * error, check every target path against symlinks, plan, refuse on conflicts, then write
 * atomically, delete orphans, and write the manifest last.
 */
import { join } from "node:path";
import { LiterateError, error, type Diagnostic } from "./diagnostics.ts";
import { HashingReader, escapesThroughSymlink, listDocuments, loadStatCache, readIfExists, writeAtomically } from "./io.ts";
import { checkTargetPath, manifestPath } from "./paths.ts";
import { parseManifest, planWrites, sha256, type Action, type Manifest } from "./plan.ts";
import { tangle, type TangleInput, type TangleResult } from "./tangle.ts";
import { statSync, unlinkSync } from "node:fs";

/** Options of a run. */
export interface TangleRunOptions {
  readonly root: string;
  /** Write nothing; report what is out of date. */
  readonly check?: boolean;
  /** Overwrite hand-edited and foreign files. */
  readonly force?: boolean;
}

/** What a run did (or, with `check`, would do). */
export interface TangleRunReport {
  readonly documents: number;
  readonly actions: readonly Action[];
  readonly unchanged: number;
  readonly warnings: readonly Diagnostic[];
  /** True when the stat cache proved everything current without tangling. */
  readonly fastPath: boolean;
  /** The in-memory result, when the run tangled. */
  readonly result?: TangleResult;
}

/** Reads every document of the project (through the cache) and returns their inputs and digest. */
function readDocuments(root: string, reader: HashingReader): { inputs: TangleInput[]; digest: string; allCached: boolean; count: number } {
  const paths = listDocuments(root);
  const parts: string[] = [];
  const hashed = paths.map((path) => {
    const entry = reader.hash(path);
    if (entry === undefined) throw new Error(`document vanished while reading: ${path}`);
    parts.push(`${path}\0${entry.hash}`);
    return { path, entry };
  });
  const allCached = hashed.every((h) => h.entry.text === undefined);
  const digest = sha256(parts.join("\n"));
  const inputs = allCached ? [] : hashed.map(({ path, entry }) => ({ path, text: entry.text ?? readIfExists(join(root, path)) ?? "" }));
  return { inputs, digest, allCached, count: paths.length };
}

function readManifest(root: string): Manifest | undefined {
  const text = readIfExists(join(root, manifestPath));
  const broken = (reason: string): LiterateError =>
    new LiterateError([
      error({ file: manifestPath, line: 0, column: 0 }, "bad-manifest", `tangle's manifest cannot be used: ${reason}`, "restore it with `git checkout`, or delete it and run `npm run tangle -- --force`"),
    ]);
  let manifest: Manifest | undefined;
  try {
    manifest = parseManifest(text);
  } catch (caught) {
    throw broken((caught as Error).message);
  }
  // The manifest decides what tangle may delete, so every entry must be a path tangle could have written.
  for (const path of Object.keys(manifest?.files ?? {})) {
    const checked = checkTargetPath(path);
    if (!checked.ok || checked.path !== path) throw broken(`it names \`${path}\`, which is not a target tangle can write`);
  }
  return manifest;
}

/** Runs tangle on a project folder. Throws `LiterateError` on user errors, with nothing written. */
export function runTangle(options: TangleRunOptions): TangleRunReport {
  const { root } = options;
  // A mistyped `--root` must not create a stray project (or fail as if tangle had a bug).
  if (statSync(root, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new LiterateError([error({ file: root, line: 0, column: 0 }, "bad-root", `\`${root}\` is not a folder`, "run tangle in the project root, or name it with `--root DIR`")]);
  }
  const cache = loadStatCache(root);
  const reader = new HashingReader(root, cache);
  let documents = readDocuments(root, reader);
  const manifest = readManifest(root);

  if (documents.allCached && cache.lastRun?.sourcesDigest === documents.digest && manifest !== undefined && !options.force) {
    const manifestEntry = reader.hash(manifestPath);
    const current = manifestEntry?.hash === cache.lastRun.manifestHash && Object.entries(manifest.files).every(([path, hash]) => reader.hash(path)?.hash === hash);
    if (current) {
      if (!options.check) reader.save(cache.lastRun);
      return { documents: documents.count, actions: [], unchanged: Object.keys(manifest.files).length, warnings: [], fastPath: true };
    }
  }
  if (documents.allCached) {
    const fresh = new HashingReader(root, { version: 1, writtenAtMs: 0, files: {} });
    documents = readDocuments(root, fresh);
  }

  const result = tangle(documents.inputs);
  const warnings = result.diagnostics.filter((d) => d.severity === "warning");
  if (!result.ok) throw new LiterateError(result.diagnostics);

  const unsafe: Diagnostic[] = [];
  const realpaths = new Map<string, string>();
  for (const path of result.files.keys()) {
    const reason = escapesThroughSymlink(root, path, realpaths);
    if (reason !== undefined) unsafe.push(error({ file: path, line: 0, column: 0 }, "bad-target", reason, "targets must be regular files inside the project"));
  }
  if (unsafe.length > 0) throw new LiterateError(unsafe);

  const plan = planWrites(
    result.files,
    manifest,
    (path) => {
      const entry = reader.hash(path);
      return entry === undefined ? { exists: false } : { exists: true, hash: entry.hash };
    },
    { force: options.force === true },
  );
  if (plan.conflicts.length > 0) throw new LiterateError(plan.conflicts);
  for (const action of plan.actions) {
    if (action.kind !== "delete") continue;
    const reason = escapesThroughSymlink(root, action.path, realpaths);
    if (reason !== undefined) unsafe.push(error({ file: action.path, line: 0, column: 0 }, "bad-target", reason, "tangle deletes only regular files inside the project"));
  }
  if (unsafe.length > 0) throw new LiterateError(unsafe);

  const report: TangleRunReport = { documents: documents.inputs.length, actions: plan.actions, unchanged: plan.unchanged.length, warnings, fastPath: false, result };
  if (options.check) return report;

  for (const action of plan.actions) {
    if (action.kind === "write") {
      writeAtomically(join(root, action.path), action.content);
      reader.recordWritten(action.path, plan.manifest.files[action.path] ?? sha256(action.content));
    }
  }
  for (const action of plan.actions) {
    if (action.kind === "delete") {
      unlinkSync(join(root, action.path));
      reader.forget(action.path);
    }
  }
  const manifestHash = sha256(plan.manifestText);
  reader.recordWritten(manifestPath, manifestHash);
  reader.save({ sourcesDigest: documents.digest, manifestHash });
  return report;
}
