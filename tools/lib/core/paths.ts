/**
 * Target paths: where tangle may write.
 *
 * A target is a project-relative POSIX path. It may not be absolute, escape the project with
 * `..`, or point into `literate/` (the sources), `node_modules/`, `.git/` or `.cache/` (where
 * tangle keeps its stat cache). The check is pure;
 * the CLI adds the one check that needs the disk (no symlinked folder leading outside the root,
 * or into one of these folders).
 */
import { posix } from "node:path";

/** Folders no target may be written into. */
export const forbiddenRoots: readonly string[] = ["literate", "node_modules", ".git", ".cache"];

/** The manifest tangle keeps of every file it wrote, with its hash. */
export const manifestPath = "generated/.tangle-manifest.json";

/** The outcome of checking a target path: the normalized path, or why it is refused. */
export type TargetCheck = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string };

/** Normalizes and checks a target path given in front matter or `file=`. */
export function checkTargetPath(raw: string): TargetCheck {
  if (raw.includes("\\")) return { ok: false, reason: `target \`${raw}\` uses backslashes; write it with \`/\`` };
  if (raw.includes("\0")) return { ok: false, reason: `target \`${raw}\` holds a NUL character` };
  if (/[\u0001-\u001f\u007f-\u009f]/.test(raw)) return { ok: false, reason: `target \`${raw}\` holds a control character` };
  if (posix.isAbsolute(raw) || /^[A-Za-z]:/.test(raw)) return { ok: false, reason: `target \`${raw}\` is absolute; targets are relative to the project root` };
  const path = posix.normalize(raw);
  if (path === "." || path.endsWith("/") || path === "") return { ok: false, reason: `target \`${raw}\` names a folder, not a file` };
  if (path === ".." || path.startsWith("../")) return { ok: false, reason: `target \`${raw}\` is outside the project` };
  const first = path.split("/")[0] ?? "";
  if (forbiddenRoots.includes(first)) return { ok: false, reason: `target \`${raw}\` is inside \`${first}/\`, which tangle never writes` };
  if (path === manifestPath) return { ok: false, reason: `target \`${raw}\` is tangle's own manifest` };
  return { ok: true, path };
}

/** True when `path` is a target tangle could have written, already in its normal form (as a manifest or journal must name it). */
export function isCanonicalTarget(path: string): boolean {
  const checked = checkTargetPath(path);
  return checked.ok && checked.path === path;
}

/** True when `path` names a TypeScript file (`.ts`, `.tsx`, `.mts`, `.cts`): a target the type-checker, the analyses and the docs' cross-references read. */
export function isTypeScriptPath(path: string): boolean {
  return /\.(c|m)?tsx?$/.test(path);
}
