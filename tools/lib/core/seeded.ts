/**
 * A small seeded generator (mulberry32): the same seed draws the same numbers, so a sample, a
 * corpus or a generated test document can be drawn again from its seed. Pure, a leaf module:
 * the toolchain's mutation re-check and the bench both use it.
 */

/** Returns a generator of numbers in [0, 1), reproducible from `seed` (its low 32 bits). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
