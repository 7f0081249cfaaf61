/**
 * One stitch run against a project folder (`npm run stitch`, and `npm run dev -- --stitch` on a
 * save in `generated/`): reads the documents, tangle's manifest and the targets, asks `stitch`
 * (pure) where each edit goes, and then writes all of it or nothing: the changed documents as
 * one batch (each to a temporary file, then renamed), then a tangle of the stitched book, which
 * rewrites only the edited targets' source map lines (stitch proved in memory that nothing else
 * differs) and tangle's manifest.
 */
import { join } from "node:path";
import { LiterateError, error } from "../core/diagnostics.ts";
import { listDocuments, readDocument, readIfExists, writeAllAtomically } from "../disk/io.ts";
import { sha256 } from "../core/plan.ts";
import { stitch, type StitchedEdit } from "../core/stitch.ts";
import { readManifest, runTangle } from "./tangle-run.ts";

/** Options of a run. */
export interface StitchRunOptions {
  readonly root: string;
  /** Write nothing: say what would be taken back (or refused). */
  readonly check?: boolean;
}

/** What a run took back. */
export interface StitchRunReport {
  readonly edits: readonly StitchedEdit[];
  /** The documents written (or, with `check`, that would be). */
  readonly documents: readonly string[];
  /** The targets that held edits. */
  readonly edited: readonly string[];
}

/** Runs stitch on a project folder. Throws `LiterateError` with every refusal, having written nothing. */
export function runStitch(options: StitchRunOptions): StitchRunReport {
  const { root } = options;
  const paths = listDocuments(root);
  if (paths.length === 0) {
    throw new LiterateError([error({ file: root, line: 0, column: 0 }, "bad-root", `\`${root}\` has no documents in \`literate/\``, "run stitch in the project root, or name it with `--root DIR`")]);
  }
  const documents = paths.map((path) => ({ path, text: readDocument(root, path) }));
  const manifest = readManifest(root);
  const read = new Map<string, string | undefined>();
  const files = (path: string): string | undefined => {
    if (!read.has(path)) read.set(path, readIfExists(join(root, path)));
    return read.get(path);
  };
  const outcome = stitch(manifest === undefined ? { documents, files } : { documents, files, manifest });
  if (!outcome.ok) throw new LiterateError(outcome.problems);
  // Tangle (run below with --force, to replace the edited targets) would also delete a hand-edited file no document writes any more: refuse that here.
  const orphans = Object.entries(manifest?.files ?? {}).filter(([path, hash]) => outcome.result?.files.has(path) !== true && ((text) => text !== undefined && sha256(text) !== hash)(files(path)));
  if (orphans.length > 0) {
    throw new LiterateError(
      orphans.map(([path]) => error({ file: path, line: 0, column: 0 }, "stitch-orphan", `\`${path}\` is no longer written by any document, but was edited by hand`, "move it away (or restore it with `git checkout`), then stitch")),
    );
  }
  const report: StitchRunReport = { edits: outcome.edits, documents: [...outcome.documents.keys()], edited: outcome.edited };
  if (options.check === true || outcome.edited.length === 0) return report;
  if (outcome.documents.size > 0) writeAllAtomically(root, [...outcome.documents].map(([path, content]) => ({ path, content })));
  // Also when no document changed: an edited file whose only change was tangle's own (a comment re-indented) is written back.
  runTangle({ root, force: true });
  return report;
}

/**
 * Which of `paths` are tangled files holding a text other than the one tangle recorded for them
 * (`npm run dev -- --stitch` asks, to pass over tangle's own writes).
 */
export function editedTargets(root: string, paths: readonly string[]): string[] {
  const recorded = readManifest(root)?.files ?? {};
  return paths.filter((path) => {
    const hash = recorded[path];
    if (hash === undefined) return false;
    const text = readIfExists(join(root, path));
    return text !== undefined && sha256(text) !== hash;
  });
}
