import { defineConfig } from "vitest/config";

// The configuration StrykerJS runs the tests with (`npm run mutate`, see tools/mutate.ts): the
// unit tests of the book only. The toolchain's tests (test/tools) and the docs site's browser
// tests (test/docs) do not import generated/, so they cannot kill a mutant of it; no coverage,
// no attribution, no JSON results: verify's evidence is never written by a mutation run.
export default defineConfig({
  test: {
    include: ["test/*.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 30_000,
  },
});
