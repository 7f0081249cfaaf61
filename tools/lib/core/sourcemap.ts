/**
 * Source maps (v3) from a generated file back to Markdown lines.
 *
 * Each generated line that came from a block gets a segment at every word start, mapped to the
 * same word in the Markdown, so stack traces land on the right line *and* column. Header and
 * provenance lines get no segment. Maps carry no `sourcesContent`: writing a stamp into a fence
 * line must not change a generated file.
 */
import { Buffer } from "node:buffer";

const base64Codes: readonly number[] = Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", (c) => c.charCodeAt(0));

/** Where one generated line came from: a Markdown source, its 0-based line, and the column shift. */
export interface LineOrigin {
  readonly source: number;
  readonly line: number;
  /** Markdown column of generated column c is `c + shift`. */
  readonly shift: number;
}

export interface SourceMapV3 {
  readonly version: 3;
  readonly file: string;
  readonly sources: readonly string[];
  readonly names: readonly string[];
  readonly mappings: string;
}

/** One signed integer as a base64 VLQ: the digits `writeVlq` writes. */
export function encodeVlq(value: number): string {
  const bytes = new Uint8Array(7);
  return String.fromCharCode(...bytes.subarray(0, writeVlq(bytes, 0, value)));
}

/** Writes `value` as a base64 VLQ at `at`; returns the end. */
export function writeVlq(bytes: Uint8Array, at: number, value: number): number {
  // Most deltas (a column a few characters on) are one digit: 0 to 15 need no continuation bit.
  if (value >= 0 && value < 16) {
    bytes[at] = base64Codes[value << 1] ?? 65;
    return at + 1;
  }
  let v = value < 0 ? (-value << 1) | 1 : value << 1;
  let end = at;
  do {
    let digit = v & 31;
    v >>>= 5;
    if (v > 0) digit |= 32;
    bytes[end++] = base64Codes[digit] ?? 65;
  } while (v > 0);
  return end;
}

/**
 * The UTF-16 code units of `text` (source map columns count them). An ASCII text is encoded
 * into `scratch` when it fits (one native copy, no allocation; a loop over a typed array is
 * also faster than `charCodeAt`); the view is valid until `scratch` is written again.
 */
function codeUnits(text: string, scratch: Buffer): Uint8Array | Uint16Array {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit: then the whole text fits, and it is ASCII exactly when every unit took one byte.
  if (3 * text.length <= scratch.length) {
    const written = scratch.write(text, 0, "utf8");
    if (written === text.length) return scratch.subarray(0, written);
  } else {
    const ascii = Buffer.from(text, "utf8");
    if (ascii.length === text.length) return ascii;
  }
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return units;
}

/**
 * Builds the `mappings` of a map incrementally, one generated line at a time. The text is kept
 * as ASCII bytes in one growing buffer (VLQ digits written directly, exactly as `encodeVlq`
 * spells them), so a large map costs no string per segment.
 */
export class MappingsBuilder {
  #bytes = new Uint8Array(4096);
  /** Room to encode a line or block of code into, reused. */
  readonly #scratch = Buffer.allocUnsafe(64 * 1024);
  #length = 0;
  #lines = 0;
  #source = 0;
  #line = 0;
  #column = 0;

  /** Starts a new map, keeping the buffer: one builder serves every target of a run in turn. */
  reset(): void {
    this.#length = 0;
    this.#lines = 0;
    this.#source = 0;
    this.#line = 0;
    this.#column = 0;
  }

  /** Room for `extra` more bytes. */
  #reserve(extra: number): Uint8Array {
    if (this.#length + extra > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + extra));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    return this.#bytes;
  }

  /** Adds a generated line with no mapping (headers, provenance comments): a `;` before every line but the first. */
  addUnmapped(): void {
    if (this.#lines > 0) this.#reserve(1)[this.#length++] = 59; // ;
    this.#lines++;
  }

  /**
   * Adds `text` as generated lines (split at `\n`; a line of code is one), line k mapped to line
   * `origin.line + k` with the same shift, one segment per word start: in one pass over a verbatim
   * block's text with no string per line. Returns how many lines it added.
   */
  addMappedLines(text: string, origin: LineOrigin): number {
    const before = this.#lines;
    this.addUnmapped();
    const codes = codeUnits(text, this.#scratch);
    const { source: toSource, shift } = origin;
    const to = text.length;
    // A segment is at most 1 + 4 VLQs of 7 digits (32-bit values), and there is at most one per two characters; each line adds a `;`.
    const bytes = this.#reserve(15 * to + 29);
    let at = this.#length;
    let source = this.#source;
    let line = this.#line;
    let column = this.#column;
    let toLine = origin.line;
    let lineStart = 0;
    let previousGenerated = 0;
    let first = true;
    let i = 0;
    // Word starts: a character other than space, tab or newline, first on its line or after a space or tab.
    while (i < to) {
      let code = codes[i];
      if (code === 32 || code === 9) {
        i++;
        continue;
      }
      if (code === 10) {
        bytes[at++] = 59; // ;
        this.#lines++;
        toLine++;
        lineStart = ++i;
        previousGenerated = 0;
        first = true;
        continue;
      }
      const c = i - lineStart;
      const sourceColumn = c + shift > 0 ? c + shift : 0;
      if (first) {
        first = false;
        at = writeVlq(bytes, at, c - previousGenerated);
        at = writeVlq(bytes, at, toSource - source);
        at = writeVlq(bytes, at, toLine - line);
        at = writeVlq(bytes, at, sourceColumn - column);
      } else {
        // Later words of a line: same source and line ("AA"). Most words are less than 16
        // characters on, and then each delta is one digit: written here without a call.
        const generatedDelta = c - previousGenerated;
        const sourceDelta = sourceColumn - column;
        if (generatedDelta < 16 && sourceDelta >= 0 && sourceDelta < 16) {
          bytes[at] = 44; // ,
          bytes[at + 1] = base64Codes[generatedDelta << 1] ?? 65;
          bytes[at + 2] = 65; // A: same source
          bytes[at + 3] = 65; // A: same line
          bytes[at + 4] = base64Codes[sourceDelta << 1] ?? 65;
          at += 5;
        } else {
          bytes[at++] = 44;
          at = writeVlq(bytes, at, generatedDelta);
          bytes[at++] = 65;
          bytes[at++] = 65;
          at = writeVlq(bytes, at, sourceDelta);
        }
      }
      previousGenerated = c;
      source = toSource;
      line = toLine;
      column = sourceColumn;
      for (i++; i < to; i++) {
        code = codes[i];
        if (code === 32 || code === 9 || code === 10) break;
      }
    }
    this.#length = at;
    this.#source = source;
    this.#line = line;
    this.#column = column;
    return this.#lines - before;
  }

  /** The `mappings` so far, as ASCII bytes (a view, valid until the next addition). */
  bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }

  /** The `mappings` string so far. */
  toString(): string {
    return Buffer.from(this.#bytes.buffer, this.#bytes.byteOffset, this.#length).toString("latin1");
  }
}

/**
 * How a generated file's source map comment begins: the map travels inside the file, base64
 * JSON in a data URL, so a target is one file (half the files a tangle creates), and tools
 * that read input maps only from the file itself (esbuild's transform, hence tsx) still find it.
 */
export const inlineSourceMapPrefix = "//# sourceMappingURL=data:application/json;charset=utf-8;base64,";

/**
 * The comment that carries a v3 map of `file` inline; `mappings` is given as the builder's ASCII
 * bytes, copied here (the builder's buffer may be reused at once).
 */
export function inlineSourceMapComment(file: string, sources: readonly string[], mappings: Uint8Array): string {
  const head = Buffer.from(`{"version":3,"file":${JSON.stringify(file)},"sources":${JSON.stringify(sources)},"names":[],"mappings":"`, "utf8");
  return `${inlineSourceMapPrefix}${Buffer.concat([head, mappings, Buffer.from('"}', "latin1")]).toString("base64")}`;
}

/**
 * Where a generated file's inline source map stands: the offsets of its last line (`end` before
 * the final newline), or `undefined` when the last line carries no inline map.
 */
export function inlineSourceMapLine(content: string): { readonly start: number; readonly end: number } | undefined {
  const end = content.endsWith("\n") ? content.length - 1 : content.length;
  const start = content.lastIndexOf("\n", end - 1) + 1;
  return content.startsWith(inlineSourceMapPrefix, start) ? { start, end } : undefined;
}

/** The inline source map a generated file ends with, or `undefined` when its last line carries none. */
export function readInlineSourceMap(content: string): SourceMapV3 | undefined {
  const line = inlineSourceMapLine(content);
  if (line === undefined) return undefined;
  const payload = content.slice(line.start + inlineSourceMapPrefix.length, line.end);
  return JSON.parse(Buffer.from(payload, "base64").toString("utf8")) as SourceMapV3;
}
