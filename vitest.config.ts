import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Records which test called which function of generated/, for the docs' "tested by" lists; absent
// from the scratch projects the toolchain's tests copy this file into.
const attribution = fileURLToPath(new URL("test/docs/attribution.setup.ts", import.meta.url));

// The JSON results are verify's evidence together with the coverage, so they are written only by
// runs that collect coverage: a partial run of a few test files must not overwrite them.
const collectsCoverage = process.argv.some((arg) => arg === "--coverage" || arg.startsWith("--coverage."));

// Coverage is collected on generated/ and on the tangled test helpers (vitest never covers the
// test files themselves), and remapped through tangle's source maps, so the report (and verify's
// rule 4) speaks in literate/*.md lines. The helpers are covered because rule 4 asks of a
// constant that code which ran reads it. The json reporter copies the run's coverage into the
// results file: that copy is what ties `coverage-final.json` to the results it sits beside.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The browser tests of the docs site run after verify, with vitest.docs.config.ts.
    exclude: ["test/docs/**", "**/node_modules/**"],
    setupFiles: existsSync(attribution) ? [attribution] : [],
    reporters: collectsCoverage ? ["default", "json"] : ["default"],
    outputFile: { json: "coverage/vitest-results.json" },
    testTimeout: 30_000,
    coverage: {
      provider: "v8",
      include: ["generated/**/*.ts", "test/helpers/**/*.ts"],
      reporter: ["json", "text-summary"],
      reportsDirectory: "coverage",
    },
  },
});
