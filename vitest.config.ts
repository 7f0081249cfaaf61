import { defineConfig } from "vitest/config";

// Coverage is collected on generated/ and remapped through tangle's source maps, so the
// report (and verify's rule 4) speaks in literate/*.md lines.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "json"],
    outputFile: { json: "coverage/vitest-results.json" },
    testTimeout: 30_000,
    coverage: {
      provider: "v8",
      include: ["generated/**/*.ts"],
      reporter: ["json", "text-summary"],
      reportsDirectory: "coverage",
    },
  },
});
