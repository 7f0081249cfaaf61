/**
 * `npm run dev` as an author meets it: save to verdict, and save to the chapter's page updated.
 *
 * `benchDev` copies this project to a temporary folder (on tmpfs, `/dev/shm`, when there is one;
 * `node_modules` linked, not copied), starts `node tools/run.cjs dev --port 0` there as a user
 * would, waits until it is watching and its first docs build is done, then scripts `edits` saves
 * of one block of `literate/memory.md` (the `contentHash` block): each save puts a comment line
 * with a new number into the block's body. A comment is a real change to the block (its hash, so
 * its stamp, changes; tangle, the type-check, its tests with coverage and the stamp all run again)
 * that no test can pin, and it shows on the chapter's page, so the page can be checked for it.
 *
 * For each save it measures, from the write of the file:
 * - the verdict: the line `literate/memory.md:LINE compiles ✓ tested ✓ stamped ✓` on dev's stdout;
 * - the page: an `update` event naming `chapters/memory.html` on the dev server's event stream
 *   (`/__dev/events`), read as the script injected into every page reads it; the page's HTML is
 *   then fetched and must show the save's comment, or the run fails (the event named a stale page).
 *
 * Then the unhappy path, in another chapter (`literate/signals.md`, `createSignal`): each save puts
 * a line with a type error into the block's body, and the time to the error's Markdown location
 * (`literate/signals.md:LINE:COLUMN compiles: TS2322 …`) on stdout is measured; the chapter is then
 * saved as it was, and its verdict awaited before the next save. Last, the mutants of the edited
 * `contentHash` block: from one more save, the time to the line naming its mutation score
 * (`literate/memory.md:LINE pinned … mutants …`), printed when the background `mutate` is done.
 *
 * `tsx bench/run.ts --only dev` runs these rows alone; `runDevBench` is the measuring part, on any
 * project folder with any launcher (the test runs it on a one-chapter project).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { get, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { chapterPath } from "../tools/lib/docs/html.ts";

/** What to run and edit. */
export interface DevBenchOptions {
  /** The project folder dev runs in (it is edited). */
  readonly root: string;
  /** The launcher started as `node LAUNCHER dev --root ROOT --port 0`; default `ROOT/tools/run.cjs`. */
  readonly launcher?: string;
  /** The chapter edited, project-relative. */
  readonly doc: string;
  /** Text of a line inside the edited block's body; the comment goes right after it. */
  readonly anchor: string;
  /** How many saves (at least 1). */
  readonly edits: number;
  /** The unhappy path: saves of a type error into the block whose body follows the line containing `anchor` in `doc`. */
  readonly typeErrors?: { readonly doc: string; readonly anchor: string; readonly edits: number };
  /** The other unhappy path: saves of a change of behaviour that a test of the book fails. */
  readonly failingTests?: UnhappySaves;
  /** Saves of the edited block whose mutants are then awaited (0 or absent: none). */
  readonly mutationEdits?: number;
  /** Give up on any one wait after this long (default 600 s: a cold first docs build took 285 s at a load average of 45 on two cores). */
  readonly timeoutMs?: number;
  readonly log?: (line: string) => void;
}

/** Saves of `line(n)` right after the line containing `anchor` in `doc`, `edits` times, each then undone. */
export interface UnhappySaves {
  readonly doc: string;
  readonly anchor: string;
  readonly line: (n: number) => string;
  readonly edits: number;
}

/** What one run measured, in milliseconds. */
export interface DevBenchResult {
  /** From spawn to `dev: watching`. */
  readonly startMs: number;
  /** From spawn to the end of the first docs build. */
  readonly firstDocsMs: number;
  /** Per save: to the verdict line. */
  readonly verdictMs: readonly number[];
  /** Per save: to the page's `update` event. */
  readonly pageMs: readonly number[];
  /** The verdict line waited for. */
  readonly verdict: string;
  /** Dev's own `docs updated in N ms` lines, per save (the build alone, in the worker). */
  readonly docsBuildMs: readonly number[];
  /** Per type-error save: to the error's Markdown location on stdout. */
  readonly typeErrorMs: readonly number[];
  /** Per failing-test save: to the block's `compiles ✓ tested ✗` verdict. */
  readonly failingTestMs: readonly number[];
  /** Per mutation save: to the block's mutation line (`… pinned … mutants …`). */
  readonly mutationMs: readonly number[];
  /** The last mutation line seen, with the survivors under it. */
  readonly mutationLine: string;
}

/** The marker a save writes: a comment line, unique per save. */
export function editMarker(n: number): string {
  return `// dev bench edit ${n}`;
}

/**
 * `text` with the marker comment of save `n` right after the line containing `anchor` (replacing
 * an earlier save's marker there), and the 1-based line of the block's opening fence. Throws when
 * the anchor is missing or not inside a fenced block.
 */
export function editBlock(text: string, anchor: string, n: number, line: (n: number) => string = editMarker): { readonly text: string; readonly fenceLine: number } {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.includes(anchor));
  if (at < 0) throw new Error(`dev bench: no line contains \`${anchor}\``);
  let fence = -1;
  for (let i = at - 1; i >= 0; i--) {
    if ((lines[i] ?? "").startsWith("```")) {
      fence = i;
      break;
    }
  }
  if (fence < 0 || !/^```ts\b/.test(lines[fence] ?? "")) throw new Error(`dev bench: \`${anchor}\` is not inside a \`\`\`ts block`);
  const indent = /^\s*/.exec(lines[at + 1] ?? "")?.[0] ?? "  ";
  const marker = `${indent === "" ? "  " : indent}${line(n)}`;
  if (/\/\/ dev bench edit \d+$/.test(lines[at + 1] ?? "")) lines[at + 1] = marker;
  else lines.splice(at + 1, 0, marker);
  return { text: lines.join("\n"), fenceLine: fence + 1 };
}

/** One server-sent event. */
export interface ServerEvent {
  readonly event: string;
  readonly data: string;
}

/**
 * Parses server-sent events out of a growing stream: feed it each chunk; it returns the events
 * completed so far (a blank line ends one) and keeps the rest. Comments (`: …`) are skipped.
 */
export function eventParser(): (chunk: string) => ServerEvent[] {
  let buffer = "";
  return (chunk) => {
    buffer += chunk.replace(/\r\n/g, "\n");
    const events: ServerEvent[] = [];
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const raw = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of raw.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
      }
      if (raw.split("\n").some((l) => !l.startsWith(":"))) events.push({ event, data: data.join("\n") });
    }
    return events;
  };
}

/** True when an `update` event's data names `page` (or names no page: everything changed). */
export function updateNames(data: string, page: string): boolean {
  const pages = (JSON.parse(data) as { pages?: unknown }).pages;
  return Array.isArray(pages) && (pages.length === 0 || pages.includes(page));
}

/** Something that happened, with when (performance.now()). */
interface Stamped<T> {
  readonly at: number;
  readonly value: T;
}

/** Waits for the first item at or after `from` that `match` accepts; fails after `timeoutMs` with `context()`. */
async function waitIn<T>(list: readonly Stamped<T>[], from: number, match: (value: T) => boolean, timeoutMs: number, what: string, context: () => string, dead: () => boolean): Promise<Stamped<T> & { readonly index: number }> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    for (let i = from; i < list.length; i++) {
      const item = list[i];
      if (item !== undefined && match(item.value)) return { ...item, index: i };
    }
    if (performance.now() > until || dead()) throw new Error(`dev bench: ${dead() ? "dev exited" : `no ${what} within ${timeoutMs / 1000} s`}; dev's output:\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The environment of dev: ours, without what a surrounding Vitest set for its workers. */
function devEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("VITEST") && key !== "NODE_V8_COVERAGE" && key !== "TEST") env[key] = value;
  env["NO_COLOR"] = "1";
  return env;
}

/** Runs dev in `options.root`, scripts the saves, and measures them; stops dev (SIGINT) at the end, also on failure. */
export async function runDevBench(options: DevBenchOptions): Promise<DevBenchResult> {
  const { root, doc, anchor } = options;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const log = options.log ?? (() => {});
  const launcher = options.launcher ?? join(root, "tools", "run.cjs");
  const lines: Stamped<string>[] = [];
  let output = "";
  let partial = "";
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [launcher, "dev", "--root", root, "--port", "0"], { cwd: root, env: devEnvironment(), stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const onData = (chunk: string): void => {
    const at = performance.now();
    output += chunk;
    partial += chunk;
    const parts = partial.split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) lines.push({ at, value: line });
  };
  child.stdout?.setEncoding("utf8").on("data", onData);
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const dead = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const context = (): string => output.slice(-4000);
  let stream: IncomingMessage | undefined;
  try {
    const watching = await waitIn(lines, 0, (l) => l.startsWith("dev: watching"), timeoutMs, "`dev: watching` line", context, dead);
    const url = /docs at (http:\S+)/.exec(watching.value)?.[1];
    if (url === undefined) throw new Error(`dev bench: dev serves no docs: ${watching.value}`);
    const firstDocs = await waitIn(lines, 0, (l) => l.startsWith("dev: docs updated"), timeoutMs, "first docs build", context, dead);
    log(`dev bench: watching after ${(watching.at - started).toFixed(0)} ms, first docs build done after ${(firstDocs.at - started).toFixed(0)} ms`);

    const events: Stamped<ServerEvent>[] = [];
    const parse = eventParser();
    stream = await new Promise<IncomingMessage>((resolve, reject) => get(new URL("__dev/events", url), resolve).once("error", reject));
    stream.setEncoding("utf8").on("data", (chunk: string) => {
      const at = performance.now();
      for (const event of parse(chunk)) events.push({ at, value: event });
    });
    const page = chapterPath(doc);
    const verdictMs: number[] = [];
    const pageMs: number[] = [];
    const docsBuildMs: number[] = [];
    let verdict = "";
    const path = join(root, doc);
    for (let n = 1; n <= options.edits; n++) {
      const edited = editBlock(readFileSync(path, "utf8"), anchor, n);
      verdict = `${doc}:${edited.fenceLine} compiles ✓ tested ✓ stamped ✓`;
      const fromLine = lines.length;
      const fromEvent = events.length;
      const saved = performance.now();
      writeFileSync(path, edited.text);
      const judged = await waitIn(lines, fromLine, (l) => l.startsWith(`${doc}:${edited.fenceLine} `), timeoutMs, `verdict for ${doc}:${edited.fenceLine}`, context, dead);
      // The edit makes the block's mutation record stale until the background mutation run is done: `pinned ✗` may follow.
      if (judged.value !== verdict && judged.value !== `${verdict} pinned ✗`) throw new Error(`dev bench: save ${n} was judged \`${judged.value}\`, not \`${verdict}\`; dev's output:\n${context()}`);
      // The first update naming the page may be an older build's (the previous save's mutants, reported late): the page counts once it shows this save.
      let updated = await waitIn(events, fromEvent, (e) => e.event === "update" && updateNames(e.data, page), timeoutMs, `update event for ${page}`, context, dead);
      for (let tries = 0; !(await (await fetch(new URL(page, url))).text()).includes(editMarker(n)); tries++) {
        if (tries >= 5) throw new Error(`dev bench: ${tries + 1} update events for save ${n} came, but ${page} does not show \`${editMarker(n)}\``);
        updated = await waitIn(events, updated.index + 1, (e) => e.event === "update" && updateNames(e.data, page), timeoutMs, `update event for ${page}`, context, dead);
      }
      const built = await waitIn(lines, fromLine, (l) => l.startsWith("dev: docs updated"), timeoutMs, "docs updated line", context, dead);
      docsBuildMs.push(Number(/in (\d+) ms/.exec(built.value)?.[1] ?? "NaN"));
      verdictMs.push(judged.at - saved);
      pageMs.push(updated.at - saved);
      log(`dev bench: save ${n}: verdict ${(judged.at - saved).toFixed(0)} ms, page ${(updated.at - saved).toFixed(0)} ms (${built.value.replace(/^dev: /, "")})`);
      // Let the stamp's write settle before the next edit.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }

    /**
     * The unhappy saves of `spec`: `line(n)` saved into its block, timed to the first output line
     * `answers` (given the document and the block's fence line), which `holds` must then hold of;
     * each save then undone, and the restored block's verdict and page awaited before the next.
     */
    type LineTest = (doc: string, fenceLine: number, line: string) => boolean;
    const unhappySaves = async (spec: UnhappySaves | undefined, what: string, answers: LineTest, holds: LineTest = () => true): Promise<number[]> => {
      const times: number[] = [];
      if (spec === undefined) return times;
      const other = join(root, spec.doc);
      const original = readFileSync(other, "utf8");
      for (let n = 1; n <= spec.edits; n++) {
        const broken = editBlock(original, spec.anchor, n, spec.line);
        const fromLine = lines.length;
        const saved = performance.now();
        writeFileSync(other, broken.text);
        const answer = await waitIn(lines, fromLine, (l) => answers(spec.doc, broken.fenceLine, l), timeoutMs, `${what} in ${spec.doc}`, context, dead);
        if (!holds(spec.doc, broken.fenceLine, answer.value)) throw new Error(`dev bench: ${what} save ${n} was answered \`${answer.value}\`; dev's output:\n${context()}`);
        times.push(answer.at - saved);
        log(`dev bench: ${what} ${n}: after ${(answer.at - saved).toFixed(0)} ms (${answer.value.trim()})`);
        const restoredFrom = lines.length;
        writeFileSync(other, original);
        await waitIn(lines, restoredFrom, (l) => l.startsWith(`${spec.doc}:${broken.fenceLine} compiles ✓`), timeoutMs, `verdict for the restored ${spec.doc}`, context, dead);
        await waitIn(lines, restoredFrom, (l) => l.startsWith("dev: docs updated"), timeoutMs, "docs updated line", context, dead);
      }
      return times;
    };
    const typeError = options.typeErrors === undefined ? undefined : { ...options.typeErrors, line: (k: number) => `const devBenchTypeError${k}: number = "${k}";` };
    const typeErrorMs = await unhappySaves(typeError, "type error", (doc, _fence, l) => new RegExp(`^\\s+${doc.replace(/[.]/g, "\\.")}:\\d+:\\d+ compiles: TS\\d+`).test(l));
    const failingTestMs = await unhappySaves(options.failingTests, "failing test", (doc, fence, l) => l.startsWith(`${doc}:${fence} `), (doc, fence, l) => l.startsWith(`${doc}:${fence} compiles ✓ tested ✗`));

    const mutationMs: number[] = [];
    let mutationLine = "";
    for (let n = 1; n <= (options.mutationEdits ?? 0); n++) {
      const edited = editBlock(readFileSync(path, "utf8"), anchor, options.edits + n);
      const fromLine = lines.length;
      const saved = performance.now();
      writeFileSync(path, edited.text);
      const scored = await waitIn(lines, fromLine, (l) => l.startsWith(`${doc}:${edited.fenceLine} pinned `) || l.startsWith("dev: the mutation run failed"), timeoutMs, `mutation line for ${doc}:${edited.fenceLine}`, context, dead);
      if (!scored.value.startsWith(doc)) throw new Error(`dev bench: ${scored.value}; dev's output:\n${context()}`);
      mutationMs.push(scored.at - saved);
      mutationLine = scored.value;
      log(`dev bench: mutation save ${n}: after ${(scored.at - saved).toFixed(0)} ms: ${scored.value}`);
      await waitIn(lines, fromLine, (l) => l.startsWith("dev: docs updated"), timeoutMs, "docs updated line", context, dead);
    }
    return { startMs: watching.at - started, firstDocsMs: firstDocs.at - started, verdictMs, pageMs, verdict, docsBuildMs, typeErrorMs, failingTestMs, mutationMs, mutationLine };
  } finally {
    stream?.destroy();
    if (!dead()) child.kill("SIGINT");
    const bound = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(bound);
  }
}

/** Folders never copied: dependencies (linked instead), history, caches and outputs. */
const notCopied: ReadonlySet<string> = new Set(["node_modules", ".git", ".cache", "site", "site-artifacts", "coverage", join("bench", ".corpus")]);

/**
 * Copies the project at `from` into a fresh folder under `base` (default: `/dev/shm` when it
 * exists, else the system's temporary folder), with `node_modules` linked to `from`'s; returns it.
 */
export function copyProject(from: string, base?: string): string {
  const parent = base ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
  const to = mkdtempSync(join(parent, "passepartout-dev-bench-"));
  cpSync(from, to, {
    recursive: true,
    filter: (source) => {
      const rel = relative(from, source);
      return rel === "" || (!notCopied.has(rel) && !rel.split(sep).some((part) => part.includes(".tmp-")));
    },
  });
  // A folder of links, not one link: StrykerJS (dev's background mutation run) links the project's
  // node_modules folder into its sandbox, and passes over a node_modules that is itself a link.
  mkdirSync(join(to, "node_modules"));
  for (const entry of readdirSync(join(from, "node_modules"))) symlinkSync(join(from, "node_modules", entry), join(to, "node_modules", entry));
  return to;
}

/** A row for bench/run.ts: a median against an absolute target in milliseconds. */
export interface DevRow {
  readonly name: string;
  readonly samples: readonly number[];
  readonly limitMs?: number;
  readonly note: string;
}

/** The dev rows of `npm run bench`, on a copy of `projectRoot`, with `edits` saves; the copy is removed after. */
export async function benchDev(projectRoot: string, edits: number, print: (line: string) => void): Promise<DevRow[]> {
  const copy = copyProject(projectRoot);
  print(`  dev bench: project copied to ${copy}${copy.startsWith("/dev/shm") ? " (tmpfs)" : ""}`);
  try {
    const result = await runDevBench({
      root: copy,
      doc: "literate/memory.md",
      anchor: "export function contentHash(",
      edits,
      typeErrors: { doc: "literate/signals.md", anchor: "export function createSignal(", edits: Math.max(3, Math.round(edits / 2)) },
      failingTests: { doc: "literate/memory.md", anchor: "export function contentHash(", line: (n) => `if (type === "note") return "devBenchBroken${n}";`, edits: 3 },
      mutationEdits: 2,
      log: print,
    });
    const how = `${edits} saves of the contentHash block of literate/memory.md (a numbered comment line in its body), project copied to ${copy.startsWith("/dev/shm") ? "tmpfs (/dev/shm)" : "the temporary folder"}, dev started as \`node tools/run.cjs dev --port 0\``;
    return [
      { name: "dev: start to watching", samples: [result.startMs], note: "spawn to `dev: watching` (tangle, first type-check, no verdicts)" },
      { name: "dev: start to first docs build", samples: [result.firstDocsMs], note: "spawn to the first `dev: docs updated` (a cold docs worker, the docs cache empty in the copy)" },
      { name: "dev: save to verdict (literate/memory.md)", samples: result.verdictMs, limitMs: 1500, note: `${how}; write of the file to the line \`${result.verdict}\` on stdout` },
      {
        name: "dev: save of a type error to its location (literate/signals.md)",
        samples: result.typeErrorMs,
        limitMs: 1500,
        note: "a line `const devBenchTypeError<n>: number = \"<n>\";` saved into the body of createSignal in literate/signals.md; write of the file to the diagnostic's `literate/signals.md:LINE:COLUMN compiles: TS2322` line on stdout (each save then undone, and its verdict awaited)",
      },
      {
        name: "dev: save of a failing test to its verdict (literate/memory.md)",
        samples: result.failingTestMs,
        note: "a line `if (type === \"note\") return \"devBenchBroken<n>\";` saved into the body of contentHash, which memory's ingest tests fail; write of the file to the block's `compiles ✓ tested ✗` line (no target: the tests must run and fail first; each save then undone, and its verdict awaited)",
      },
      {
        name: "dev: save to the changed block's mutation survivors (literate/memory.md)",
        samples: result.mutationMs,
        limitMs: 30_000,
        note: `one more save of the contentHash block, to the line naming its mutation score and survivors (the background \`mutate --chapter memory\`, which reruns only the changed block); last: \`${result.mutationLine}\``,
      },
      { name: "dev: save to chapter page updated", samples: result.pageMs, limitMs: 2500, note: `${how}; write of the file to the \`update\` event naming chapters/memory.html on /__dev/events (an EventSource's view; the page's HTML then checked for the edit); dev's own docs build times ${result.docsBuildMs.join(", ")} ms` },
    ];
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
