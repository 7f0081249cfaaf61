/**
 * The judge in a worker thread, so that judging the whole book after an edit (all the rules over
 * every block, a remark parse of each changed chapter) never holds up a hover or the next
 * keystroke's type errors. The worker keeps its own project model of the texts (scanned with
 * remark), updated with what changed since the last request, reads the evidence from disk as
 * verify does (`disk.ts`), and answers each request with `judgeBook`'s verdict.
 *
 * `serveJudge` is the worker's side, `BackgroundJudge` the server's: it sends a request only when
 * the worker is free, the newest one then, so a burst of edits is judged once. A worker that
 * stops (out of memory, a crash) is started again, a few times at most, and asked again.
 */
import { factsOf, judge, type Judgement } from "../rules/judge.ts";
import { ProjectModel } from "../core/project.ts";
import type { TangleInput } from "../core/tangle.ts";
import type { TypeCheckResult } from "../core/evidence.ts";
import { readEvidence, type BookEvidence } from "./disk.ts";

/**
 * The one judge over `model` (scanned with remark), with the type-check `checked` and the
 * evidence verify reads; `undefined` while the book does not tangle. The test run's evidence
 * speaks for the documents that still hold the text it was measured on; in the others, a block's
 * stamp stands for it.
 */
function judgeBook(model: ProjectModel, evidence: BookEvidence, checked: TypeCheckResult): Judgement | undefined {
  const result = model.tangle();
  if (!result.ok) return undefined;
  const edited = new Set(model.paths.filter((doc) => evidence.texts.get(doc) !== model.text(doc)));
  const scope = edited.size === 0 ? evidence.tests.scope : new Set(result.blocks.flatMap((block, index) => (edited.has(block.doc) ? [] : [index])));
  return judge(factsOf(model, { checked, inProgram: evidence.inProgram, records: evidence.records, tests: { ...evidence.tests, scope } }));
}

/** One request: the texts that changed since the last one, the ones removed, and the type-check to judge with. */
export interface JudgeRequest {
  readonly id: number;
  readonly texts: readonly TangleInput[];
  readonly removed: readonly string[];
  readonly checked: TypeCheckResult;
  /** Read the evidence from disk again (after a save). */
  readonly reloadEvidence: boolean;
}

/** The answer to request `id`: the verdict (`undefined` while the book does not tangle), or what went wrong. */
export interface JudgeReply {
  readonly id: number;
  readonly judgement?: Judgement;
  /** What reading the evidence found (no test results, a failed run), for the server's log. */
  readonly notes: readonly string[];
  readonly error?: string;
}

/** The channel between the two sides: a worker's `parentPort`, or the `Worker` itself. */
export interface Channel<In, Out> {
  on(event: "message", listener: (message: In) => void): unknown;
  postMessage(message: Out): void;
}

/** The server's end of a worker: a channel that also says when the worker stopped, and its exit code. */
export interface WorkerChannel<In, Out> extends Channel<In, Out> {
  on(event: "message", listener: (message: In) => void): unknown;
  on(event: "exit", listener: (code: number) => void): unknown;
}

/** The worker's side: answers every request on `port` for the project at `root`. */
export function serveJudge(port: Channel<JudgeRequest, JudgeReply>, root: string): void {
  const model = new ProjectModel({ scan: "remark" });
  let evidence: BookEvidence | undefined;
  port.on("message", (request) => {
    const notes: string[] = [];
    try {
      for (const path of request.removed) model.remove(path);
      for (const { path, text } of request.texts) model.update(path, text);
      if (evidence === undefined || request.reloadEvidence) {
        const read = readEvidence(root);
        evidence = read.evidence;
        for (const p of read.problems) notes.push(`${p.file}: ${p.message}`);
      }
      const judgement = judgeBook(model, evidence, request.checked);
      port.postMessage(judgement === undefined ? { id: request.id, notes } : { id: request.id, judgement, notes });
    } catch (caught) {
      port.postMessage({ id: request.id, notes, error: caught instanceof Error ? (caught.stack ?? caught.message) : String(caught) });
    }
  });
}

/**
 * The judge in this thread, spoken to as a worker is (`serveJudge` behind a channel that never
 * stops): for a server started without a worker. Its replies come on a later turn, as a worker's do.
 */
export function judgeInThread(root: string): WorkerChannel<JudgeReply, JudgeRequest> {
  const listeners: ((reply: JudgeReply) => void)[] = [];
  let serve: ((request: JudgeRequest) => void) | undefined;
  serveJudge({ on: (_message, listener) => (serve = listener), postMessage: (reply) => setImmediate(() => listeners.forEach((listener) => listener(reply))) }, root);
  return {
    // It never stops, so no "exit" listener is ever called.
    on(event: "message" | "exit", listener: (reply: never) => void) {
      if (event === "message") listeners.push(listener as (reply: JudgeReply) => void);
    },
    postMessage: (request) => serve?.(request),
  };
}

/** One ask: every document's text, the type-check, and who gets the verdict. */
interface Ask {
  readonly texts: ReadonlyMap<string, string>;
  readonly checked: TypeCheckResult;
  readonly done: (reply: JudgeReply) => void;
}

/** The server's side of the worker; see the module comment. */
export class BackgroundJudge {
  readonly #start: () => WorkerChannel<JudgeReply, JudgeRequest>;
  readonly #log: (line: string) => void;
  #restartsLeft: number;
  #channel: WorkerChannel<JudgeReply, JudgeRequest> | undefined;
  /** The texts the worker holds, as last sent. */
  readonly #sent = new Map<string, string>();
  #id = 0;
  #reload = true;
  /** The ask the worker is judging, if any. */
  #asked: Ask | undefined;
  #pending: Ask | undefined;

  /** Starts a worker with `start`; when one stops, starts another, `restarts` times at most, saying so in `log`. */
  constructor(start: () => WorkerChannel<JudgeReply, JudgeRequest>, log: (line: string) => void, restarts = 3) {
    this.#start = start;
    this.#log = log;
    this.#restartsLeft = restarts;
    this.#channel = this.#open();
  }

  #open(): WorkerChannel<JudgeReply, JudgeRequest> {
    const channel = this.#start();
    channel.on("message", (reply) => {
      if (channel !== this.#channel || reply.id !== this.#id) return;
      const asked = this.#asked;
      this.#asked = undefined;
      asked?.done(reply);
      this.#dispatch();
    });
    channel.on("exit", (code) => {
      if (channel === this.#channel) this.#stopped(code);
    });
    return channel;
  }

  /** The worker stopped: a new one holds no texts and no evidence; the ask it was judging is asked again, unless a newer one waits. */
  #stopped(code: number): void {
    this.#channel = undefined;
    this.#sent.clear();
    this.#reload = true;
    this.#pending ??= this.#asked;
    this.#asked = undefined;
    if (this.#restartsLeft <= 0) {
      this.#log(`the judge's worker stopped (exit code ${code}) and is not started again: the verdicts are the type errors and the tangle's until the server restarts`);
      return;
    }
    this.#restartsLeft--;
    this.#log(`the judge's worker stopped (exit code ${code}); starting it again`);
    this.#channel = this.#open();
    this.#dispatch();
  }

  /** Says the evidence on disk may have changed (a save): the next request reads it again. */
  reloadEvidence(): void {
    this.#reload = true;
  }

  /** Asks for the verdict on `texts` (every document's current text) with `checked`; `done` gets it, unless a newer ask replaces this one before the worker is free. */
  ask(texts: ReadonlyMap<string, string>, checked: TypeCheckResult, done: (reply: JudgeReply) => void): void {
    this.#pending = { texts, checked, done };
    this.#dispatch();
  }

  #dispatch(): void {
    const next = this.#pending;
    const channel = this.#channel;
    if (this.#asked !== undefined || next === undefined || channel === undefined) return;
    this.#pending = undefined;
    const changed: TangleInput[] = [];
    for (const [path, text] of next.texts) {
      if (this.#sent.get(path) === text) continue;
      this.#sent.set(path, text);
      changed.push({ path, text });
    }
    const removed = [...this.#sent.keys()].filter((path) => !next.texts.has(path));
    for (const path of removed) this.#sent.delete(path);
    const id = ++this.#id;
    this.#asked = next;
    channel.postMessage({ id, texts: changed, removed, checked: next.checked, reloadEvidence: this.#reload });
    this.#reload = false;
  }
}
