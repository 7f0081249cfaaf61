/**
 * Source maps (v3) from a generated file back to Markdown lines.
 *
 * Each generated line that came from a block gets a segment at every word start, mapped to the
 * same word in the Markdown, so stack traces land on the right line *and* column. Header and
 * provenance lines get no segment. Maps carry no `sourcesContent`: writing a stamp into a fence
 * line must not change a generated file.
 */

const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Encodes one signed integer as a base64 VLQ. */
export function encodeVlq(value: number): string {
  let v = value < 0 ? (-value << 1) | 1 : value << 1;
  let out = "";
  do {
    let digit = v & 31;
    v >>>= 5;
    if (v > 0) digit |= 32;
    out += base64[digit];
  } while (v > 0);
  return out;
}

import { Buffer } from "node:buffer";

const base64Codes: readonly number[] = Array.from(base64, (c) => c.charCodeAt(0));

/** Where one generated line came from: a Markdown source, its 0-based line, and the column shift. */
export interface LineOrigin {
  readonly source: number;
  readonly line: number;
  /** Markdown column of generated column c is `c + shift`. */
  readonly shift: number;
}

/** A v3 source map as JSON. */
export interface SourceMapV3 {
  readonly version: 3;
  readonly file: string;
  readonly sources: readonly string[];
  readonly names: readonly string[];
  readonly mappings: string;
}

/** Writes `value` as a base64 VLQ (exactly as `encodeVlq` spells it) at `at`; returns the end. */
function writeVlq(bytes: Uint8Array, at: number, value: number): number {
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
 * Builds the `mappings` of a map incrementally, one generated line at a time. The text is kept
 * as ASCII bytes in one growing buffer (VLQ digits written directly, exactly as `encodeVlq`
 * spells them), so a large map costs no string per segment.
 */
export class MappingsBuilder {
  #bytes = new Uint8Array(4096);
  #length = 0;
  #lines = 0;
  #source = 0;
  #line = 0;
  #column = 0;

  /** Room for `extra` more bytes. */
  #reserve(extra: number): Uint8Array {
    if (this.#length + extra > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + extra));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    return this.#bytes;
  }

  /** Starts a generated line: a `;` before every line but the first. */
  #startLine(): void {
    if (this.#lines > 0) this.#reserve(1)[this.#length++] = 59; // ;
    this.#lines++;
  }

  /** Adds a generated line with no mapping (headers, provenance comments). */
  addUnmapped(): void {
    this.#startLine();
  }

  /** Adds a generated line mapped to `origin`, one segment per word start. */
  addMapped(text: string, origin: LineOrigin): void {
    this.#startLine();
    // A segment is at most 1 + 4 VLQs of 7 digits (32-bit values); a line has at most one per character.
    const bytes = this.#reserve(29 * (Math.ceil(text.length / 2) + 1));
    let at = this.#length;
    let source = this.#source;
    let line = this.#line;
    let column = this.#column;
    const { source: toSource, line: toLine, shift } = origin;
    const length = text.length;
    let previousGenerated = 0;
    let first = true;
    let c = 0;
    // Word starts: a character other than space or tab, first on the line or after a space or tab.
    while (c < length) {
      let code = text.charCodeAt(c);
      if (code === 32 || code === 9) {
        c++;
        continue;
      }
      const sourceColumn = c + shift > 0 ? c + shift : 0;
      if (first) {
        first = false;
        at = writeVlq(bytes, at, c - previousGenerated);
        at = writeVlq(bytes, at, toSource - source);
        at = writeVlq(bytes, at, toLine - line);
        at = writeVlq(bytes, at, sourceColumn - column);
      } else {
        // Later words of a line: same source and line ("AA").
        bytes[at++] = 44; // ,
        at = writeVlq(bytes, at, c - previousGenerated);
        bytes[at++] = 65; // A: same source
        bytes[at++] = 65; // A: same line
        at = writeVlq(bytes, at, sourceColumn - column);
      }
      previousGenerated = c;
      source = toSource;
      line = toLine;
      column = sourceColumn;
      for (c++; c < length; c++) {
        code = text.charCodeAt(c);
        if (code === 32 || code === 9) break;
      }
    }
    this.#length = at;
    this.#source = source;
    this.#line = line;
    this.#column = column;
  }

  /** The `mappings` string so far. */
  toString(): string {
    return Buffer.from(this.#bytes.buffer, this.#bytes.byteOffset, this.#length).toString("latin1");
  }
}
