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

/** Builds the `mappings` of a map incrementally, one generated line at a time. */
export class MappingsBuilder {
  #parts: string[] = [];
  #source = 0;
  #line = 0;
  #column = 0;

  /** Adds a generated line with no mapping (headers, provenance comments). */
  addUnmapped(): void {
    this.#parts.push("");
  }

  /** Adds a generated line mapped to `origin`, one segment per word start. */
  addMapped(text: string, origin: LineOrigin): void {
    let line = "";
    let previousGenerated = 0;
    for (let c = 0; c < text.length; c++) {
      const code = text.charCodeAt(c);
      if (code === 32 || code === 9) continue;
      if (c > 0) {
        const before = text.charCodeAt(c - 1);
        if (before !== 32 && before !== 9) continue;
      }
      const sourceColumn = Math.max(0, c + origin.shift);
      if (line !== "") line += ",";
      line +=
        encodeVlq(c - previousGenerated) +
        encodeVlq(origin.source - this.#source) +
        encodeVlq(origin.line - this.#line) +
        encodeVlq(sourceColumn - this.#column);
      previousGenerated = c;
      this.#source = origin.source;
      this.#line = origin.line;
      this.#column = sourceColumn;
    }
    this.#parts.push(line);
  }

  /** The `mappings` string so far. */
  toString(): string {
    return this.#parts.join(";");
  }
}
