/**
 * Where `test/docs/attribution.setup.ts` writes its per-test evidence, one JSON file per test
 * file. A module of its own: the setup file runs in every test file and must not load
 * `attribution.ts`'s TypeScript compiler to learn one path.
 */
export const attributionFolder = "coverage/tests-by-function";
