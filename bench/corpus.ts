/**
 * A synthetic literate corpus for the benchmarks, generated deterministically (seeded PRNG).
 *
 * Each document has YAML front matter with `tangle: generated/docNNN.ts`, a heading and
 * several sentences of prose before every block, 20 ```ts blocks that each hold one
 * definition (interfaces, type aliases, consts, functions, classes with methods), some of
 * which import from earlier documents' modules so the type-checker has cross-file work, and a
 * couple of blocks that are never tangled (```mermaid, ```sh). The generated code is
 * self-contained (no Node types) and type-checks under the project's strict options.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Dice } from "./dice.ts";

/** The shape of a corpus. */
export interface CorpusSpec {
  readonly documents: number;
  readonly blocksPerDocument: number;
}

/** What was generated. */
export interface CorpusInfo {
  readonly root: string;
  readonly documents: number;
  readonly tsBlocks: number;
  readonly otherBlocks: number;
  readonly markdownBytes: number;
  readonly codeBytes: number;
}

const subjects = ["The registry", "This module", "The loop", "Each item", "The caller", "A reader", "The planner", "The scanner", "Every record", "The agent"];
const verbs = ["keeps", "checks", "returns", "records", "collects", "validates", "describes", "normalises", "counts", "remembers"];
const objects = [
  "the items it was given",
  "every tag in the order it first appeared",
  "a summary that fits on one line",
  "the status of each record",
  "the version that changes on every write",
  "what the previous chapter produced",
  "the quantities as plain numbers",
  "the identifiers callers pass in",
  "a copy rather than the original",
  "the first problem it finds",
];
const tails = [
  "so that later chapters can rely on it",
  "without touching the disk",
  "because the tests read it back",
  "which keeps the invariants easy to state",
  "and nothing else",
  "in the same order every time",
  "so a reader can follow the data",
  "before anything is written",
  "even when the input is empty",
  "as the next section shows",
];
const headingWords = ["Items", "Statuses", "Defaults", "Creating records", "The registry", "Adopting", "Summaries", "Changes", "Applying changes", "Grouping", "Slugs", "Percentiles", "Auditing", "Errors", "Retrying", "Weights", "Reports", "Validation", "Pages", "Patches"];
const nouns = ["order", "invoice", "shipment", "ticket", "session", "account", "route", "sample", "reading", "entry"];

function sentence(d: Dice, name: string): string {
  const base = `${d.pick(subjects)} ${d.pick(verbs)} ${d.pick(objects)}, ${d.pick(tails)}.`;
  return d.chance(0.35) ? `${base} See \`${name}\` for the details, and note that it ${d.pick(verbs)} ${d.pick(objects)}.` : base;
}

function prose(d: Dice, name: string, heading: string): string[] {
  const out: string[] = [`## ${heading}`, ""];
  const paragraphs = d.between(1, 2);
  for (let p = 0; p < paragraphs; p++) {
    const sentences: string[] = [];
    const count = d.between(2, 4);
    for (let s = 0; s < count; s++) sentences.push(sentence(d, name));
    out.push(sentences.join(" "), "");
  }
  if (d.chance(0.2)) out.push(`- it ${d.pick(verbs)} ${d.pick(objects)}`, `- it ${d.pick(verbs)} ${d.pick(objects)}`, "");
  return out;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** One block's code and the name its prose mentions. */
interface Block {
  readonly name: string;
  readonly lines: readonly string[];
}

type BlockMaker = (d: Dice, doc: number, b: number, mod: (n: number) => string) => Block;

const fixed: readonly BlockMaker[] = [
  (d, n) => ({
    name: `Item${n}`,
    lines: [
      `/** A ${d.pick(nouns)} as chapter ${n} sees it. */`,
      `export interface Item${n} {`,
      "  readonly id: string;",
      "  name: string;",
      "  quantity: number;",
      "  readonly tags: readonly string[];",
      "  note?: string;",
      `  status: Status${n};`,
      "}",
    ],
  }),
  (d, n) => ({ name: `Status${n}`, lines: [`export type Status${n} = "draft" | "active" | "archived" | "${d.pick(["paused", "pending", "held", "queued"])}";`] }),
  (d, n) => ({
    name: `defaults${n}`,
    lines: [
      `export const defaults${n} = {`,
      `  quantity: ${d.between(1, 9)},`,
      '  status: "draft",',
      `  maxTags: ${d.between(3, 12)},`,
      `  label: "${d.pick(nouns)}",`,
      `} as const satisfies { quantity: number; status: Status${n}; maxTags: number; label: string };`,
    ],
  }),
  (_d, n) => ({
    name: `createItem${n}`,
    lines: [
      `export function createItem${n}(id: string, name: string, tags: readonly string[] = []): Item${n} {`,
      "  const trimmed = name.trim();",
      "  if (trimmed === \"\") throw new Error(`item ${id} needs a name`);",
      `  const unique = [...new Set(tags)].slice(0, defaults${n}.maxTags);`,
      `  return { id, name: trimmed, quantity: defaults${n}.quantity, tags: unique, status: defaults${n}.status };`,
      "}",
    ],
  }),
  (_d, n) => ({
    name: `Registry${n}`,
    lines: [
      `export class Registry${n} {`,
      `  readonly #items = new Map<string, Item${n}>();`,
      "  #version = 0;",
      "",
      `  add(item: Item${n}): this {`,
      "    this.#items.set(item.id, item);",
      "    this.#version++;",
      "    return this;",
      "  }",
      "",
      `  get(id: string): Item${n} | undefined {`,
      "    return this.#items.get(id);",
      "  }",
      "",
      "  get size(): number {",
      "    return this.#items.size;",
      "  }",
      "",
      "  get version(): number {",
      "    return this.#version;",
      "  }",
      "",
      `  list(status?: Status${n}): Item${n}[] {`,
      "    const all = [...this.#items.values()];",
      "    return status === undefined ? all : all.filter((item) => item.status === status);",
      "  }",
      "}",
    ],
  }),
  (d, n, _b, mod) => {
    if (n === 0) return randomKinds[0]?.(d, n, 5, mod) ?? { name: "", lines: [] };
    const j = n - 1 - d.int(Math.min(n, 3));
    return {
      name: `adopt${n}`,
      lines: [
        `import { type Item${j}, createItem${j}, Registry${j} } from "./${mod(j)}.ts";`,
        "",
        `/** Carries chapter ${j}'s items over into this chapter's registry. */`,
        `export function adopt${n}(registry: Registry${j}, ids: readonly string[]): Registry${n} {`,
        `  const target = new Registry${n}();`,
        "  for (const id of ids) {",
        `    const source: Item${j} = registry.get(id) ?? createItem${j}(id, \`placeholder \${id}\`);`,
        `    target.add({ ...createItem${n}(source.id, source.name, source.tags), quantity: source.quantity });`,
        "  }",
        "  return target;",
        "}",
      ],
    };
  },
  (_d, n) => ({
    name: `summarize${n}`,
    lines: [
      `export function summarize${n}(items: readonly Item${n}[]): string {`,
      "  const total = items.reduce((sum, item) => sum + item.quantity, 0);",
      '  const active = items.filter((item) => item.status === "active").length;',
      "  const first = items[0];",
      '  const tail = first === undefined ? "" : `, first ${first.name}`;',
      "  return `${items.length} items, ${active} active, ${total} units${tail}`;",
      "}",
    ],
  }),
  (_d, n) => ({
    name: `Change${n}`,
    lines: [
      `export type Change${n} =`,
      `  | { readonly kind: "created"; readonly item: Item${n} }`,
      "  | { readonly kind: \"renamed\"; readonly id: string; readonly name: string }",
      `  | { readonly kind: "moved"; readonly id: string; readonly status: Status${n} }`,
      "  | { readonly kind: \"removed\"; readonly id: string };",
    ],
  }),
  (_d, n) => ({
    name: `applyChange${n}`,
    lines: [
      `export function applyChange${n}(items: ReadonlyMap<string, Item${n}>, change: Change${n}): Map<string, Item${n}> {`,
      "  const next = new Map(items);",
      "  switch (change.kind) {",
      "    case \"created\":",
      "      next.set(change.item.id, change.item);",
      "      return next;",
      "    case \"renamed\": {",
      "      const item = next.get(change.id);",
      "      if (item !== undefined) next.set(change.id, { ...item, name: change.name });",
      "      return next;",
      "    }",
      "    case \"moved\": {",
      "      const item = next.get(change.id);",
      "      if (item !== undefined) next.set(change.id, { ...item, status: change.status });",
      "      return next;",
      "    }",
      "    case \"removed\":",
      "      next.delete(change.id);",
      "      return next;",
      "    default: {",
      "      const never: never = change;",
      "      throw new Error(`unknown change ${String(never)}`);",
      "    }",
      "  }",
      "}",
    ],
  }),
];

const randomKinds: readonly BlockMaker[] = [
  (d, n, b) => ({
    name: `groupBy${n}_${b}`,
    lines: [
      `export function groupBy${n}_${b}<T, K extends string>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {`,
      "  const groups = new Map<K, T[]>();",
      "  for (const item of items) {",
      "    const k = key(item);",
      "    const list = groups.get(k);",
      "    if (list === undefined) groups.set(k, [item]);",
      "    else list.push(item);",
      "  }",
      `  return ${d.chance(0.5) ? "groups" : "new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))"};`,
      "}",
    ],
  }),
  (d, n, b) => ({
    name: `slug${n}_${b}`,
    lines: [
      `/** A URL-safe slug of at most ${d.between(20, 80)} characters. */`,
      `export function slug${n}_${b}(text: string, limit = ${d.between(20, 80)}): string {`,
      "  const lower = text.normalize(\"NFKD\").toLowerCase();",
      "  const dashed = lower.replace(/[^a-z0-9]+/g, \"-\").replace(/^-+|-+$/g, \"\");",
      "  if (dashed.length <= limit) return dashed;",
      "  const cut = dashed.slice(0, limit);",
      "  const last = cut.lastIndexOf(\"-\");",
      "  return last > 0 ? cut.slice(0, last) : cut;",
      "}",
    ],
  }),
  (_d, n, b) => ({
    name: `percentile${n}_${b}`,
    lines: [
      `export function percentile${n}_${b}(values: readonly number[], p: number): number {`,
      "  if (p < 0 || p > 100) throw new RangeError(`percentile ${p} is outside 0..100`);",
      "  const sorted = [...values].sort((a, b) => a - b);",
      "  if (sorted.length === 0) return 0;",
      "  const rank = (p / 100) * (sorted.length - 1);",
      "  const lower = sorted[Math.floor(rank)] ?? 0;",
      "  const upper = sorted[Math.ceil(rank)] ?? lower;",
      "  return lower + (upper - lower) * (rank - Math.floor(rank));",
      "}",
    ],
  }),
  (_d, n, b) => ({
    name: `Audited${n}_${b}`,
    lines: [
      `export class Audited${n}_${b} extends Registry${n} {`,
      "  readonly #log: string[] = [];",
      "",
      `  override add(item: Item${n}): this {`,
      "    this.#log.push(`add ${item.id} (${item.status})`);",
      "    return super.add(item);",
      "  }",
      "",
      "  get log(): readonly string[] {",
      "    return this.#log;",
      "  }",
      "",
      "  clearLog(): number {",
      "    const count = this.#log.length;",
      "    this.#log.length = 0;",
      "    return count;",
      "  }",
      "}",
    ],
  }),
  (d, n, b) => ({
    name: `ValidationError${n}_${b}`,
    lines: [
      `export class ValidationError${n}_${b} extends Error {`,
      `  readonly field: keyof Item${n};`,
      "  readonly value: unknown;",
      "",
      `  constructor(field: keyof Item${n}, value: unknown, message = \`${d.pick(nouns)} field \${field} is invalid\`) {`,
      "    super(message);",
      `    this.name = "ValidationError${n}_${b}";`,
      "    this.field = field;",
      "    this.value = value;",
      "  }",
      "}",
    ],
  }),
  (d, n, b) => ({
    name: `retry${n}_${b}`,
    lines: [
      `export async function retry${n}_${b}<T>(task: (attempt: number) => Promise<T>, attempts = ${d.between(2, 5)}): Promise<T> {`,
      "  let last: unknown;",
      "  for (let attempt = 1; attempt <= attempts; attempt++) {",
      "    try {",
      "      return await task(attempt);",
      "    } catch (caught) {",
      "      last = caught;",
      "    }",
      "  }",
      "  throw last instanceof Error ? last : new Error(String(last));",
      "}",
    ],
  }),
  (d, n, b) => {
    const keys = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"].slice(0, d.between(3, 8));
    return {
      name: `weights${n}_${b}`,
      lines: [`export const weights${n}_${b}: Readonly<Record<string, number>> = {`, ...keys.map((k) => `  ${k}: ${d.between(1, 100) / 10},`), "};"],
    };
  },
  (d, n, b, mod) => {
    if (n === 0) return randomKinds[1]?.(d, n, b, mod) ?? { name: "", lines: [] };
    const k = d.int(n);
    return {
      name: `report${n}_${b}`,
      lines: [
        `import { summarize${k} as summarize${k}_${b}, type Item${k} as Item${k}_${b} } from "./${mod(k)}.ts";`,
        "",
        `export function report${n}_${b}(earlier: readonly Item${k}_${b}[], current: readonly Item${n}[]): string {`,
        `  const before = summarize${k}_${b}(earlier);`,
        `  const now = summarize${n}(current);`,
        "  return before === now ? `unchanged: ${now}` : `${before} -> ${now}`;",
        "}",
      ],
    };
  },
  (d, n, b) => ({
    name: `validate${n}_${b}`,
    lines: [
      `export function validate${n}_${b}(item: Item${n}): string[] {`,
      "  const problems: string[] = [];",
      "  if (item.id.trim() === \"\") problems.push(\"id is empty\");",
      `  if (item.quantity < 0 || item.quantity > ${d.between(100, 10000)}) problems.push(\`quantity \${item.quantity} is out of range\`);`,
      `  if (item.tags.length > defaults${n}.maxTags) problems.push("too many tags");`,
      "  if (item.note !== undefined && item.note.length > 200) problems.push(\"note is too long\");",
      "  return problems;",
      "}",
    ],
  }),
  (_d, n, b) => ({
    name: `Page${n}_${b}`,
    lines: [
      `export interface Page${n}_${b}<T> {`,
      "  readonly items: readonly T[];",
      "  readonly cursor?: string;",
      "  readonly total: number;",
      "}",
    ],
  }),
  (_d, n, b) => ({
    name: `paginate${n}_${b}`,
    lines: [
      `export function paginate${n}_${b}<T>(all: readonly T[], size: number, cursor?: string): { items: T[]; next: string | undefined } {`,
      "  const start = cursor === undefined ? 0 : Number.parseInt(cursor, 10);",
      "  if (!Number.isFinite(start) || start < 0) throw new RangeError(`bad cursor ${String(cursor)}`);",
      "  const items = all.slice(start, start + size);",
      "  const end = start + items.length;",
      "  return { items, next: end < all.length ? String(end) : undefined };",
      "}",
    ],
  }),
  (_d, n, b) => ({
    name: `Patch${n}_${b}`,
    lines: [`export type Patch${n}_${b} = { -readonly [K in keyof Item${n}]?: Item${n}[K] };`],
  }),
  (_d, n, b) => ({
    name: `renameAll${n}_${b}`,
    lines: [
      `export function renameAll${n}_${b}(registry: Registry${n}, rename: (name: string) => string): Change${n}[] {`,
      `  const changes: Change${n}[] = [];`,
      "  for (const item of registry.list()) {",
      "    const name = rename(item.name);",
      "    if (name !== item.name) changes.push({ kind: \"renamed\", id: item.id, name });",
      "  }",
      "  return changes;",
      "}",
    ],
  }),
];

const diagrams: readonly string[][] = [
  ["```mermaid", "graph LR", "  md[literate/*.md] --> tangle", "  tangle --> ts[generated/*.ts]", "  ts --> verify", "```"],
  ["```sh", "npm run tangle", "npm run verify -- --json > report.json", "```"],
];

/** The text of document `n`; `mod(j)` is the module name of document `j` (e.g. `doc007`). */
export function documentText(n: number, spec: CorpusSpec, mod: (j: number) => string): { text: string; ts: number; other: number } {
  const d = new Dice(0x9e3779b1 ^ Math.imul(n + 1, 0x85ebca6b));
  const out: string[] = ["---", `title: Chapter ${n} of the synthetic corpus`, `tangle: generated/${mod(n)}.ts`, "---", "", `# Chapter ${n}`, ""];
  out.push(sentence(d, `Item${n}`), "");
  let other = 0;
  for (let b = 0; b < spec.blocksPerDocument; b++) {
    const maker = b < fixed.length ? fixed[b] : d.pick(randomKinds);
    if (maker === undefined) throw new Error("no block maker");
    const block = maker(d, n, b, mod);
    out.push(...prose(d, block.name, `${headingWords[b % headingWords.length] ?? "Section"} ${b + 1}`));
    out.push("```ts", ...block.lines, "```", "");
    if (b === 4 || b === 12) {
      const diagram = diagrams[other % diagrams.length] ?? [];
      out.push(...prose(d, `Registry${n}`, other === 0 ? "How the pieces connect" : "Running it"), ...diagram, "");
      other++;
    }
  }
  return { text: out.join("\n"), ts: spec.blocksPerDocument, other };
}

/** The corpus project's tsconfig: the project's compiler options, no Node types, only `generated/`. */
function corpusTsconfig(projectRoot: string): string {
  const project = JSON.parse(readFileSync(join(projectRoot, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
  return `${JSON.stringify({ compilerOptions: { ...project.compilerOptions, types: [] }, include: ["generated"] }, null, 2)}\n`;
}

/** Writes the corpus into `root` (replacing whatever was there). */
export function writeCorpus(root: string, spec: CorpusSpec, projectRoot: string): CorpusInfo {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, "literate"), { recursive: true });
  writeFileSync(join(root, "tsconfig.json"), corpusTsconfig(projectRoot));
  writeFileSync(join(root, "package.json"), `${JSON.stringify({ name: "bench-corpus", private: true, type: "module" }, null, 2)}\n`);
  const width = Math.max(3, String(spec.documents - 1).length);
  const mod = (j: number): string => `doc${pad(j, width)}`;
  let markdownBytes = 0;
  let codeBytes = 0;
  let tsBlocks = 0;
  let otherBlocks = 0;
  for (let n = 0; n < spec.documents; n++) {
    const { text, ts, other } = documentText(n, spec, mod);
    writeFileSync(join(root, "literate", `${mod(n)}.md`), text);
    markdownBytes += Buffer.byteLength(text);
    codeBytes += fencedBytes(text);
    tsBlocks += ts;
    otherBlocks += other;
  }
  return { root, documents: spec.documents, tsBlocks, otherBlocks, markdownBytes, codeBytes };
}

/** Bytes of fenced code (all languages), for the prose/code share. */
function fencedBytes(text: string): number {
  let inside = false;
  let bytes = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) inside = !inside;
    else if (inside) bytes += line.length + 1;
  }
  return bytes;
}
