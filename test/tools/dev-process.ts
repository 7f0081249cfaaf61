// A running `npm run dev` for the dev CLI's tests (dev-cli.test.ts, dev-cli.saves.test.ts): the
// launcher as a child process on a real project folder, its output kept as it comes.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { get, type IncomingMessage } from "node:http";
import { blockHashes } from "../../tools/lib/core/stamps.ts";
import { tangle } from "../../tools/lib/core/tangle.ts";
import { launcher } from "./verify-project.ts";

/** The environment of a child: ours without what the vitest running this file set for its workers. */
export function childEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("VITEST") && key !== "NODE_V8_COVERAGE" && key !== "TEST") env[key] = value;
  env["NO_COLOR"] = "1";
  return env;
}

/** A running `node tools/run.cjs dev`, with everything it printed so far. */
export class Dev {
  readonly child: ChildProcessWithoutNullStreams;
  output = "";
  readonly exited: Promise<number | null>;

  constructor(root: string, args: readonly string[]) {
    this.child = spawn(process.execPath, [launcher, "dev", "--root", root, ...args], { cwd: root, env: childEnvironment() });
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => (this.output += chunk));
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.output += chunk));
    this.exited = new Promise((resolve) => this.child.on("close", (code) => resolve(code)));
  }

  /** Kills the process if it is still running (its test left it so) and waits for it to exit. */
  async end(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
    await this.exited;
  }

  /** Resolves with the match once the output after `from` matches `pattern`; generous bound, then fails with the output. */
  async waitFor(pattern: RegExp, from = 0, seconds = 120): Promise<RegExpExecArray> {
    const until = Date.now() + seconds * 1000;
    for (;;) {
      const found = pattern.exec(this.output.slice(from));
      if (found !== null) return found;
      if (Date.now() > until || this.child.exitCode !== null) throw new Error(`no match for ${String(pattern)} in:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Listens to the dev server's event stream at `url`, keeping every chunk it sends. */
export async function listen(url: string): Promise<{ readonly events: string[]; readonly stream: IncomingMessage }> {
  const events: string[] = [];
  const stream = await new Promise<IncomingMessage>((resolve) => get(new URL("__dev/events", url), resolve));
  stream.setEncoding("utf8").on("data", (chunk: string) => events.push(chunk));
  return { events, stream };
}

/** The stamp hash a block of `text` must carry: the `index`-th block's hash. */
export function hashOf(text: string, index: number): string {
  return blockHashes(tangle([{ path: "literate/a.md", text }]))[index] ?? "";
}
