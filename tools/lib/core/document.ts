/**
 * A literate document: its front matter and its code blocks with their parsed attributes.
 *
 * Block metadata lives in the fence info string after the language, space-separated:
 * `file=PATH`, `#name`, `test`, `no-tangle`, `tested=HASH`. Anything else is an error with the
 * column it stands at, so a typo (`no-tangel`) cannot silently change what is written.
 */
import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import { error, warning, type Diagnostic } from "./diagnostics.ts";
import { scanFast, withoutBom, type RawBlock, type RawFrontMatter, type ScanResult } from "./markdown.ts";
import { scanWithRemark } from "./remark.ts";

/** The attributes a fence info string can carry. */
export interface BlockAttributes {
  /** `file=PATH`: the target this block goes to instead of the document's default. */
  readonly file?: string;
  /** `#name`: the block is spliced where `<<name>>` stands and is not written on its own. */
  readonly name?: string;
  /** `test`: the block goes to the document's `test:` target. */
  readonly test: boolean;
  /** `no-tangle`: an illustration, rendered but never written. */
  readonly noTangle: boolean;
  /** `tested=HASH`: the verification stamp, written only by `verify --stamp`. */
  readonly tested?: string;
}

/** One fenced code block of a document, with everything tangle and verify need to know. */
export interface LiterateBlock {
  /** The document's path relative to the project root, e.g. `literate/loop.md`. */
  readonly doc: string;
  /** 0-based position among the document's blocks. */
  readonly index: number;
  /** The info string's first word, lowercased; `""` when there is none or it is an attribute. */
  readonly lang: string;
  readonly attrs: BlockAttributes;
  /** The code lines, without fences. */
  readonly lines: readonly string[];
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** 1-based column of the opening fence. */
  readonly column: number;
  /**
   * For each code line, how many characters of the Markdown line stand before it
   * (fence indentation, list indentation, `> `), so columns map back exactly.
   */
  readonly columnShift: readonly number[];
  /**
   * The code as one string, when it can be copied whole: at least one line, every line the
   * whole Markdown line it stands on (no indentation or `> ` before it) and no `\r`. Then
   * `lines` is exactly `verbatim.split("\n")` and every `columnShift` is 0.
   */
  readonly verbatim?: string;
  readonly closed: boolean;
  /** Whether a heading or non-empty paragraph precedes the block; set only by the remark scanner. */
  readonly proseBefore?: boolean;
  /** The text of the headings and paragraphs between the previous block and this one; set only by the remark scanner. */
  readonly prose?: string;
}

/** Front matter keys a document may set. */
export interface FrontMatter {
  /** Default target of the document's `ts` blocks, relative to the project root. */
  readonly tangle?: string;
  /** Default target of the document's `test` blocks. */
  readonly test?: string;
  readonly title?: string;
  readonly description?: string;
  /** The chapter's place in the book's reading order (a positive integer); the docs site sorts by it, then by path. */
  readonly order?: number;
  /** 1-based line of each key, for error messages. */
  readonly keyLines: Readonly<Record<string, number>>;
}

export interface LiterateDocument {
  readonly path: string;
  readonly frontMatter: FrontMatter;
  readonly blocks: readonly LiterateBlock[];
  /** Problems found while reading this document alone (bad attributes, bad front matter, unclosed fences). */
  readonly diagnostics: readonly Diagnostic[];
}

/** Chapters in reading order: by `order` (a positive integer; a document without it sorts after every ordered one), then by path. */
export function byChapterOrder(a: { readonly path: string; readonly frontMatter: { readonly order?: number } }, b: { readonly path: string; readonly frontMatter: { readonly order?: number } }): number {
  const oa = a.frontMatter.order ?? Number.POSITIVE_INFINITY;
  const ob = b.frontMatter.order ?? Number.POSITIVE_INFINITY;
  return oa === ob ? (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) : oa < ob ? -1 : 1;
}

/** Languages whose blocks are tangled to the document's targets without `file=`. */
const typeScriptLanguages: ReadonlySet<string> = new Set(["ts", "typescript"]);

export function isTypeScript(block: { readonly lang: string }): boolean {
  return typeScriptLanguages.has(block.lang);
}

const nameSyntax = /^[A-Za-z_][\w.-]*$/;
const stampSyntax = /^[0-9a-f]{12}$/;
const frontMatterKeys: ReadonlySet<string> = new Set(["tangle", "test", "title", "description", "order"]);

/** A document whose first line opens front matter (`---`); when no front matter was found, it was never closed. */
const unclosedFrontMatter = /^---[ \t]*(?:\r\n|\r|\n|$)/;

/** How a document is scanned: `auto` takes the fast scanner when it is sure; `remark` always asks remark. */
export type ScanMode = "auto" | "remark";

/**
 * The scanner tangle uses: the fast path when it is sure (and `mode` is `auto`), remark otherwise.
 * The second field says which one answered, for tests and benchmarks.
 */
export function scanBlocks(text: string, mode: ScanMode = "auto"): { result: ScanResult; by: "fast" | "remark" } {
  const fast = mode === "auto" ? scanFast(text) : undefined;
  if (fast !== undefined) return { result: fast, by: "fast" };
  return { result: scanWithRemark(text), by: "remark" };
}

/** Parses one document. Never throws on bad input: problems come back as diagnostics. */
export function parseLiterateDocument(path: string, source: string, mode: ScanMode = "auto"): LiterateDocument {
  // Lines and columns count from after a byte-order mark, as both scanners do.
  const text = withoutBom(source);
  const { result: scanned, by } = scanBlocks(text, mode);
  const diagnostics: Diagnostic[] = [];
  const frontMatter = readFrontMatter(path, scanned.frontMatter, diagnostics);
  if (scanned.frontMatter === undefined && unclosedFrontMatter.test(text)) {
    diagnostics.push(error({ file: path, line: 1, column: 1 }, "front-matter", "malformed front matter: the `---` on line 1 is never closed", "end the front matter with a line holding only `---`"));
  }
  // The line index is built only when a block needs it (a fence with attributes, an empty block, a fence the fast scanner did not find).
  let sourceLines: SourceLines | undefined;
  const linesOfText = (): SourceLines => (sourceLines ??= new SourceLines(text));
  // The fast scanner finds fences at column 1 only, and its values are verbatim slices of the text from the line after the fence.
  const verbatim = by === "fast";
  const blocks = scanned.blocks.map((found, index) => {
    const raw = withLanguage(found);
    const attrs = raw.meta === "" ? noAttributes : readAttributes(path, raw, linesOfText().line(raw.line - 1), diagnostics);
    if (!raw.closed) {
      diagnostics.push(
        warning(
          { file: path, line: raw.line, column: raw.column },
          "unclosed-fence",
          "code fence is never closed; the block runs to the end of its container",
          "add a closing fence of the same character and at least the same length",
        ),
      );
    }
    return new ScannedBlock(path, index, raw, attrs, linesOfText, verbatim);
  });
  return { path, frontMatter, blocks, diagnostics };
}

/**
 * The block's language as tangle reads it: lowercase (```` ```TS ```` is `ts`), and none when the
 * info string starts with an attribute (```` ``` file=x.sh ````, ```` ``` #name ````), which
 * CommonMark would take for the language.
 */
function withLanguage(raw: RawBlock): RawBlock {
  if (raw.lang.includes("=") || raw.lang.startsWith("#")) return { ...raw, lang: "", meta: raw.meta === "" ? raw.lang : `${raw.lang} ${raw.meta}` };
  const lang = raw.lang.toLowerCase();
  return lang === raw.lang ? raw : { ...raw, lang };
}

/**
 * The lines of a document as `text.split(/\r\n|\r|\n/)` numbers them (0-based), read on demand:
 * only where each line starts and ends is recorded, and no line string is built unless asked for.
 */
class SourceLines {
  readonly #text: string;
  readonly #hasCarriageReturn: boolean;
  readonly #starts: number[] = [0];

  constructor(text: string) {
    this.#text = text;
    this.#hasCarriageReturn = text.includes("\r");
    if (this.#hasCarriageReturn) for (const found of text.matchAll(/\r\n|\r|\n/g)) this.#starts.push(found.index + found[0].length);
    else for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", nl + 1)) this.#starts.push(nl + 1);
  }

  /** End offset of line `k`, before its line break. */
  #end(k: number): number {
    const next = this.#starts[k + 1];
    if (next === undefined) return this.#text.length;
    return next - (this.#text.charCodeAt(next - 1) === 10 && this.#text.charCodeAt(next - 2) === 13 ? 2 : 1);
  }

  /** Line `k`, or `""` past the last line. */
  line(k: number): string {
    const start = this.#starts[k];
    return start === undefined ? "" : this.#text.slice(start, this.#end(k));
  }

  /**
   * True when the text holds `value` verbatim from the start of line `k`, followed by a line end
   * or the end of the text: then each line of `value` is the whole source line it stands on, and
   * no character stands before it. (Only without `\r`; `false` means "look line by line".)
   */
  verbatimFrom(k: number, value: string): boolean {
    const start = this.#starts[k];
    if (this.#hasCarriageReturn || start === undefined) return false;
    const end = start + value.length;
    return (end === this.#text.length || this.#text.charCodeAt(end) === 10) && this.#text.startsWith(value, start);
  }

  /** How many characters stand before `code` on line `k` when the line ends with it, else 0. */
  shift(k: number, code: string): number {
    const start = this.#starts[k];
    if (start === undefined) return 0;
    const end = this.#end(k);
    const length = end - start;
    return length >= code.length && this.#text.startsWith(code, end - code.length) ? length - code.length : 0;
  }
}

/**
 * A block as the scanners found it. `verbatim`: its code lines are known to be whole source lines
 * (no column shift to look for).
 *
 * `lines` and `columnShift` are computed when first read: tangle copies a verbatim block's text
 * whole and never needs them, and on a large book splitting every block into line strings is a
 * good part of a full tangle's time.
 */
class ScannedBlock implements LiterateBlock {
  readonly doc: string;
  readonly index: number;
  readonly lang: string;
  readonly attrs: BlockAttributes;
  readonly line: number;
  readonly column: number;
  readonly closed: boolean;
  readonly verbatim?: string;
  readonly proseBefore?: boolean;
  readonly prose?: string;
  readonly #value: string;
  readonly #empty: boolean;
  readonly #whole: boolean;
  readonly #sourceLines: () => SourceLines;
  #lines: readonly string[] | undefined;
  #columnShift: readonly number[] | undefined;

  constructor(doc: string, index: number, raw: RawBlock, attrs: BlockAttributes, sourceLines: () => SourceLines, verbatim: boolean) {
    this.doc = doc;
    this.index = index;
    this.lang = raw.lang;
    this.attrs = attrs;
    this.line = raw.line;
    this.column = raw.column;
    this.closed = raw.closed;
    this.#value = raw.value;
    this.#empty = raw.value === "" && raw.closed && isEmptyBlock(raw, sourceLines());
    this.#whole = !this.#empty && (verbatim || sourceLines().verbatimFrom(raw.line, raw.value));
    this.#sourceLines = sourceLines;
    if (this.#whole && !raw.value.includes("\r")) this.verbatim = raw.value;
    if (raw.proseBefore !== undefined) this.proseBefore = raw.proseBefore;
    if (raw.prose !== undefined) this.prose = raw.prose;
  }

  get lines(): readonly string[] {
    // Split without the regular expression when the text holds no `\r`.
    return (this.#lines ??= this.#empty ? [] : this.#value.includes("\r") ? this.#value.split(/\r\n|\r|\n/) : this.#value.split("\n"));
  }

  get columnShift(): readonly number[] {
    return (this.#columnShift ??= this.#whole ? this.lines.map(() => 0) : this.lines.map((codeLine, i) => this.#sourceLines().shift(this.line + i, codeLine)));
  }
}

/** A closed block whose closing fence directly follows its opening fence has no lines at all. */
function isEmptyBlock(raw: RawBlock, sourceLines: SourceLines): boolean {
  const next = sourceLines.line(raw.line);
  return /^[ \t>]*(`{3,}|~{3,})[ \t]*$/.test(next);
}

/** The attributes of a fence that has none (most fences): one shared object. */
const noAttributes: BlockAttributes = Object.freeze({ test: false, noTangle: false });

function readAttributes(doc: string, raw: RawBlock, fenceText: string, out: Diagnostic[]): BlockAttributes {
  const attrs: { -readonly [K in keyof BlockAttributes]: BlockAttributes[K] } = { test: false, noTangle: false };
  const langAt = raw.lang === "" ? -1 : fenceText.toLowerCase().indexOf(raw.lang, raw.column - 1);
  let searchFrom = langAt >= 0 ? langAt + raw.lang.length : raw.column - 1;
  for (const token of raw.meta.split(/[ \t]+/).filter((t) => t !== "")) {
    const found = fenceText.indexOf(token, searchFrom);
    const at = { file: doc, line: raw.line, column: found >= 0 ? found + 1 : raw.column };
    if (found >= 0) searchFrom = found + token.length;
    const duplicate = (key: string): void => {
      out.push(error(at, "duplicate-attribute", `\`${key}\` is given twice on one block`, "keep one of them"));
    };
    if (token.startsWith("file=")) {
      const value = token.slice(5);
      if (value === "") out.push(error(at, "bad-attribute", "`file=` needs a path", "write `file=generated/x.ts`"));
      else if (attrs.file !== undefined) duplicate("file=");
      else attrs.file = value;
    } else if (token.startsWith("#")) {
      const value = token.slice(1);
      if (!nameSyntax.test(value)) {
        out.push(error(at, "bad-attribute", `\`${token}\` is not a valid block name`, "names start with a letter or `_` and hold letters, digits, `_`, `-`, `.`"));
      } else if (attrs.name !== undefined) duplicate("#name");
      else attrs.name = value;
    } else if (token.startsWith("tested=")) {
      const value = token.slice(7);
      if (!stampSyntax.test(value)) {
        out.push(error(at, "bad-attribute", `\`${token}\` is not a stamp written by verify`, "remove it and run `npm run verify -- --stamp`"));
      } else if (attrs.tested !== undefined) duplicate("tested=");
      else attrs.tested = value;
    } else if (token === "test") {
      if (attrs.test) duplicate("test");
      attrs.test = true;
    } else if (token === "no-tangle") {
      if (attrs.noTangle) duplicate("no-tangle");
      attrs.noTangle = true;
    } else {
      out.push(
        error(at, "unknown-attribute", `unknown block attribute \`${token}\``, "known attributes: `file=PATH`, `#name`, `test`, `no-tangle`, `tested=HASH`"),
      );
    }
  }
  if (attrs.name !== undefined && attrs.file !== undefined) {
    out.push(
      error({ file: doc, line: raw.line, column: raw.column }, "bad-attribute", `named block \`#${attrs.name}\` cannot also say \`file=\``, "a named block is spliced where `<<name>>` stands; drop one of the two"),
    );
  }
  return attrs;
}

/** One `key: value` pair of the front matter; `value` is `undefined` unless it is a non-empty string. */
interface FrontMatterEntry {
  readonly key: string;
  readonly line: number;
  readonly column: number;
  readonly value: string | undefined;
  /** The value when YAML reads it as a number. */
  readonly number?: number;
  /** The value as written, for messages. */
  readonly source: string;
}

function readFrontMatter(doc: string, raw: RawFrontMatter | undefined, out: Diagnostic[]): FrontMatter {
  if (raw === undefined) return { keyLines: {} };
  const entries = simpleFrontMatter(raw) ?? yamlFrontMatter(doc, raw, out);
  if (entries === undefined) return { keyLines: {} };
  // The string-valued keys as set: an unknown key is refused, and `order` (a number) is kept apart.
  const values: { -readonly [K in "tangle" | "test" | "title" | "description"]?: string } = {};
  const keyLines: Record<string, number> = {};
  let order: number | undefined;
  for (const entry of entries) {
    const { key } = entry;
    const at = { file: doc, line: entry.line, column: entry.column };
    if (!frontMatterKeys.has(key)) {
      out.push(error(at, "front-matter", `unknown front matter key \`${key}\``, "known keys: `tangle`, `test`, `title`, `description`, `order`"));
      continue;
    }
    if (key === "order") {
      const n = entry.number;
      if (n === undefined || !Number.isSafeInteger(n) || n < 1) {
        out.push(error(at, "front-matter", `front matter key \`order\` must be a positive integer, not \`${entry.source === "" ? "(nothing)" : entry.source}\``, "write `order: 3` for the third chapter of the book"));
      } else {
        order = n;
        keyLines[key] = at.line;
      }
      continue;
    }
    if (entry.value === undefined) {
      out.push(error(at, "front-matter", `front matter key \`${key}\` must be a non-empty string`, `write \`${key}: ${key === "test" ? "test/x.test.ts" : key === "tangle" ? "generated/x.ts" : "…"}\``));
      continue;
    }
    values[key as keyof typeof values] = entry.value.trim();
    keyLines[key] = at.line;
  }
  return { keyLines, ...values, ...(order === undefined ? {} : { order }) };
}

/**
 * A `key: plain words` line whose meaning no YAML rule can change: a lowercase key, and a value
 * that starts with a letter (so never a number, `.inf` or `~`) and holds no `:`, `#`, quote,
 * bracket, tab or trailing space. YAML's booleans and null are excluded below.
 */
const simpleEntry = /^([a-z][a-z0-9_-]*): ([A-Za-z](?:[A-Za-z0-9_./ -]*[A-Za-z0-9_./-])?)$/;
const yamlKeywords: ReadonlySet<string> = new Set(["true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"]);

/**
 * The common front matter read without the YAML parser: only `key: plain words` lines and empty
 * lines, no key twice. Returns `undefined` for anything else, which the YAML parser then reads;
 * where this answers, it answers exactly what the YAML parser does.
 */
function simpleFrontMatter(raw: RawFrontMatter): FrontMatterEntry[] | undefined {
  if (raw.value.includes("\r")) return undefined;
  const entries: FrontMatterEntry[] = [];
  const lines = raw.value.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line === "") continue;
    const m = simpleEntry.exec(line);
    const key = m?.[1];
    const value = m?.[2];
    if (key === undefined || value === undefined || yamlKeywords.has(value) || entries.some((e) => e.key === key)) return undefined;
    entries.push({ key, line: raw.line + i, column: 1, value, source: value });
  }
  return entries.length === 0 ? undefined : entries;
}

let yamlModule: typeof Yaml | undefined;

/** The YAML parser, loaded on first use: most front matter is simple, and loading it costs more than a no-change tangle. */
function yaml(): typeof Yaml {
  return (yamlModule ??= createRequire(import.meta.url)("yaml") as typeof Yaml);
}

/** The front matter as the YAML parser reads it; `undefined` (after reporting any problem) when it holds no mapping. */
function yamlFrontMatter(doc: string, raw: RawFrontMatter, out: Diagnostic[]): FrontMatterEntry[] | undefined {
  const { LineCounter, isMap, isScalar, parseDocument: parseYaml } = yaml();
  const counter = new LineCounter();
  const parsed = parseYaml(raw.value, { lineCounter: counter, prettyErrors: false });
  const lineOf = (offset: number): number => raw.line + counter.linePos(offset).line - 1;
  const colOf = (offset: number): number => counter.linePos(offset).col;
  if (parsed.errors.length > 0) {
    for (const e of parsed.errors) {
      out.push(error({ file: doc, line: lineOf(e.pos[0]), column: colOf(e.pos[0]) }, "front-matter", `malformed front matter: ${e.message.split("\n")[0] ?? e.message}`, "front matter is YAML between two `---` lines"));
    }
    return undefined;
  }
  const contents = parsed.contents;
  if (contents === null) return undefined;
  if (!isMap(contents)) {
    out.push(error({ file: doc, line: raw.line, column: 1 }, "front-matter", "front matter must be a mapping of keys to values", "write `tangle: generated/x.ts`"));
    return undefined;
  }
  return contents.items.map((pair) => {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const offset = isScalar(pair.key) && pair.key.range !== undefined && pair.key.range !== null ? pair.key.range[0] : 0;
    const scalar = isScalar(pair.value) ? pair.value.value : undefined;
    const value = typeof scalar === "string" && scalar.trim() !== "" ? scalar : undefined;
    const source = isScalar(pair.value) && pair.value.range !== undefined && pair.value.range !== null ? raw.value.slice(pair.value.range[0], pair.value.range[1]) : String(pair.value);
    return { key, line: lineOf(offset), column: colOf(offset), value, source, ...(typeof scalar === "number" ? { number: scalar } : {}) };
  });
}
