import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";

// The tests that run after verify (`npm test`), side by side, one file per worker: the re-check
// of a sample of the recorded mutation kills (test/after-verify/), and the docs site's browser
// tests, after verify so that the site shows the evidence of the run that just passed. Those
// build the site, serve it on 127.0.0.1 and drive Debian's chromium with playwright-core. The
// site is built into a temporary folder, on the memory-backed `/dev/shm` where there is one,
// unless TMPDIR already names a folder.
const scratch = process.env["TMPDIR"] ?? (existsSync("/dev/shm") ? "/dev/shm" : undefined);

export default defineConfig({
  test: {
    include: ["test/docs/**/*.test.ts", "test/after-verify/**/*.test.ts"],
    // vitest's default on two cores is one worker: the two files would wait for each other.
    maxWorkers: 2,
    reporters: ["default", "json"],
    outputFile: { json: "coverage/vitest-docs-results.json" },
    testTimeout: 120_000,
    hookTimeout: 600_000,
    env: scratch === undefined ? {} : { TMPDIR: scratch },
  },
});
