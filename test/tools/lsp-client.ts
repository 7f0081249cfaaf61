/**
 * A real language client for the language server's tests and bench: the server started as a
 * child process (`node tools/run.cjs lsp --stdio`, as an editor starts it), spoken to over its
 * stdin and stdout with `vscode-languageserver-protocol`'s own connection. It keeps the
 * diagnostics the server publishes, so a test can wait for those of a document.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol/node";

/** The launcher, from this repository. */
const launcher = resolve("tools/run.cjs");

/** A started server and the client connected to it. */
export class BookClient {
  readonly root: string;
  readonly connection: ProtocolConnection;
  readonly child: ChildProcess;
  readonly stderr: string[] = [];
  readonly logs: string[] = [];
  /** What the server showed the user (`window/showMessage`), in order. */
  readonly messages: { type: number; message: string }[] = [];
  readonly #diagnostics = new Map<string, { version: number; diagnostics: Diagnostic[] }>();
  readonly #waiters: (() => void)[] = [];
  readonly #versions = new Map<string, number>();
  #published = 0;
  /** When diagnostics were last published (performance.now()). */
  lastPublishedAt = 0;

  private constructor(root: string, child: ChildProcess) {
    this.root = root;
    this.child = child;
    if (child.stdout === null || child.stdin === null) throw new Error("the server has no stdio");
    this.connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    child.stderr?.on("data", (chunk: Buffer) => this.stderr.push(chunk.toString("utf8")));
    this.connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
      this.#published++;
      this.lastPublishedAt = performance.now();
      this.#diagnostics.set(params.uri, { version: this.#published, diagnostics: params.diagnostics });
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.connection.onNotification("window/showMessage", (params: { type: number; message: string }) => {
      this.messages.push(params);
    });
    this.connection.onNotification("window/logMessage", (params: { message: string }) => {
      this.logs.push(params.message);
    });
    this.connection.listen();
  }

  /** Starts the server on the project at `root` and initializes it. */
  static async start(root: string): Promise<BookClient> {
    const child = spawn(process.execPath, [launcher, "lsp", "--stdio", "--root", root], { stdio: ["pipe", "pipe", "pipe"] });
    const client = new BookClient(root, child);
    await client.connection.sendRequest("initialize", { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: {}, workspaceFolders: null });
    await client.connection.sendNotification("initialized", {});
    return client;
  }

  /** The URI of a project-relative path. */
  uri(path: string): string {
    return pathToFileURL(join(this.root, path)).href;
  }

  /** Opens a document with its text on disk (or `text`). */
  async open(path: string, text = readFileSync(join(this.root, path), "utf8")): Promise<void> {
    this.#versions.set(path, 1);
    await this.connection.sendNotification("textDocument/didOpen", { textDocument: { uri: this.uri(path), languageId: "markdown", version: 1, text } });
  }

  /** Replaces a document's whole text, unsaved. */
  async change(path: string, text: string): Promise<void> {
    const version = (this.#versions.get(path) ?? 1) + 1;
    this.#versions.set(path, version);
    await this.connection.sendNotification("textDocument/didChange", { textDocument: { uri: this.uri(path), version }, contentChanges: [{ text }] });
  }

  /** Closes a document, as an editor closing its tab. */
  async close(path: string): Promise<void> {
    await this.connection.sendNotification("textDocument/didClose", { textDocument: { uri: this.uri(path) } });
  }

  /** Says a document was saved. */
  async save(path: string): Promise<void> {
    await this.connection.sendNotification("textDocument/didSave", { textDocument: { uri: this.uri(path) } });
  }

  /** The diagnostics last published for a document, if any. */
  diagnostics(path: string): Diagnostic[] | undefined {
    return this.#diagnostics.get(this.uri(path))?.diagnostics;
  }

  /** Waits until diagnostics of `path` published after now satisfy `accept` (a minute at most). */
  async waitForDiagnostics(path: string, accept: (diagnostics: Diagnostic[]) => boolean = () => true, timeoutMs = 60_000): Promise<Diagnostic[]> {
    const after = this.#published;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const known = this.#diagnostics.get(this.uri(path));
      if (known !== undefined && known.version > after && accept(known.diagnostics)) return known.diagnostics;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching diagnostics for ${path} within ${timeoutMs} ms; last: ${JSON.stringify(known?.diagnostics)}\nstderr: ${this.stderr.join("")}\nlog: ${this.logs.join("\n")}`);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  /** Waits for a log line of the server matching `pattern` (among those logged since the `from`-th; by default from now on), and returns it. */
  async waitForLog(pattern: RegExp, timeoutMs = 60_000, from = this.logs.length): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.logs.slice(from).find((line) => pattern.test(line));
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no log line matching ${String(pattern)} within ${timeoutMs} ms`);
      await new Promise((wake) => setTimeout(wake, 20));
    }
  }

  /** Waits until no diagnostics have been published for `ms` milliseconds. */
  async quiet(ms: number): Promise<void> {
    for (;;) {
      const before = this.#published;
      await new Promise((wake) => setTimeout(wake, ms));
      if (this.#published === before) return;
    }
  }

  /** A request, typed by the caller. */
  async request<T>(method: string, params: unknown): Promise<T> {
    return (await this.connection.sendRequest(method, params)) as T;
  }

  /** Shuts the server down as an editor does, and waits for the process to end. */
  async stop(): Promise<void> {
    const exited = new Promise<void>((done) => {
      if (this.child.exitCode !== null) done();
      else this.child.once("exit", () => done());
    });
    try {
      await this.connection.sendRequest("shutdown");
      await this.connection.sendNotification("exit");
    } catch {
      this.child.kill();
    }
    const timer = setTimeout(() => this.child.kill(), 5_000);
    await exited;
    clearTimeout(timer);
    this.connection.dispose();
  }
}
