/**
 * Seeded randomness for generated inputs: the bench corpus and the scanners' differential test
 * draw from it, so both are the same on every run. A leaf module, so a test can use it without
 * loading the bench.
 */

import { mulberry32 } from "../tools/lib/core/seeded.ts";

export { mulberry32 };

/** Seeded dice over `mulberry32`, shared by the bench corpus and the scanners' differential test. */
export class Dice {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.#next() * n);
  }
  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.#next() < p;
  }
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }
}
