/**
 * Vitest's `forks` pool (its default) as dev runs it: a pool whose worker processes dev holds, so
 * that a newer save can end a run whose test never returns (a loop that never exits answers no
 * message, so Vitest's own cancel and close wait for it forever).
 *
 * It does what Vitest's `ForksPoolWorker` does (one child process from Vitest's `workers/forks.js`,
 * its output piped to Vitest's logger), with three differences that killing a worker needs:
 * - a message sent to a worker dev killed is dropped: Vitest still answers the worker's calls and
 *   starts it, and a closed channel would otherwise throw out of the process (`ERR_IPC_CHANNEL_CLOSED`);
 * - stopping a worker that has already exited does not wait for an exit that came before;
 * - while a run is being stopped, a worker does not start at all: Vitest fails that file's task,
 *   where a worker killed while starting would hold the pool for Vitest's 60 s start timeout.
 */
import { fork, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import type { PoolOptions, PoolRunnerInitializer, PoolWorker, WorkerRequest } from "vitest/node";

/** The pool's name in Vitest's configuration (`forks` itself is taken by Vitest's own). */
const poolName = "dev-forks";

/** A pool for `createVitest`'s `pool` option, and the means to end every worker it runs. */
export class StoppableForks {
  readonly #forks = new Set<ChildProcess>();
  #stopping = false;

  /** What `createVitest` takes as its `pool`. */
  readonly pool: PoolRunnerInitializer = {
    name: poolName,
    createPoolWorker: (options) => new StoppableFork(options, this),
  };

  /** Kills every worker now, and keeps any from starting until `resume`. */
  stop(): void {
    this.#stopping = true;
    for (const child of this.#forks) child.kill("SIGKILL");
  }

  /** Lets workers start again (the next run). */
  resume(): void {
    this.#stopping = false;
  }

  /** Called by a worker as it starts: refused while stopping, else kept until it ends. */
  adopt(start: () => ChildProcess): ChildProcess {
    if (this.#stopping) throw new Error("the run is being stopped: no worker starts");
    const child = start();
    this.#forks.add(child);
    child.once("exit", () => this.#forks.delete(child));
    return child;
  }
}

/** One worker process of the pool. */
class StoppableFork implements PoolWorker {
  readonly name = poolName;
  readonly cacheFs = true;
  readonly #options: PoolOptions;
  readonly #pool: StoppableForks;
  #child: ChildProcess | undefined;

  constructor(options: PoolOptions, pool: StoppableForks) {
    this.#options = options;
    this.#pool = pool;
  }

  on(event: string, callback: (arg: unknown) => void): void {
    this.#child?.on(event, callback);
  }

  off(event: string, callback: (arg: unknown) => void): void {
    this.#child?.off(event, callback);
  }

  send(message: WorkerRequest): void {
    const child = this.#child;
    // A message to a worker that was killed (its channel closed) is dropped; any other failure is the worker's error, as in Vitest's pool.
    child?.send(message, (failed) => {
      if (failed !== null && !child.killed) child.emit("error", failed);
    });
  }

  async start(): Promise<void> {
    const { distPath, env, execArgv, project } = this.#options;
    this.#child ??= this.#pool.adopt(() => fork(resolve(distPath, "workers/forks.js"), [], { env, execArgv, stdio: "pipe", serialization: "advanced" }));
    this.#child.stdout?.pipe(project.vitest.logger.outputStream, { end: false });
    this.#child.stderr?.pipe(project.vitest.logger.errorStream, { end: false });
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    this.#child = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once("exit", done));
      // A worker that does not end on SIGTERM (its test never returns) is killed, as Vitest's pool does.
      const kill = setTimeout(() => child.kill("SIGKILL"), 500);
      child.kill();
      await exited;
      clearTimeout(kill);
    }
    child.stdout?.unpipe(this.#options.project.vitest.logger.outputStream);
    child.stderr?.unpipe(this.#options.project.vitest.logger.errorStream);
  }

  deserialize(data: unknown): unknown {
    return data;
  }
}
