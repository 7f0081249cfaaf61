/**
 * The language server as an editor meets it, on this book: `node tools/run.cjs lsp --stdio`
 * started as a child process and spoken to with a real LSP client (`test/tools/lsp-client.ts`).
 *
 * - start-up to first diagnostics: from spawn to the first diagnostics published for an opened
 *   chapter (`literate/memory.md`), and to the judge's whole verdict (information); the toolchain
 *   is built before (`node tools/run.cjs --build`), so no row times a build after an edit of `tools/`;
 * - hover, completion and go-to-definition, each at `samples` places inside the blocks of a few
 *   chapters, one request at a time after start-up: their 95th percentile;
 * - an unsaved type error: a line `const lspBenchN: number = "N";` put into a block's body with
 *   `didChange` (never saved), timed to the first published diagnostic at that line; the chapter
 *   is then put back and its clean diagnostics awaited before the next;
 * - the server's resident memory at its peak (`VmHWM` of the process, summed with any process it
 *   started), after all of the above.
 *
 * The start-up and memory rows' notes say the load average when they were measured.
 *
 * Each row carries its target from issue 21: on this book 200 ms for each request, 1 s for the
 * type error, 5 s for start-up and 600 MB; on a generated corpus of 600 chapters that import each
 * other (`bench/corpus.ts`), 400 ms for hover and 2 s for the type error (`corpusPlan`).
 * `tsx bench/run.ts --only lsp` runs these rows alone.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CompletionItem, CompletionList, Hover, Location } from "vscode-languageserver-protocol";
import { BookClient } from "../test/tools/lsp-client.ts";

/** One row, in the shape `bench/run.ts` prints. */
export interface LspRow {
  readonly name: string;
  readonly samples: readonly number[];
  readonly limitMs: number;
  readonly note: string;
}

/** Where the requests are made: the chapter opened first (and typed into), then the others. */
export interface LspBenchPlan {
  /** A name for the rows (`this book`, `600 chapters`). */
  readonly label: string;
  readonly chapters: readonly string[];
  /** The targets: start-up, hover/completion/definition p95, type error to diagnostic, memory. */
  readonly limits: { readonly startMs: number; readonly requestMs: number; readonly errorMs: number; readonly megabytes: number };
}

/** This book: four chapters of the agent, the memory chapter first; the targets of issue 21. */
export const bookPlan: LspBenchPlan = {
  label: "",
  chapters: ["literate/memory.md", "literate/loop.md", "literate/harness.md", "literate/signals.md"],
  limits: { startMs: 5000, requestMs: 200, errorMs: 1000, megabytes: 600 },
};

/** The `q`-quantile of `xs` (nearest rank). */
export function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** Positions inside code lines of `text`'s TypeScript blocks: identifiers (`ident`) or just after a `.` (`member`), every `stride`-th one. */
export function codePlaces(text: string, kind: "ident" | "member", stride: number): { line: number; character: number }[] {
  const places: { line: number; character: number }[] = [];
  let inBlock = false;
  text.split("\n").forEach((line, index) => {
    if (/^\s*```/.test(line)) {
      inBlock = !inBlock && /^\s*```ts\b/.test(line);
      return;
    }
    if (!inBlock || /^\s*(\/\/|\*|\/\*\*)/.test(line) || line.includes("<<")) return;
    const pattern = kind === "ident" ? /\b[A-Za-z_]\w{3,}\b/g : /[A-Za-z_)\]]\.(?=[A-Za-z_])/g;
    for (const match of line.matchAll(pattern)) places.push({ line: index, character: (match.index ?? 0) + (kind === "ident" ? 1 : 2) });
  });
  return places.filter((_, i) => i % stride === 0);
}

/** Times one request. */
async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** A process and every process it started, still running (from /proc: each thread's `children`). */
function processTree(pid: number): number[] {
  const tasks = readdirSync(`/proc/${pid}/task`);
  const children = tasks.flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter((c) => c !== "").map(Number));
  return [pid, ...children.flatMap((child) => processTree(child))];
}

/**
 * Peak resident memory of a process and the processes it started, in MB: the sum of each one's
 * `VmHWM` from /proc (its worker threads are in it already); `undefined` off Linux. A sum of
 * peaks, so never less than the peak of the sum, should work ever move to a child process.
 */
function peakMegabytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = processTree(pid).map((p) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? Number.NaN));
    return kb.reduce((a, b) => a + b, 0) / 1024;
  } catch {
    return undefined;
  }
}

/** The load average over the last minute, as the notes print it. */
function load(): string {
  return loadavg()[0]?.toFixed(2) ?? "?";
}

/** Runs the rows on the project at `root` (this repository). */
export async function benchLsp(root: string, samples: number, typeErrors: number, print: (line: string) => void, plan: LspBenchPlan = bookPlan): Promise<LspRow[]> {
  const { chapters, limits } = plan;
  const label = plan.label === "" ? "" : ` (${plan.label})`;
  // The toolchain built first, as `npm ci` leaves it: start-up is the server's, not a build's after an edit of tools/.
  execFileSync(process.execPath, [fileURLToPath(new URL("../tools/run.cjs", import.meta.url)), "--build"], { stdio: "inherit" });
  const started = performance.now();
  const client = await BookClient.start(root);
  try {
    const first = chapters[0] ?? "";
    const firstText = readFileSync(join(root, first), "utf8");
    await client.open(first, firstText);
    await client.waitForDiagnostics(first);
    const startMs = performance.now() - started;
    const startLoad = load();
    // The judge's verdict comes from its worker, after the type errors; the server logs when it is published.
    const judged = await client.waitForLog(/^lsp: the judge's verdict published/, 300_000, 0).catch(() => undefined);
    const judgedMs = judged === undefined ? Number.NaN : performance.now() - started;
    print(`  start-up: first diagnostics ${Math.round(startMs)} ms, the judge's verdict ${Math.round(judgedMs)} ms`);

    const hovers: number[] = [];
    const definitions: number[] = [];
    const completions: number[] = [];
    for (const path of chapters) {
      const text = readFileSync(join(root, path), "utf8");
      if (path !== first) {
        await client.open(path, text);
        // After start-up: the server has taken the chapter in.
        await client.quiet(2000);
      }
      const uri = client.uri(path);
      const idents = codePlaces(text, "ident", 1);
      const members = codePlaces(text, "member", 1);
      const per = Math.ceil(samples / chapters.length);
      const pick = <T>(xs: readonly T[]): T[] => xs.filter((_, i) => i % Math.max(1, Math.floor(xs.length / per)) === 0).slice(0, per);
      for (const position of pick(idents)) {
        hovers.push(await timed(() => client.request<Hover | null>("textDocument/hover", { textDocument: { uri }, position })));
        definitions.push(await timed(() => client.request<Location[]>("textDocument/definition", { textDocument: { uri }, position })));
      }
      for (const position of pick(members)) completions.push(await timed(() => client.request<CompletionItem[] | CompletionList>("textDocument/completion", { textDocument: { uri }, position })));
    }

    // An unsaved type error, typed into the first block body of `literate/memory.md` that holds `return`.
    const errorMs: number[] = [];
    const lines = firstText.split("\n");
    const anchor = lines.findIndex((l) => /^\s+return /.test(l));
    for (let k = 0; k < typeErrors; k++) {
      const broken = [...lines.slice(0, anchor), `  const lspBench${k}: number = "${k}";`, ...lines.slice(anchor)].join("\n");
      const sent = performance.now();
      await client.change(first, broken);
      await client.waitForDiagnostics(first, (list) => list.some((d) => d.code === "compiles" && d.range.start.line === anchor));
      errorMs.push(performance.now() - sent);
      await client.change(first, firstText);
      await client.waitForDiagnostics(first, (list) => !list.some((d) => d.code === "compiles"));
      // An author pauses between edits: let the judge's verdict of the fixed text come first.
      await client.quiet(1500);
    }
    const megabytes = peakMegabytes(client.child.pid);
    const p95 = (xs: readonly number[]): number => quantile(xs, 0.95);
    const spread = (xs: readonly number[]): string => `median ${quantile(xs, 0.5).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms over ${xs.length} requests`;
    return [
      { name: `lsp: start-up to first diagnostics${label}`, samples: [startMs], limitMs: limits.startMs, note: `spawn to the first publishDiagnostics of ${first} opened (tangle and type errors); the judge's whole verdict (its worker's first run) published at ${Math.round(judgedMs)} ms; load average ${startLoad}` },
      { name: `lsp: hover p95${label}`, samples: [p95(hovers)], limitMs: limits.requestMs, note: `${spread(hovers)}, at identifiers in the blocks of ${chapters.join(", ")}` },
      { name: `lsp: completion p95${label}`, samples: [p95(completions)], limitMs: limits.requestMs, note: `${spread(completions)}, just after a \`.\` in the same blocks` },
      { name: `lsp: go-to-definition p95${label}`, samples: [p95(definitions)], limitMs: limits.requestMs, note: spread(definitions) },
      { name: `lsp: unsaved type error to its diagnostic${label}`, samples: errorMs, limitMs: limits.errorMs, note: `didChange (never saved) to the first publishDiagnostics holding the error at its Markdown line in ${first}; max ${Math.max(...errorMs).toFixed(0)} ms` },
      { name: `lsp: resident memory at peak, MB not ms${label}`, samples: [megabytes ?? Number.NaN], limitMs: limits.megabytes, note: `VmHWM of the server process (both its threads: the requests' and the judge's worker) after every request above, summed over any process it started; load average ${load()}` },
    ];
  } finally {
    await client.stop();
  }
}

/** A generated corpus of `documents` chapters (`bench/corpus.ts`): the first of its last chapters typed into. */
export function corpusPlan(documents: number): LspBenchPlan {
  const width = Math.max(3, String(documents - 1).length);
  const doc = (n: number): string => `literate/doc${String(n).padStart(width, "0")}.md`;
  return {
    label: `${documents} chapters`,
    chapters: [doc(documents - 1), doc(Math.floor(documents / 2)), doc(Math.floor(documents / 4)), doc(1)],
    limits: { startMs: 10_000, requestMs: 400, errorMs: 2000, megabytes: 6000 },
  };
}
