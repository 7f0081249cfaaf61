/**
 * Planning writes: what tangle must write or delete, decided before anything is touched.
 *
 * Pure over hashes. The manifest records the hash of every file tangle wrote; a file on disk
 * whose hash differs from its record was edited by hand, and a file tangle never recorded
 * belongs to a human. Either is a conflict: the whole run stops and nothing is written,
 * unless `force` is given. Files whose content would not change are not rewritten.
 */
import { createHash } from "node:crypto";
import { error, type Diagnostic } from "./diagnostics.ts";
import { manifestPath } from "./paths.ts";

/** The manifest: every file tangle wrote, with the SHA-256 of its content. */
export interface Manifest {
  readonly version: 1;
  readonly files: Readonly<Record<string, string>>;
}

/** What the disk holds at a path: nothing, or content with this hash. */
export type DiskEntry = { readonly exists: false } | { readonly exists: true; readonly hash: string };

export type Action =
  | { readonly kind: "write"; readonly path: string; readonly content: string | Uint8Array; readonly reason: "new" | "changed" }
  | { readonly kind: "delete"; readonly path: string };

export interface Plan {
  readonly actions: readonly Action[];
  readonly conflicts: readonly Diagnostic[];
  readonly unchanged: readonly string[];
  readonly manifest: Manifest;
  /** The manifest file's new content (its path is `manifestPath`). */
  readonly manifestText: string;
}

/** SHA-256 of a string (its UTF-8 bytes) or of bytes, hex. */
export function sha256(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Serializes a manifest deterministically (sorted keys), so `--check` can compare it. */
export function formatManifest(manifest: Manifest): string {
  const files: Record<string, string> = {};
  for (const key of Object.keys(manifest.files).sort()) files[key] = manifest.files[key] ?? "";
  return `${JSON.stringify({ version: 1, files }, null, 2)}\n`;
}

/** Reads a manifest, returning `undefined` for an absent one and throwing a readable message for a broken one. */
export function parseManifest(text: string | undefined): Manifest | undefined {
  if (text === undefined) return undefined;
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null || !("files" in value)) throw new Error("manifest has no `files`");
  const files = (value as { files: unknown }).files;
  if (typeof files !== "object" || files === null) throw new Error("manifest `files` is not an object");
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(files)) if (typeof v === "string") out[k] = v;
  return { version: 1, files: out };
}

/**
 * Plans the writes for `files` (path → new content, as text or as the UTF-8 bytes to write)
 * given the previous manifest and what the disk holds.
 */
export function planWrites(
  files: ReadonlyMap<string, string | Uint8Array>,
  previous: Manifest | undefined,
  disk: (path: string) => DiskEntry,
  options: { readonly force?: boolean } = {},
): Plan {
  const force = options.force === true;
  const actions: Action[] = [];
  const conflicts: Diagnostic[] = [];
  const unchanged: string[] = [];
  const recorded: Record<string, string> = {};
  const at = (path: string) => ({ file: path, line: 0, column: 0 });

  for (const path of [...files.keys()].sort()) {
    const content = files.get(path) ?? "";
    const hash = sha256(content);
    recorded[path] = hash;
    const onDisk = disk(path);
    if (!onDisk.exists) {
      actions.push({ kind: "write", path, content, reason: "new" });
      continue;
    }
    if (onDisk.hash === hash) {
      unchanged.push(path);
      continue;
    }
    const known = previous?.files[path];
    if (!force && known === undefined) {
      conflicts.push(error(at(path), "not-ours", `\`${path}\` exists and was not written by tangle`, "move it away, choose another target, or run `npm run tangle -- --force` to overwrite it"));
      continue;
    }
    if (!force && known !== onDisk.hash) {
      conflicts.push(error(at(path), "hand-edited", `\`${path}\` was edited by hand since tangle wrote it`, "run `npm run stitch` to take the edit back into the Markdown (or move it there by hand, then run `npm run tangle -- --force` to overwrite the file)"));
      continue;
    }
    actions.push({ kind: "write", path, content, reason: "changed" });
  }

  for (const path of Object.keys(previous?.files ?? {}).sort()) {
    if (files.has(path)) continue;
    const onDisk = disk(path);
    if (!onDisk.exists) continue;
    if (!force && onDisk.hash !== previous?.files[path]) {
      conflicts.push(error(at(path), "hand-edited", `\`${path}\` is no longer produced by any document, but was edited by hand since tangle wrote it`, "move it away, or run `npm run tangle -- --force` to delete it"));
      continue;
    }
    actions.push({ kind: "delete", path });
  }

  const manifest: Manifest = { version: 1, files: recorded };
  const manifestText = formatManifest(manifest);
  const manifestOnDisk = disk(manifestPath);
  if (!manifestOnDisk.exists || manifestOnDisk.hash !== sha256(manifestText)) {
    actions.push({ kind: "write", path: manifestPath, content: manifestText, reason: manifestOnDisk.exists ? "changed" : "new" });
  }
  return { actions, conflicts, unchanged, manifest, manifestText };
}
