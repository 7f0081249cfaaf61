/**
 * A literate document: its front matter and its code blocks with their parsed attributes.
 *
 * Block metadata lives in the fence info string after the language, space-separated:
 * `file=PATH`, `#name`, `test`, `no-tangle`, `tested=HASH`. Anything else is an error with the
 * column it stands at, so a typo (`no-tangel`) cannot silently change what is written.
 */
import { parseDocument as parseYaml, isMap, isScalar, LineCounter } from "yaml";
import { error, warning, type Diagnostic } from "./diagnostics.ts";
import { scanBlocks, scanWithRemark, type RawBlock, type RawFrontMatter, type ScanResult } from "./markdown.ts";

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
  readonly closed: boolean;
  /** Whether a heading or non-empty paragraph precedes the block; set only by the remark scanner. */
  readonly proseBefore?: boolean;
}

/** Front matter keys a document may set. */
export interface FrontMatter {
  /** Default target of the document's `ts` blocks, relative to the project root. */
  readonly tangle?: string;
  /** Default target of the document's `test` blocks. */
  readonly test?: string;
  readonly title?: string;
  readonly description?: string;
  /** 1-based line of each key, for error messages. */
  readonly keyLines: Readonly<Record<string, number>>;
}

/** A parsed literate document. */
export interface LiterateDocument {
  readonly path: string;
  readonly frontMatter: FrontMatter;
  readonly blocks: readonly LiterateBlock[];
  /** Problems found while reading this document alone (bad attributes, bad front matter, unclosed fences). */
  readonly diagnostics: readonly Diagnostic[];
}

/** Languages whose blocks are tangled to the document's targets without `file=`. */
export const typeScriptLanguages: ReadonlySet<string> = new Set(["ts", "typescript"]);

/** True for a block written in TypeScript. */
export function isTypeScript(block: { readonly lang: string }): boolean {
  return typeScriptLanguages.has(block.lang);
}

const nameSyntax = /^[A-Za-z_][\w.-]*$/;
const stampSyntax = /^[0-9a-f]{12}$/;
const frontMatterKeys: ReadonlySet<string> = new Set(["tangle", "test", "title", "description"]);

/** How a document is scanned: `auto` takes the fast scanner when it is sure; `remark` always asks remark. */
export type ScanMode = "auto" | "remark";

/** Parses one document. Never throws on bad input: problems come back as diagnostics. */
export function parseLiterateDocument(path: string, text: string, mode: ScanMode = "auto"): LiterateDocument {
  const scanned: ScanResult = mode === "remark" ? scanWithRemark(text) : scanBlocks(text).result;
  const diagnostics: Diagnostic[] = [];
  const frontMatter = readFrontMatter(path, scanned.frontMatter, diagnostics);
  const sourceLines = text.split(/\r\n|\r|\n/);
  const blocks = scanned.blocks.map((raw, index) => toBlock(path, index, raw, sourceLines, diagnostics));
  return { path, frontMatter, blocks, diagnostics };
}

function toBlock(doc: string, index: number, raw: RawBlock, sourceLines: readonly string[], out: Diagnostic[]): LiterateBlock {
  const fenceText = sourceLines[raw.line - 1] ?? "";
  const attrs = readAttributes(doc, raw, fenceText, out);
  const lines = raw.value === "" && raw.closed && isEmptyBlock(raw, sourceLines) ? [] : raw.value.split(/\r\n|\r|\n/);
  const columnShift = lines.map((codeLine, i) => {
    const source = sourceLines[raw.line + i] ?? "";
    return source.endsWith(codeLine) ? source.length - codeLine.length : 0;
  });
  if (!raw.closed) {
    out.push(
      warning(
        { file: doc, line: raw.line, column: raw.column },
        "unclosed-fence",
        "code fence is never closed; the block runs to the end of its container",
        "add a closing fence of the same character and at least the same length",
      ),
    );
  }
  const block: LiterateBlock = {
    doc,
    index,
    lang: raw.lang,
    attrs,
    lines,
    line: raw.line,
    column: raw.column,
    columnShift,
    closed: raw.closed,
    ...(raw.proseBefore === undefined ? {} : { proseBefore: raw.proseBefore }),
  };
  return block;
}

/** A closed block whose closing fence directly follows its opening fence has no lines at all. */
function isEmptyBlock(raw: RawBlock, sourceLines: readonly string[]): boolean {
  const next = sourceLines[raw.line] ?? "";
  return /^[ \t>]*(`{3,}|~{3,})[ \t]*$/.test(next);
}

function readAttributes(doc: string, raw: RawBlock, fenceText: string, out: Diagnostic[]): BlockAttributes {
  let file: string | undefined;
  let name: string | undefined;
  let tested: string | undefined;
  let test = false;
  let noTangle = false;
  const langAt = fenceText.indexOf(raw.lang, raw.column - 1);
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
      else if (file !== undefined) duplicate("file=");
      else file = value;
    } else if (token.startsWith("#")) {
      const value = token.slice(1);
      if (!nameSyntax.test(value)) {
        out.push(error(at, "bad-attribute", `\`${token}\` is not a valid block name`, "names start with a letter or `_` and hold letters, digits, `_`, `-`, `.`"));
      } else if (name !== undefined) duplicate("#name");
      else name = value;
    } else if (token.startsWith("tested=")) {
      const value = token.slice(7);
      if (!stampSyntax.test(value)) {
        out.push(error(at, "bad-attribute", `\`${token}\` is not a stamp written by verify`, "remove it and run `npm run verify -- --stamp`"));
      } else if (tested !== undefined) duplicate("tested=");
      else tested = value;
    } else if (token === "test") {
      if (test) duplicate("test");
      test = true;
    } else if (token === "no-tangle") {
      if (noTangle) duplicate("no-tangle");
      noTangle = true;
    } else {
      out.push(
        error(at, "unknown-attribute", `unknown block attribute \`${token}\``, "known attributes: `file=PATH`, `#name`, `test`, `no-tangle`, `tested=HASH`"),
      );
    }
  }
  if (name !== undefined && file !== undefined) {
    out.push(
      error({ file: doc, line: raw.line, column: raw.column }, "bad-attribute", `named block \`#${name}\` cannot also say \`file=\``, "a named block is spliced where `<<name>>` stands; drop one of the two"),
    );
  }
  return {
    test,
    noTangle,
    ...(file === undefined ? {} : { file }),
    ...(name === undefined ? {} : { name }),
    ...(tested === undefined ? {} : { tested }),
  };
}

function readFrontMatter(doc: string, raw: RawFrontMatter | undefined, out: Diagnostic[]): FrontMatter {
  if (raw === undefined) return { keyLines: {} };
  const counter = new LineCounter();
  const parsed = parseYaml(raw.value, { lineCounter: counter, prettyErrors: false });
  const lineOf = (offset: number): number => raw.line + counter.linePos(offset).line - 1;
  const colOf = (offset: number): number => counter.linePos(offset).col;
  if (parsed.errors.length > 0) {
    for (const e of parsed.errors) {
      out.push(error({ file: doc, line: lineOf(e.pos[0]), column: colOf(e.pos[0]) }, "front-matter", `malformed front matter: ${e.message.split("\n")[0] ?? e.message}`, "front matter is YAML between two `---` lines"));
    }
    return { keyLines: {} };
  }
  const contents = parsed.contents;
  if (contents === null) return { keyLines: {} };
  if (!isMap(contents)) {
    out.push(error({ file: doc, line: raw.line, column: 1 }, "front-matter", "front matter must be a mapping of keys to values", "write `tangle: generated/x.ts`"));
    return { keyLines: {} };
  }
  const values: Record<string, string> = {};
  const keyLines: Record<string, number> = {};
  for (const pair of contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const offset = isScalar(pair.key) && pair.key.range !== undefined && pair.key.range !== null ? pair.key.range[0] : 0;
    const at = { file: doc, line: lineOf(offset), column: colOf(offset) };
    if (!frontMatterKeys.has(key)) {
      out.push(error(at, "front-matter", `unknown front matter key \`${key}\``, "known keys: `tangle`, `test`, `title`, `description`"));
      continue;
    }
    if (!isScalar(pair.value) || typeof pair.value.value !== "string" || pair.value.value.trim() === "") {
      out.push(error(at, "front-matter", `front matter key \`${key}\` must be a non-empty string`, `write \`${key}: ${key === "test" ? "test/x.test.ts" : key === "tangle" ? "generated/x.ts" : "…"}\``));
      continue;
    }
    values[key] = pair.value.value.trim();
    keyLines[key] = at.line;
  }
  return {
    keyLines,
    ...(values["tangle"] === undefined ? {} : { tangle: values["tangle"] }),
    ...(values["test"] === undefined ? {} : { test: values["test"] }),
    ...(values["title"] === undefined ? {} : { title: values["title"] }),
    ...(values["description"] === undefined ? {} : { description: values["description"] }),
  };
}
