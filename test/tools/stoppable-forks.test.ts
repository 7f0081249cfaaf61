// dev's pool of Vitest workers (`tools/lib/runners/stoppable-forks.ts`), on real worker processes
// started from Vitest's own `workers/forks.js`, without a Vitest around them: what killing a
// worker must not break. The pool's life inside a real Vitest is in vitest-runner.test.ts.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { PoolOptions, WorkerRequest } from "vitest/node";
import { StoppableForks } from "../../tools/lib/runners/stoppable-forks.ts";

const distPath = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "dist");

/** What a worker reads of its options: where Vitest's worker file is, and the logger its output goes to. */
function workerOptions(): PoolOptions {
  const logger = { outputStream: new PassThrough(), errorStream: new PassThrough() };
  return { distPath, env: { ...process.env }, execArgv: [], method: "run", project: { vitest: { logger } }, environment: { name: "node", options: null } } as unknown as PoolOptions;
}

const stopRequest = { type: "stop", __vitest_worker_request__: true } as unknown as WorkerRequest;

describe("StoppableForks", () => {
  it("drops a message sent to a worker it killed, as Vitest still sends some, instead of throwing it out of the process", async () => {
    const forks = new StoppableForks();
    const worker = forks.pool.createPoolWorker(workerOptions());
    await worker.start();
    const errors: unknown[] = [];
    worker.on("error", (e) => errors.push(e));
    const exited = new Promise((done) => worker.on("exit", done));
    forks.stop();
    await exited;
    worker.send(stopRequest);
    await new Promise((done) => setTimeout(done, 50));
    expect(errors).toEqual([]);
    // Stopping a worker that has already exited returns at once rather than waiting for an exit that came before.
    await worker.stop();
  });

  it("starts no worker while a run is being stopped, and starts them again for the next run", async () => {
    const forks = new StoppableForks();
    forks.stop();
    await expect(forks.pool.createPoolWorker(workerOptions()).start()).rejects.toThrow("the run is being stopped: no worker starts");
    forks.resume();
    const worker = forks.pool.createPoolWorker(workerOptions());
    await worker.start();
    await worker.stop();
  });

  it("stops a live worker it did not kill, by a signal, and returns only once it has exited", async () => {
    const forks = new StoppableForks();
    const worker = forks.pool.createPoolWorker(workerOptions());
    await worker.start();
    let exited = false;
    worker.on("exit", () => (exited = true));
    await worker.stop();
    expect(exited).toBe(true);
  });
});
