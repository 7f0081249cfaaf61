/**
 * Stamps: `tested=HASH` in a fence, written only by `verify --stamp`.
 *
 * The hash covers the block's own text and, recursively, the text of every block it splices,
 * so a stamp goes stale the moment the code it vouches for changes, including code pulled in
 * through `<<name>>`. Twelve hex digits of SHA-256.
 */
import { createHash } from "node:crypto";
import type { TangleResult } from "./tangle.ts";

/**
 * Computes every block's hash over tangle's splice graph (`result.references`): a block's lines,
 * each `<<name>>` line followed by the hashes of the blocks spliced there. Memoized; reference
 * cycles are tangle errors, guarded anyway (a block met again while its own hash is computed adds "").
 */
export function blockHashes(result: Pick<TangleResult, "blocks" | "references">): string[] {
  const { blocks, references } = result;
  const memo: (string | undefined)[] = [];
  const visiting = new Set<number>();
  const hashOf = (i: number): string => {
    const known = memo[i];
    if (known !== undefined) return known;
    const block = blocks[i];
    if (block === undefined || visiting.has(i)) return "";
    visiting.add(i);
    const h = createHash("sha256");
    const refs = references[i] ?? [];
    let next = 0;
    block.lines.forEach((line, k) => {
      h.update(line);
      h.update("\n");
      while (next < refs.length && (refs[next]?.line ?? 0) < k) next++;
      const ref = refs[next];
      if (ref !== undefined && ref.line === k) for (const child of ref.blocks) h.update(`<<${hashOf(child)}>>`);
    });
    visiting.delete(i);
    const digest = h.digest("hex").slice(0, 12);
    memo[i] = digest;
    return digest;
  };
  return blocks.map((_, i) => hashOf(i));
}

/** A stamp change on one fence line: the stamp to have (or `undefined` for none). */
export interface StampEdit {
  /** 1-based line of the fence. */
  readonly line: number;
  readonly stamp: string | undefined;
}

const stampToken = /([ \t]+)tested=\S*/;

/**
 * Applies stamp edits to a document's text, touching only the named fence lines and keeping
 * line endings. Returns the text unchanged when no edit changes anything.
 */
export function applyStampEdits(text: string, edits: readonly StampEdit[]): string {
  if (edits.length === 0) return text;
  const parts = text.split(/(\r\n|\r|\n)/);
  for (const edit of edits) {
    const index = (edit.line - 1) * 2;
    const line = parts[index];
    if (line === undefined) continue;
    if (stampToken.test(line)) parts[index] = line.replace(stampToken, edit.stamp === undefined ? "" : `$1tested=${edit.stamp}`);
    else if (edit.stamp !== undefined) parts[index] = `${line.replace(/[ \t]+$/, "")} tested=${edit.stamp}`;
  }
  return parts.join("");
}
