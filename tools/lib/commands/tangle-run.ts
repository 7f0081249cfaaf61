/**
 * One tangle run against a project folder: the CLI's whole job, as a function tests can call.
 *
 * Order of work: refuse a folder without `literate/`, read documents (through the stat cache),
 * tangle in memory (through a `ProjectModel`, the caller's when it keeps one), refuse on any
 * error, check every target path against symlinks, plan, refuse on conflicts, then write every file as one batch (new files in place after a journal
 * naming them, replacements to temporary files; then all renames, the manifest last), delete
 * orphans and the folders they leave empty. Warnings ride along with every outcome, and are
 * kept in the stat cache for runs that tangle nothing.
 */
import { isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { LiterateError, error, type Diagnostic, type Location } from "../core/diagnostics.ts";
import { BatchWriteError, FolderListings, HashingReader, decodeTexts, environmentProblem, escapesThroughSymlink, listDocuments, loadStatCache, parseJson, readFiles, readIfExists, type StatStamp, removeEmptyFolders, writeAllAtomically, writeAtomically } from "../disk/io.ts";
import { isCanonicalTarget, manifestPath } from "../core/paths.ts";
import { formatManifest, parseManifest, planWrites, sha256, type Action, type Manifest } from "../core/plan.ts";
import { ProjectModel } from "../core/project.ts";
import type { TangleInput, TangleResult } from "../core/tangle.ts";
import { Buffer } from "node:buffer";
import { rmSync, statSync, unlinkSync } from "node:fs";

/** Options of a run. */
export interface TangleRunOptions {
  readonly root: string;
  /** Write nothing; report what is out of date. */
  readonly check?: boolean;
  /** Overwrite hand-edited and foreign files. */
  readonly force?: boolean;
  /**
   * The project model the caller keeps (`npm run dev`, which read the saved documents itself):
   * the documents' texts are taken from it instead of read (only their stats are taken, for the
   * stat cache; it must hold every document of `literate/`), and it is what tangles, so only the
   * changed documents are parsed again and the caller reads the same tangle result from it.
   * Without one, the documents are read and tangled by a model of the run's own (fast scanner).
   */
  readonly model?: ProjectModel;
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

/**
 * Every document of the project (each `stat` through the cache) and a digest of their paths, sizes
 * and mtimes: when every document is unchanged since the cache was written (`allCached`), the
 * digest tells whether the set of documents is the one the last run saw, and nothing is read.
 * With `model`, the texts are the model's: none is read, and none counts as cached.
 */
function readDocuments(root: string, reader: HashingReader, model?: ProjectModel): { inputs: TangleInput[]; digest: string; allCached: boolean; count: number } {
  const paths = listDocuments(root);
  const stamps = paths.map((path) => {
    const entry = reader.stat(path);
    if (entry === undefined) throw new Error(`document vanished while reading: ${path}`);
    return entry;
  });
  const digest = sha256(stamps.map(({ stamp }, i) => `${paths[i] ?? ""}\0${stamp.size}\0${stamp.mtimeMs}`).join("\n"));
  const count = paths.length;
  if (model !== undefined) return { inputs: paths.map((path) => ({ path, text: model.text(path) ?? "" })), digest, allCached: false, count };
  const allCached = stamps.every((entry) => entry.unchanged);
  if (allCached) return { inputs: [], digest, allCached, count };
  const texts = decodeTexts(readFiles(root, paths.map((path, i) => ({ path, size: stamps[i]?.stamp.size ?? 0 }))), undefined, paths);
  return { inputs: paths.map((path, i) => ({ path, text: texts[i] ?? "" })), digest, allCached, count };
}

export function readManifest(root: string): Manifest | undefined {
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
    if (!isCanonicalTarget(path)) throw broken(`it names \`${path}\`, which is not a target tangle can write`);
  }
  return manifest;
}

/** Lists the files a run is about to create in place; it exists only while such a run writes. */
export const pendingPath = ".cache/tangle-pending.json";

/**
 * The manifest as this run must see it: when a previous run was killed while creating files in
 * place, the files it listed in `pendingPath` are tangle's own (with whatever they hold now), so
 * they are rewritten or deleted rather than refused as somebody else's.
 */
function withPending(manifest: Manifest | undefined, reader: HashingReader, text: string | undefined): Manifest | undefined {
  if (text === undefined) return manifest;
  // A journal cut short (not JSON) lists nothing that was created.
  const listed = (parseJson(text) as { files?: unknown } | null | undefined)?.files;
  if (!Array.isArray(listed)) return manifest;
  const files: Record<string, string> = { ...(manifest?.files ?? {}) };
  for (const path of listed) {
    if (typeof path !== "string" || files[path] !== undefined || !isCanonicalTarget(path)) continue;
    const onDisk = reader.hash(path);
    if (onDisk !== undefined) files[path] = onDisk.hash;
  }
  return { version: 1, files };
}

/** Runs tangle on a project folder. Throws `LiterateError` on user errors, with nothing written. */
export function runTangle(options: TangleRunOptions): TangleRunReport {
  const { root } = options;
  // A mistyped `--root` must not create a stray project (or fail as if tangle had a bug).
  if (statSync(root, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new LiterateError([error({ file: root, line: 0, column: 0 }, "bad-root", `\`${root}\` is not a folder`, "run tangle in the project root, or name it with `--root DIR`")]);
  }
  // Without `literate/` this is not a project root (or its sources vanished): tangling would
  // create a stray `generated/`, or delete every file tangle ever wrote.
  if (statSync(join(root, "literate"), { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new LiterateError([
      error({ file: root, line: 0, column: 0 }, "bad-root", `\`${root}\` has no \`literate/\` folder, so it is not a literate project root`, "run tangle in the project root (the folder holding `literate/`), or name it with `--root DIR`"),
    ]);
  }
  // Every disk failure from here on (no permission, a name too long) is the environment's, reported with the warnings.
  const warnings: Diagnostic[] = [];
  try {
    return tangleProject(options, warnings);
  } catch (caught) {
    throw environmentFailure(root, caught, warnings);
  }
}

/** The disk phase of `runTangle`: reads, tangles, checks, plans and writes, pushing tangle's warnings onto `warnings`. */
function tangleProject(options: TangleRunOptions, warnings: Diagnostic[]): TangleRunReport {
  const { root } = options;
  const cache = loadStatCache(root);
  const listings = new FolderListings(root);
  const reader = new HashingReader(root, cache, listings);
  let documents = readDocuments(root, reader, options.model);
  // A journal left by a killed run is spent by the next run that completes: its files are then in the manifest, or deleted.
  const journal = readIfExists(join(root, pendingPath));
  const manifest = withPending(readManifest(root), reader, journal);

  if (journal === undefined && documents.allCached && cache.lastRun?.sourcesDigest === documents.digest && manifest !== undefined && !options.force) {
    const manifestEntry = reader.hash(manifestPath);
    const current = manifestEntry?.hash === cache.lastRun.manifestHash && Object.entries(manifest.files).every(([path, hash]) => reader.hash(path)?.hash === hash);
    if (current) {
      if (!options.check) reader.save(cache.lastRun);
      return { documents: documents.count, actions: [], unchanged: Object.keys(manifest.files).length, warnings: cache.lastRun.warnings ?? [], fastPath: true };
    }
  }
  if (documents.allCached) {
    const fresh = new HashingReader(root, { version: 1, writtenAtMs: 0, files: {} });
    documents = readDocuments(root, fresh);
  }

  const model = options.model ?? new ProjectModel();
  model.sync(documents.inputs);
  const result = model.tangle();
  warnings.push(...result.diagnostics.filter((d) => d.severity === "warning"));
  if (!result.ok) throw new LiterateError(result.diagnostics);

  const realpaths = new Map<string, string>();
  refuseSymlinkEscapes(root, result.files.keys(), realpaths, listings, "targets must be regular files inside the project, outside `literate/`, `node_modules/`, `.git/` and `.cache/`", warnings, (path) => targetLocation(result, path));
  // Each file is encoded once: the same bytes are hashed for the manifest and written.
  const encoded = new Map([...result.files].map(([path, content]) => [path, Buffer.from(content, "utf8")]));
  const plan = planWrites(
    encoded,
    manifest,
    (path) => {
      const entry = reader.hash(path);
      return entry === undefined ? { exists: false } : { exists: true, hash: entry.hash };
    },
    { force: options.force === true },
  );
  if (plan.conflicts.length > 0) throw new LiterateError([...plan.conflicts, ...warnings]);
  const deletes = plan.actions.flatMap((a) => (a.kind === "delete" ? [a.path] : []));
  refuseSymlinkEscapes(root, deletes, realpaths, listings, "tangle deletes only regular files inside the project, outside `literate/`, `node_modules/`, `.git/` and `.cache/`", warnings);

  const report: TangleRunReport = { documents: documents.inputs.length, actions: plan.actions, unchanged: plan.unchanged.length, warnings, fastPath: false, result };
  if (options.check) return report;

  // The manifest is the run's commit point: it is always written whole, through a temporary file.
  const fresh = new Set(plan.actions.flatMap((a) => (a.kind === "write" && a.reason === "new" && a.path !== manifestPath ? [a.path] : [])));
  // Fresh files are created in place: say so first, so a run killed halfway leaves files the next run knows as its own.
  if (fresh.size > 0) writeAtomically(join(root, pendingPath), `${JSON.stringify({ version: 1, files: [...fresh].sort() })}\n`);
  writeAll(root, plan.actions, plan.manifest, manifest, reader, fresh);
  for (const path of deletes) {
    unlinkSync(join(root, path));
    reader.forget(path);
    removeEmptyFolders(root, path);
  }
  reader.save({ sourcesDigest: documents.digest, manifestHash: sha256(plan.manifestText), warnings });
  if (fresh.size > 0 || journal !== undefined) rmSync(join(root, pendingPath), { force: true });
  return report;
}

/**
 * Refuses (with `hint`, and the warnings) every path in `paths` that leads outside `root`, or
 * into a folder tangle never writes, through a symlink; each refusal stands at `locate(path)`
 * (by default the path itself). A path whose folder listing shows a regular file or nothing
 * needs no check of its own once its folder is known to be a real folder inside the project
 * (unless its name is the manifest's, which a folder linked to `generated/` would reach); a
 * missing folder is checked for its first path only (the nearest existing folder decides for
 * all of them).
 */
function refuseSymlinkEscapes(
  root: string,
  paths: Iterable<string>,
  realpaths: Map<string, string>,
  listings: FolderListings,
  hint: string,
  warnings: readonly Diagnostic[],
  locate: (path: string) => Location = (path) => ({ file: path, line: 0, column: 0 }),
): void {
  const unsafe: Diagnostic[] = [];
  const safeFolders = new Set<string>();
  const manifestName = posix.basename(manifestPath);
  for (const path of paths) {
    const folder = posix.dirname(path);
    const kind = listings.entry(path);
    // A regular file or nothing at all: its folder decides, and a folder found safe once stays so.
    const folderDecides = (kind === "file" || kind === undefined || kind === null) && posix.basename(path) !== manifestName;
    if (folderDecides && safeFolders.has(folder)) continue;
    const reason = escapesThroughSymlink(root, path, realpaths);
    if (reason !== undefined) unsafe.push(error(locate(path), "bad-target", reason, hint));
    else if (folderDecides) safeFolders.add(folder);
  }
  if (unsafe.length > 0) throw new LiterateError([...unsafe, ...warnings]);
}

/**
 * Where a refused target is named: the `file=` of the first block written at its top level,
 * or the front matter key that sends that block there; the path itself when no block is found.
 */
function targetLocation(result: TangleResult, path: string): Location {
  const index = result.placements.findIndex((placed) => placed?.target === path && placed.parent === -1);
  const block = result.blocks[index];
  if (block === undefined) return { file: path, line: 0, column: 0 };
  const at = { file: block.doc, line: block.line, column: block.column };
  if (block.attrs.file !== undefined) return at;
  const keyLine = result.documents.find((d) => d.path === block.doc)?.frontMatter.keyLines[block.attrs.test ? "test" : "tangle"];
  return keyLine === undefined ? at : { file: block.doc, line: keyLine, column: 1 };
}

/**
 * A file-system failure as the user error it is (exit 1, the file named relative to `root`,
 * the run's warnings kept), or the error itself when it is a bug or already a user error.
 */
function environmentFailure(root: string, caught: unknown, warnings: readonly Diagnostic[]): unknown {
  const [path, cause] = caught instanceof BatchWriteError ? [caught.path, caught.cause] : [projectPath(root, (caught as NodeJS.ErrnoException | undefined)?.path), caught];
  const problem = environmentProblem(path, cause);
  return problem === undefined ? caught : new LiterateError([problem, ...warnings]);
}

/** A path a file-system error names, relative to the project root when it lies inside it. */
function projectPath(root: string, path: string | undefined): string {
  if (path === undefined) return "(unknown file)";
  const inside = relative(resolve(root), resolve(path));
  return inside === "" || inside.startsWith("..") || isAbsolute(inside) ? path : inside.split(sep).join("/");
}

/**
 * Writes every planned file as one batch (the manifest, planned last, is renamed last). When
 * renaming fails midway, the files already renamed are recorded in a manifest written at once,
 * so the next run sees them as tangle's own and not as hand edits.
 */
function writeAll(root: string, actions: readonly Action[], planned: Manifest, previous: Manifest | undefined, reader: HashingReader, fresh: ReadonlySet<string>): void {
  const writes = actions.flatMap((a) => (a.kind === "write" ? [{ path: a.path, content: a.content }] : []));
  let stamps: Map<string, StatStamp>;
  try {
    stamps = writeAllAtomically(root, writes, fresh);
  } catch (caught) {
    if (!(caught instanceof BatchWriteError)) throw caught;
    // Nothing in place (a failure while writing), or what is in place recorded: the journal of fresh files has done its job.
    // (The manifest, renamed last, is never among the renamed files of a failed batch.)
    const recorded = caught.renamed.size === 0 || recordRenamed(root, caught.renamed.keys(), planned, previous);
    if (recorded && fresh.size > 0) rmSync(join(root, pendingPath), { force: true });
    throw caught;
  }
  for (const file of writes) {
    reader.recordWritten(file.path, planned.files[file.path] ?? sha256(file.content), stamps.get(file.path));
  }
}

/** Writes a manifest adding the files a failed batch already renamed into place; false when that fails too. */
function recordRenamed(root: string, renamed: Iterable<string>, planned: Manifest, previous: Manifest | undefined): boolean {
  const files: Record<string, string> = { ...(previous?.files ?? {}) };
  for (const path of renamed) files[path] = planned.files[path] ?? "";
  try {
    writeAtomically(join(root, manifestPath), formatManifest({ version: 1, files }));
    return true;
  } catch {
    return false; // the original failure is the one to report; the journal stays for the next run
  }
}
