import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";

// The docs site's browser tests: run after verify (`npm test`), so the site shows the evidence
// of the run that just passed. They build the site, serve it on 127.0.0.1 and drive Debian's
// chromium with playwright-core. The site is built into a temporary folder, on the memory-backed
// `/dev/shm` where there is one, unless TMPDIR already names a folder.
const scratch = process.env["TMPDIR"] ?? (existsSync("/dev/shm") ? "/dev/shm" : undefined);

export default defineConfig({
  test: {
    include: ["test/docs/**/*.test.ts"],
    reporters: ["default", "json"],
    outputFile: { json: "coverage/vitest-docs-results.json" },
    testTimeout: 120_000,
    hookTimeout: 600_000,
    env: scratch === undefined ? {} : { TMPDIR: scratch },
  },
});
