// bench/.emit.ts
import { join as join3 } from "node:path";
import { readdirSync as readdirSync2, readFileSync as readFileSync3 } from "node:fs";

// tools/lib/tangle.ts
import { posix as posix2 } from "node:path";

// tools/lib/diagnostics.ts
function error(at, rule, message, hint) {
  return hint === void 0 ? { ...at, severity: "error", rule, message } : { ...at, severity: "error", rule, message, hint };
}
function warning(at, rule, message, hint) {
  return hint === void 0 ? { ...at, severity: "warning", rule, message } : { ...at, severity: "warning", rule, message, hint };
}
function hasErrors(list) {
  return list.some((d) => d.severity === "error");
}

// tools/lib/document.ts
import { parseDocument as parseYaml, isMap, isScalar, LineCounter } from "yaml";

// tools/lib/markdown.ts
import { toString } from "mdast-util-to-string";
import remarkFrontmatter from "remark-frontmatter";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
var remarkProcessor = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]).use(remarkGfm);
function parseMarkdown(text) {
  return remarkProcessor.parse(text);
}
var fenceCloser = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
function closesFence(line, fence) {
  const m = fenceCloser.exec(line);
  return m !== null && m[1] !== void 0 && m[1][0] === fence[0] && m[1].length >= fence.length;
}
function scanWithRemark(source, tree) {
  const text = withoutBom(source);
  tree ??= parseMarkdown(text);
  const lines = text.split(/\r\n|\r|\n/);
  const blocks = [];
  let frontMatter;
  let sawProse = false;
  const visit = (node) => {
    if (node.type === "yaml") {
      frontMatter = { value: node.value, line: (node.position?.start.line ?? 1) + 1 };
      return;
    }
    if (node.type === "heading") {
      sawProse = true;
      return;
    }
    if (node.type === "paragraph") {
      if (toString(node).trim() !== "") sawProse = true;
      return;
    }
    if (node.type === "code") {
      if (!isFenced(node, text)) return;
      blocks.push(rawBlockFromNode(node, lines, sawProse));
      sawProse = false;
      return;
    }
    if ("children" in node) for (const child of node.children) visit(child);
  };
  for (const child of tree.children) visit(child);
  return { frontMatter, blocks };
}
function withoutBom(text) {
  return text.charCodeAt(0) === 65279 ? text.slice(1) : text;
}
function isFenced(node, text) {
  const offset = node.position?.start.offset;
  return offset === void 0 || text.startsWith("```", offset) || text.startsWith("~~~", offset);
}
function rawBlockFromNode(node, lines, proseBefore) {
  const start = node.position?.start ?? { line: 1, column: 1 };
  const endLine = node.position?.end.line ?? start.line;
  const opener = lines[start.line - 1] ?? "";
  const fence = /(`{3,}|~{3,})/.exec(opener.slice(start.column - 1))?.[1] ?? "```";
  const lastLine = lines[endLine - 1] ?? "";
  const closed = endLine > start.line && closesFence(stripContainerPrefix(lastLine, start.column), fence);
  return {
    lang: node.lang ?? "",
    meta: (node.meta ?? "").trim(),
    value: node.value,
    line: start.line,
    column: start.column,
    closed,
    proseBefore
  };
}
function stripContainerPrefix(line, column) {
  const prefix = line.slice(0, column - 1);
  return /^[ \t>]*$/.test(prefix) ? line.slice(column - 1) : line;
}
var frontMatterFence = /^---[ \t]*$/;
var unsure = /^(?: {0,3}[<>]|(?:[ \t>*+\-.)0-9]|\[\^[^\]]*\]:)+(?:`{3}|~{3}))/;
function splitInfo(info) {
  let a = 0;
  while (a < info.length && (info.charCodeAt(a) === 32 || info.charCodeAt(a) === 9)) a++;
  let b = a;
  while (b < info.length && info.charCodeAt(b) !== 32 && info.charCodeAt(b) !== 9) b++;
  if (a === 0 && b === info.length) return { lang: info, meta: "" };
  let c = b;
  while (c < info.length && (info.charCodeAt(c) === 32 || info.charCodeAt(c) === 9)) c++;
  return { lang: info.slice(a, b), meta: info.slice(c).trim() };
}
function mayBeUnsure(code) {
  return code === 32 || code === 9 || code === 60 || code === 62 || code === 42 || code === 43 || code === 45 || code === 46 || code === 41 || code === 91 || code >= 48 && code <= 57;
}
function scanFast(source) {
  const text = withoutBom(source);
  if (text.includes("\0")) return void 0;
  for (let cr = text.indexOf("\r"); cr !== -1; cr = text.indexOf("\r", cr + 2)) {
    if (text.charCodeAt(cr + 1) !== 10) return void 0;
  }
  const n = text.length;
  const rawEnd = (pos2) => {
    const nl = text.indexOf("\n", pos2);
    return nl === -1 ? n : nl;
  };
  const lineText = (pos2, end) => end > pos2 && text.charCodeAt(end - 1) === 13 ? text.slice(pos2, end - 1) : text.slice(pos2, end);
  const join4 = (from, toStart) => {
    const value = text.slice(from, toStart - 1);
    return value.charCodeAt(value.length - 1) === 13 ? value.slice(0, -1) : value;
  };
  let pos = 0;
  let lineNo = 0;
  let frontMatter;
  if (n > 0 && text.charCodeAt(0) === 45 && frontMatterFence.test(lineText(0, rawEnd(0)))) {
    let p2 = rawEnd(0) + 1;
    let j = 1;
    while (p2 < n) {
      const end = rawEnd(p2);
      if (text.charCodeAt(p2) === 45 && frontMatterFence.test(lineText(p2, end))) {
        frontMatter = { value: join4(rawEnd(0) + 1, p2), line: 2 };
        pos = end + 1;
        lineNo = j + 1;
        break;
      }
      p2 = end + 1;
      j++;
    }
  }
  const blocks = [];
  while (pos < n) {
    const end = rawEnd(pos);
    const first = text.charCodeAt(pos);
    if (mayBeUnsure(first) && unsure.test(lineText(pos, end))) return void 0;
    if (first !== 96 && first !== 126) {
      pos = end + 1;
      lineNo++;
      continue;
    }
    let q = pos + 1;
    while (q < end && text.charCodeAt(q) === first) q++;
    if (q - pos < 3) {
      pos = end + 1;
      lineNo++;
      continue;
    }
    const fence = text.slice(pos, q);
    const info = lineText(q, end);
    if (first === 96 && info.includes("`")) {
      pos = end + 1;
      lineNo++;
      continue;
    }
    if (info.includes("\\") || info.includes("&")) return void 0;
    const { lang, meta } = splitInfo(info);
    const start = lineNo;
    const fenceChar = fence.charCodeAt(0);
    const valueStart = end + 1;
    let p2 = valueStart;
    let closed = false;
    lineNo++;
    while (p2 < n) {
      const e = rawEnd(p2);
      let i = p2;
      while (i < p2 + 3 && text.charCodeAt(i) === 32) i++;
      if (text.charCodeAt(i) === fenceChar && closesFence(lineText(p2, e), fence)) {
        closed = true;
        blocks.push({ lang, meta, value: join4(valueStart, p2), line: start + 1, column: 1, closed });
        pos = e + 1;
        lineNo++;
        break;
      }
      p2 = e + 1;
      lineNo++;
    }
    if (!closed) {
      blocks.push({ lang, meta, value: join4(valueStart, p2), line: start + 1, column: 1, closed });
      pos = n;
    }
  }
  return { frontMatter, blocks };
}
function scanBlocks(text) {
  const fast = scanFast(text);
  if (fast !== void 0) return { result: fast, by: "fast" };
  return { result: scanWithRemark(text), by: "remark" };
}

// tools/lib/document.ts
var typeScriptLanguages = /* @__PURE__ */ new Set(["ts", "typescript"]);
function isTypeScript(block) {
  return typeScriptLanguages.has(block.lang);
}
var nameSyntax = /^[A-Za-z_][\w.-]*$/;
var stampSyntax = /^[0-9a-f]{12}$/;
var frontMatterKeys = /* @__PURE__ */ new Set(["tangle", "test", "title", "description", "order"]);
var unclosedFrontMatter = /^---[ \t]*(?:\r\n|\r|\n|$)/;
function parseLiterateDocument(path, source, mode = "auto") {
  const text = withoutBom(source);
  const { result: scanned, by } = mode === "remark" ? { result: scanWithRemark(text), by: "remark" } : scanBlocks(text);
  const diagnostics = [];
  const frontMatter = readFrontMatter(path, scanned.frontMatter, diagnostics);
  if (scanned.frontMatter === void 0 && unclosedFrontMatter.test(text)) {
    diagnostics.push(error({ file: path, line: 1, column: 1 }, "front-matter", "malformed front matter: the `---` on line 1 is never closed", "end the front matter with a line holding only `---`"));
  }
  let sourceLines;
  const linesOfText = () => sourceLines ??= new SourceLines(text);
  const verbatim = by === "fast";
  const blocks = scanned.blocks.map((raw, index) => toBlock(path, index, withLanguage(raw), linesOfText, diagnostics, verbatim));
  return { path, frontMatter, blocks, diagnostics };
}
function withLanguage(raw) {
  if (raw.lang.includes("=") || raw.lang.startsWith("#")) return { ...raw, lang: "", meta: raw.meta === "" ? raw.lang : `${raw.lang} ${raw.meta}` };
  const lang = raw.lang.toLowerCase();
  return lang === raw.lang ? raw : { ...raw, lang };
}
function splitLines(text) {
  return text.includes("\r") ? text.split(/\r\n|\r|\n/) : text.split("\n");
}
var SourceLines = class {
  #text;
  #split;
  #starts = [];
  constructor(text) {
    this.#text = text;
    if (text.includes("\r")) {
      this.#split = text.split(/\r\n|\r|\n/);
      return;
    }
    this.#split = void 0;
    this.#starts.push(0);
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", nl + 1)) this.#starts.push(nl + 1);
  }
  /** End offset of line `k`, which starts at `this.#starts[k]` (no `\r` case). */
  #end(k) {
    const next = this.#starts[k + 1];
    return next === void 0 ? this.#text.length : next - 1;
  }
  /** Line `k`, or `""` past the last line. */
  line(k) {
    if (this.#split !== void 0) return this.#split[k] ?? "";
    const start = this.#starts[k];
    return start === void 0 ? "" : this.#text.slice(start, this.#end(k));
  }
  /**
   * True when the text holds `value` verbatim from the start of line `k`, followed by a line end
   * or the end of the text: then each line of `value` is the whole source line it stands on, and
   * no character stands before it. (Only without `\r`; `false` means "look line by line".)
   */
  verbatimFrom(k, value) {
    if (this.#split !== void 0) return false;
    const start = this.#starts[k];
    if (start === void 0) return false;
    const end = start + value.length;
    return (end === this.#text.length || this.#text.charCodeAt(end) === 10) && this.#text.startsWith(value, start);
  }
  /** How many characters stand before `code` on line `k` when the line ends with it, else 0. */
  shift(k, code) {
    if (this.#split !== void 0) {
      const source = this.#split[k] ?? "";
      return source.endsWith(code) ? source.length - code.length : 0;
    }
    const start = this.#starts[k];
    if (start === void 0) return 0;
    const end = this.#end(k);
    const length = end - start;
    return length >= code.length && this.#text.startsWith(code, end - code.length) ? length - code.length : 0;
  }
};
function toBlock(doc, index, raw, sourceLines, out, verbatim) {
  const attrs = raw.meta === "" ? noAttributes : readAttributes(doc, raw, sourceLines().line(raw.line - 1), out);
  const empty = raw.value === "" && raw.closed && isEmptyBlock(raw, sourceLines());
  const whole = !empty && (verbatim || sourceLines().verbatimFrom(raw.line, raw.value));
  if (!raw.closed) {
    out.push(
      warning(
        { file: doc, line: raw.line, column: raw.column },
        "unclosed-fence",
        "code fence is never closed; the block runs to the end of its container",
        "add a closing fence of the same character and at least the same length"
      )
    );
  }
  return new ScannedBlock(doc, index, raw, attrs, empty, whole, sourceLines);
}
var ScannedBlock = class {
  doc;
  index;
  lang;
  attrs;
  line;
  column;
  closed;
  verbatim;
  proseBefore;
  #value;
  #empty;
  #whole;
  #sourceLines;
  #lines;
  #columnShift;
  constructor(doc, index, raw, attrs, empty, whole, sourceLines) {
    this.doc = doc;
    this.index = index;
    this.lang = raw.lang;
    this.attrs = attrs;
    this.line = raw.line;
    this.column = raw.column;
    this.closed = raw.closed;
    if (whole && !raw.value.includes("\r")) this.verbatim = raw.value;
    if (raw.proseBefore !== void 0) this.proseBefore = raw.proseBefore;
    this.#value = raw.value;
    this.#empty = empty;
    this.#whole = whole;
    this.#sourceLines = sourceLines;
  }
  get lines() {
    return this.#lines ??= this.#empty ? [] : splitLines(this.#value);
  }
  get columnShift() {
    return this.#columnShift ??= this.#whole ? this.lines.map(() => 0) : this.lines.map((codeLine, i) => this.#sourceLines().shift(this.line + i, codeLine));
  }
};
function isEmptyBlock(raw, sourceLines) {
  const next = sourceLines.line(raw.line);
  return /^[ \t>]*(`{3,}|~{3,})[ \t]*$/.test(next);
}
var noAttributes = Object.freeze({ test: false, noTangle: false });
function readAttributes(doc, raw, fenceText, out) {
  let file;
  let name;
  let tested;
  let test = false;
  let noTangle = false;
  const langAt = raw.lang === "" ? -1 : fenceText.toLowerCase().indexOf(raw.lang, raw.column - 1);
  let searchFrom = langAt >= 0 ? langAt + raw.lang.length : raw.column - 1;
  for (const token of raw.meta.split(/[ \t]+/).filter((t2) => t2 !== "")) {
    const found = fenceText.indexOf(token, searchFrom);
    const at = { file: doc, line: raw.line, column: found >= 0 ? found + 1 : raw.column };
    if (found >= 0) searchFrom = found + token.length;
    const duplicate = (key) => {
      out.push(error(at, "duplicate-attribute", `\`${key}\` is given twice on one block`, "keep one of them"));
    };
    if (token.startsWith("file=")) {
      const value = token.slice(5);
      if (value === "") out.push(error(at, "bad-attribute", "`file=` needs a path", "write `file=generated/x.ts`"));
      else if (file !== void 0) duplicate("file=");
      else file = value;
    } else if (token.startsWith("#")) {
      const value = token.slice(1);
      if (!nameSyntax.test(value)) {
        out.push(error(at, "bad-attribute", `\`${token}\` is not a valid block name`, "names start with a letter or `_` and hold letters, digits, `_`, `-`, `.`"));
      } else if (name !== void 0) duplicate("#name");
      else name = value;
    } else if (token.startsWith("tested=")) {
      const value = token.slice(7);
      if (!stampSyntax.test(value)) {
        out.push(error(at, "bad-attribute", `\`${token}\` is not a stamp written by verify`, "remove it and run `npm run verify -- --stamp`"));
      } else if (tested !== void 0) duplicate("tested=");
      else tested = value;
    } else if (token === "test") {
      if (test) duplicate("test");
      test = true;
    } else if (token === "no-tangle") {
      if (noTangle) duplicate("no-tangle");
      noTangle = true;
    } else {
      out.push(
        error(at, "unknown-attribute", `unknown block attribute \`${token}\``, "known attributes: `file=PATH`, `#name`, `test`, `no-tangle`, `tested=HASH`")
      );
    }
  }
  if (name !== void 0 && file !== void 0) {
    out.push(
      error({ file: doc, line: raw.line, column: raw.column }, "bad-attribute", `named block \`#${name}\` cannot also say \`file=\``, "a named block is spliced where `<<name>>` stands; drop one of the two")
    );
  }
  return {
    test,
    noTangle,
    ...file === void 0 ? {} : { file },
    ...name === void 0 ? {} : { name },
    ...tested === void 0 ? {} : { tested }
  };
}
function readFrontMatter(doc, raw, out) {
  if (raw === void 0) return { keyLines: {} };
  const entries = simpleFrontMatter(raw) ?? yamlFrontMatter(doc, raw, out);
  if (entries === void 0) return { keyLines: {} };
  const values = {};
  const keyLines = {};
  let order;
  for (const entry of entries) {
    const { key } = entry;
    const at = { file: doc, line: entry.line, column: entry.column };
    if (!frontMatterKeys.has(key)) {
      out.push(error(at, "front-matter", `unknown front matter key \`${key}\``, "known keys: `tangle`, `test`, `title`, `description`, `order`"));
      continue;
    }
    if (key === "order") {
      const n = entry.number;
      if (n === void 0 || !Number.isSafeInteger(n) || n < 1) {
        out.push(error(at, "front-matter", `front matter key \`order\` must be a positive integer, not \`${entry.source === "" ? "(nothing)" : entry.source}\``, "write `order: 3` for the third chapter of the book"));
      } else {
        order = n;
        keyLines[key] = at.line;
      }
      continue;
    }
    if (entry.value === void 0) {
      out.push(error(at, "front-matter", `front matter key \`${key}\` must be a non-empty string`, `write \`${key}: ${key === "test" ? "test/x.test.ts" : key === "tangle" ? "generated/x.ts" : "\u2026"}\``));
      continue;
    }
    values[key] = entry.value.trim();
    keyLines[key] = at.line;
  }
  return {
    keyLines,
    ...values["tangle"] === void 0 ? {} : { tangle: values["tangle"] },
    ...values["test"] === void 0 ? {} : { test: values["test"] },
    ...values["title"] === void 0 ? {} : { title: values["title"] },
    ...values["description"] === void 0 ? {} : { description: values["description"] },
    ...order === void 0 ? {} : { order }
  };
}
var simpleEntry = /^([a-z][a-z0-9_-]*): ([A-Za-z](?:[A-Za-z0-9_./ -]*[A-Za-z0-9_./-])?)$/;
var yamlKeywords = /* @__PURE__ */ new Set(["true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"]);
function simpleFrontMatter(raw) {
  if (raw.value.includes("\r")) return void 0;
  const entries = [];
  const lines = raw.value.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line === "") continue;
    const m = simpleEntry.exec(line);
    const key = m?.[1];
    const value = m?.[2];
    if (key === void 0 || value === void 0 || yamlKeywords.has(value) || entries.some((e) => e.key === key)) return void 0;
    entries.push({ key, line: raw.line + i, column: 1, value, source: value });
  }
  return entries.length === 0 ? void 0 : entries;
}
function yamlFrontMatter(doc, raw, out) {
  const counter = new LineCounter();
  const parsed = parseYaml(raw.value, { lineCounter: counter, prettyErrors: false });
  const lineOf = (offset) => raw.line + counter.linePos(offset).line - 1;
  const colOf = (offset) => counter.linePos(offset).col;
  if (parsed.errors.length > 0) {
    for (const e of parsed.errors) {
      out.push(error({ file: doc, line: lineOf(e.pos[0]), column: colOf(e.pos[0]) }, "front-matter", `malformed front matter: ${e.message.split("\n")[0] ?? e.message}`, "front matter is YAML between two `---` lines"));
    }
    return void 0;
  }
  const contents = parsed.contents;
  if (contents === null) return void 0;
  if (!isMap(contents)) {
    out.push(error({ file: doc, line: raw.line, column: 1 }, "front-matter", "front matter must be a mapping of keys to values", "write `tangle: generated/x.ts`"));
    return void 0;
  }
  return contents.items.map((pair) => {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const offset = isScalar(pair.key) && pair.key.range !== void 0 && pair.key.range !== null ? pair.key.range[0] : 0;
    const scalar = isScalar(pair.value) ? pair.value.value : void 0;
    const value = typeof scalar === "string" && scalar.trim() !== "" ? scalar : void 0;
    const source = isScalar(pair.value) && pair.value.range !== void 0 && pair.value.range !== null ? raw.value.slice(pair.value.range[0], pair.value.range[1]) : String(pair.value);
    return { key, line: lineOf(offset), column: colOf(offset), value, source, ...typeof scalar === "number" ? { number: scalar } : {} };
  });
}

// tools/lib/paths.ts
import { posix } from "node:path";
var forbiddenRoots = ["literate", "node_modules", ".git", ".cache"];
var manifestPath = "generated/.tangle-manifest.json";
function checkTargetPath(raw) {
  if (raw.includes("\\")) return { ok: false, reason: `target \`${raw}\` uses backslashes; write it with \`/\`` };
  if (raw.includes("\0")) return { ok: false, reason: `target \`${raw}\` holds a NUL character` };
  if (posix.isAbsolute(raw) || /^[A-Za-z]:/.test(raw)) return { ok: false, reason: `target \`${raw}\` is absolute; targets are relative to the project root` };
  const path = posix.normalize(raw);
  if (path === "." || path.endsWith("/") || path === "") return { ok: false, reason: `target \`${raw}\` names a folder, not a file` };
  if (path === ".." || path.startsWith("../")) return { ok: false, reason: `target \`${raw}\` is outside the project` };
  const first = path.split("/")[0] ?? "";
  if (forbiddenRoots.includes(first)) return { ok: false, reason: `target \`${raw}\` is inside \`${first}/\`, which tangle never writes` };
  if (path === manifestPath) return { ok: false, reason: `target \`${raw}\` is tangle's own manifest` };
  return { ok: true, path };
}

// tools/lib/sourcemap.ts
import { Buffer as Buffer2 } from "node:buffer";
var base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
var base64Codes = Array.from(base64, (c) => c.charCodeAt(0));
function writeVlq(bytes, at, value) {
  if (value >= 0 && value < 16) {
    bytes[at] = base64Codes[value << 1] ?? 65;
    return at + 1;
  }
  let v = value < 0 ? -value << 1 | 1 : value << 1;
  let end = at;
  do {
    let digit = v & 31;
    v >>>= 5;
    if (v > 0) digit |= 32;
    bytes[end++] = base64Codes[digit] ?? 65;
  } while (v > 0);
  return end;
}
function codeUnits(text, scratch) {
  if (3 * text.length <= scratch.length) {
    const written = scratch.write(text, 0, "utf8");
    if (written === text.length) return scratch.subarray(0, written);
  } else {
    const ascii = Buffer2.from(text, "utf8");
    if (ascii.length === text.length) return ascii;
  }
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return units;
}
var MappingsBuilder = class {
  #bytes = new Uint8Array(4096);
  /** Room to encode a line or block of code into, reused. */
  #scratch = Buffer2.allocUnsafe(64 * 1024);
  #length = 0;
  #lines = 0;
  #source = 0;
  #line = 0;
  #column = 0;
  /** Starts a new map, keeping the buffer: one builder serves every target of a run in turn. */
  reset() {
    this.#length = 0;
    this.#lines = 0;
    this.#source = 0;
    this.#line = 0;
    this.#column = 0;
  }
  /** Room for `extra` more bytes. */
  #reserve(extra) {
    if (this.#length + extra > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + extra));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    return this.#bytes;
  }
  /** Starts a generated line: a `;` before every line but the first. */
  #startLine() {
    if (this.#lines > 0) this.#reserve(1)[this.#length++] = 59;
    this.#lines++;
  }
  /** Adds a generated line with no mapping (headers, provenance comments). */
  addUnmapped() {
    this.#startLine();
  }
  /** Adds a generated line mapped to `origin`, one segment per word start. */
  addMapped(text, origin) {
    this.#startLine();
    this.#addSegments(codeUnits(text, this.#scratch), 0, text.length, origin.source, origin.line, origin.shift);
  }
  /**
   * Adds `text` as several generated lines (split at `\n`), line k mapped to line
   * `origin.line + k` with the same shift: exactly what `addMapped` gives line by line, in one
   * pass over a verbatim block's text with no string per line. Returns how many lines it added.
   */
  addMappedLines(text, origin) {
    const before = this.#lines;
    this.#startLine();
    this.#addSegments(codeUnits(text, this.#scratch), 0, text.length, origin.source, origin.line, origin.shift);
    return this.#lines - before;
  }
  /**
   * Segments for the word starts of `codes` between `from` and `to`, from generated line
   * `toLine` on: a `\n` in the range starts the next generated line (mapped to the next
   * Markdown line), so a whole verbatim block is mapped in one loop.
   */
  #addSegments(codes, from, to, toSource, firstLine, shift) {
    const bytes = this.#reserve(15 * (to - from) + 29);
    let at = this.#length;
    let source = this.#source;
    let line = this.#line;
    let column = this.#column;
    let toLine = firstLine;
    let lineStart = from;
    let previousGenerated = 0;
    let first = true;
    let i = from;
    while (i < to) {
      let code = codes[i];
      if (code === 32 || code === 9) {
        i++;
        continue;
      }
      if (code === 10) {
        bytes[at++] = 59;
        this.#lines++;
        toLine++;
        lineStart = ++i;
        previousGenerated = 0;
        first = true;
        continue;
      }
      const c = i - lineStart;
      const sourceColumn = c + shift > 0 ? c + shift : 0;
      if (first) {
        first = false;
        at = writeVlq(bytes, at, c - previousGenerated);
        at = writeVlq(bytes, at, toSource - source);
        at = writeVlq(bytes, at, toLine - line);
        at = writeVlq(bytes, at, sourceColumn - column);
      } else {
        const generatedDelta = c - previousGenerated;
        const sourceDelta = sourceColumn - column;
        if (generatedDelta < 16 && sourceDelta >= 0 && sourceDelta < 16) {
          bytes[at] = 44;
          bytes[at + 1] = base64Codes[generatedDelta << 1] ?? 65;
          bytes[at + 2] = 65;
          bytes[at + 3] = 65;
          bytes[at + 4] = base64Codes[sourceDelta << 1] ?? 65;
          at += 5;
        } else {
          bytes[at++] = 44;
          at = writeVlq(bytes, at, generatedDelta);
          bytes[at++] = 65;
          bytes[at++] = 65;
          at = writeVlq(bytes, at, sourceDelta);
        }
      }
      previousGenerated = c;
      source = toSource;
      line = toLine;
      column = sourceColumn;
      for (i++; i < to; i++) {
        code = codes[i];
        if (code === 32 || code === 9 || code === 10) break;
      }
    }
    this.#length = at;
    this.#source = source;
    this.#line = line;
    this.#column = column;
  }
  /** The `mappings` so far, as ASCII bytes (a view, valid until the next addition). */
  bytes() {
    return this.#bytes.subarray(0, this.#length);
  }
  /** The `mappings` string so far. */
  toString() {
    return Buffer2.from(this.#bytes.buffer, this.#bytes.byteOffset, this.#length).toString("latin1");
  }
};
var inlineSourceMapPrefix = "//# sourceMappingURL=data:application/json;charset=utf-8;base64,";
function inlineSourceMapComment(file, sources, mappings) {
  return `${inlineSourceMapPrefix}${sourceMapJson(file, sources, mappings).toString("base64")}`;
}
function sourceMapJson(file, sources, mappings) {
  const head = Buffer2.from(`{"version":3,"file":${JSON.stringify(file)},"sources":${JSON.stringify(sources)},"names":[],"mappings":"`, "utf8");
  return Buffer2.concat([head, mappings, Buffer2.from('"}', "latin1")]);
}

// tools/lib/tangle.ts
var referenceLine = /^([ \t]*)<<([A-Za-z_][\w.-]*)>>[ \t]*$/;
function commentStyleFor(path) {
  const ext = posix2.extname(path).toLowerCase();
  if ([".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx"].includes(ext)) return "slash";
  if ([".sh", ".bash", ".zsh", ".py", ".rb", ".yml", ".yaml", ".toml"].includes(ext) || posix2.basename(path) === "run") return "hash";
  return "none";
}
function commentLine(style, text) {
  return style === "slash" ? `// ${text}` : `# ${text}`;
}
function tangle(inputs2, options = {}) {
  const sorted = [...inputs2].sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const documents = sorted.map((input) => options.parsed?.(input) ?? parseLiterateDocument(input.path, input.text, options.scan ?? "auto"));
  const diagnostics = documents.flatMap((d) => d.diagnostics);
  const blocks = documents.flatMap((d) => d.blocks);
  const named = /* @__PURE__ */ new Map();
  blocks.forEach((block, i) => {
    const name = block.attrs.name;
    if (name === void 0 || block.attrs.noTangle) return;
    const list = named.get(name);
    if (list === void 0) named.set(name, [i]);
    else list.push(i);
  });
  const roots = collectRoots(documents, blocks, diagnostics);
  const placements = /* @__PURE__ */ new Map();
  const referenced = /* @__PURE__ */ new Set();
  const targets = [];
  const files = /* @__PURE__ */ new Map();
  const mappings = new MappingsBuilder();
  for (const [path, entries] of roots) {
    const comment = commentStyleFor(path);
    const sources = [...new Set(entries.map((i) => blocks[i]?.doc ?? ""))];
    const emitter = new TargetEmitter(path, comment, sources, mappings);
    const ctx = { blocks, named, placements, referenced, diagnostics, stack: [] };
    for (const i of entries) {
      placements.set(i, { target: path, parent: -1 });
      emitter.emitBlock(i, "", ctx);
    }
    const target = emitter.finish();
    targets.push(target);
    files.set(path, target.content);
  }
  const live = new Set(referenced);
  const expanded = /* @__PURE__ */ new Set();
  for (const [name, indexes] of named) {
    if (live.has(name) || expanded.has(name)) continue;
    expanded.add(name);
    const nowhere = new TargetEmitter(`#${name}`, "none", []);
    const ctx = { blocks, named, placements: /* @__PURE__ */ new Map(), referenced: expanded, diagnostics, stack: [name] };
    for (const i of indexes) nowhere.emitBlock(i, "", ctx);
  }
  for (const [name, indexes] of named) {
    if (live.has(name)) continue;
    const first = blocks[indexes[0] ?? 0];
    if (first === void 0) continue;
    diagnostics.push(
      error(
        { file: first.doc, line: first.line, column: first.column },
        "unused-block",
        `named block \`#${name}\` is never referenced`,
        `splice it with a line \`<<${name}>>\` in another block, or delete it; to keep it only as an illustration, replace \`#${name}\` with \`no-tangle\``
      )
    );
  }
  return { documents, blocks, targets, files, placements, diagnostics, ok: !hasErrors(diagnostics) };
}
function frontMatterBroken(doc) {
  return doc?.diagnostics.some((d) => d.rule === "front-matter" && d.severity === "error") === true;
}
function collectRoots(documents, blocks, out) {
  const roots = /* @__PURE__ */ new Map();
  const checks = /* @__PURE__ */ new Map();
  const claims = /* @__PURE__ */ new Map();
  const docByPath = new Map(documents.map((d) => [d.path, d]));
  blocks.forEach((block, i) => {
    const at = { file: block.doc, line: block.line, column: block.column };
    const { attrs } = block;
    if (attrs.noTangle) {
      if (attrs.name !== void 0 || attrs.file !== void 0) {
        out.push(error(at, "bad-attribute", "`no-tangle` cannot be combined with `file=` or `#name`", "an illustration is never written; drop `no-tangle` or the other attribute"));
      }
      return;
    }
    if (attrs.name !== void 0) return;
    const doc = docByPath.get(block.doc);
    let raw;
    let explicit = false;
    if (attrs.file !== void 0) {
      raw = attrs.file;
      explicit = true;
    } else if (!isTypeScript(block)) {
      return;
    } else if (attrs.test) {
      raw = doc?.frontMatter.test;
      if (raw === void 0) {
        if (frontMatterBroken(doc)) return;
        out.push(error(at, "no-target", "test block has no target", "add `test: test/NAME.test.ts` to the front matter, or `file=PATH` to the fence"));
        return;
      }
    } else {
      raw = doc?.frontMatter.tangle;
      if (raw === void 0) {
        if (frontMatterBroken(doc)) return;
        out.push(error(at, "no-target", "TypeScript block has no target", "add `tangle: generated/NAME.ts` to the front matter, `file=PATH` to the fence, or mark it `no-tangle`"));
        return;
      }
    }
    let checked = checks.get(raw);
    if (checked === void 0) {
      checked = checkTargetPath(raw);
      checks.set(raw, checked);
    }
    if (!checked.ok) {
      const keyLine = doc?.frontMatter.keyLines[attrs.test ? "test" : "tangle"];
      const where = explicit || keyLine === void 0 ? at : { file: block.doc, line: keyLine, column: 1 };
      out.push(error(where, "bad-target", checked.reason, "targets are project-relative paths such as `generated/loop.ts`"));
      return;
    }
    const list = roots.get(checked.path);
    if (list === void 0) roots.set(checked.path, [i]);
    else list.push(i);
    let byDoc = claims.get(checked.path);
    if (byDoc === void 0) {
      byDoc = /* @__PURE__ */ new Map();
      claims.set(checked.path, byDoc);
    }
    byDoc.set(block.doc, (byDoc.get(block.doc) ?? true) && explicit);
  });
  for (const [path, byDoc] of claims) {
    if (byDoc.size < 2 || [...byDoc.values()].every((explicit) => explicit)) continue;
    const docs2 = [...byDoc.keys()];
    for (const [docPath, explicit] of byDoc) {
      if (explicit) continue;
      const doc = docByPath.get(docPath);
      const key = ["tangle", "test"].find((k) => {
        const value = doc?.frontMatter[k];
        const checked = value === void 0 ? void 0 : checkTargetPath(value);
        return checked?.ok === true && checked.path === path;
      });
      const line = (key === void 0 ? void 0 : doc?.frontMatter.keyLines[key]) ?? 1;
      out.push(error({ file: docPath, line, column: 1 }, "contested-target", `target \`${path}\` is claimed by ${docs2.map((d) => `\`${d}\``).join(" and ")}`, "give each document its own target, or send the shared blocks there with `file=` on every one of them"));
    }
    roots.delete(path);
  }
  return roots;
}
var LineRuns = class {
  #count = [];
  #block = [];
  /** Markdown line of the run's first line; 0 for lines that came from no Markdown line. */
  #source = [];
  #shift = [];
  #tables;
  /** Adds `count` lines from `block`, the first from Markdown line `source` (0: none), the next ones from the lines after it. */
  add(count, block, source, shift) {
    const last = this.#count.length - 1;
    const lastSource = this.#source[last] ?? 0;
    if (last >= 0 && this.#block[last] === block && this.#shift[last] === shift && (source === 0 ? lastSource === 0 : lastSource !== 0 && lastSource + (this.#count[last] ?? 0) === source)) {
      this.#count[last] = (this.#count[last] ?? 0) + count;
      return;
    }
    this.#count.push(count);
    this.#block.push(block);
    this.#source.push(source);
    this.#shift.push(shift);
  }
  /** The three per-line tables of `TangledTarget`, built on first use. */
  tables() {
    if (this.#tables !== void 0) return this.#tables;
    const lineBlock = [];
    const lineSource = [];
    const lineShift = [];
    this.#count.forEach((count, r) => {
      const block = this.#block[r] ?? -1;
      const source = this.#source[r] ?? 0;
      const shift = this.#shift[r] ?? 0;
      for (let k = 0; k < count; k++) {
        lineBlock.push(block);
        lineSource.push(source === 0 ? 0 : source + k);
        lineShift.push(shift);
      }
    });
    this.#tables = { lineBlock, lineSource, lineShift };
    return this.#tables;
  }
};
function lineCount(text) {
  let count = 1;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", nl + 1)) count++;
  return count;
}
var TargetEmitter = class {
  #path;
  #comment;
  #sources;
  #sourceIndex;
  #chunks = [];
  #lines = 0;
  #runs = new LineRuns();
  /** Only targets commented with `//` carry a source map. */
  #mappings;
  #headerWritten = false;
  /** `mappings`: a builder to reuse (reset here); the map is copied out of it in `finish`. */
  constructor(path, comment, sources, mappings) {
    this.#path = path;
    this.#comment = comment;
    this.#sources = sources;
    this.#sourceIndex = new Map(sources.map((s, i) => [s, i]));
    this.#mappings = comment === "slash" ? mappings ?? new MappingsBuilder() : void 0;
    this.#mappings?.reset();
  }
  #push(text, block, sourceLine, shift, source) {
    this.#chunks.push(text);
    this.#lines++;
    this.#runs.add(1, block, sourceLine, shift);
    if (this.#mappings === void 0) return;
    if (source === void 0) this.#mappings.addUnmapped();
    else this.#mappings.addMapped(text, { source: this.#sourceIndex.get(source) ?? 0, line: sourceLine - 1, shift });
  }
  /** Writes a verbatim block's text whole: its lines, from Markdown line `firstLine` on, at column shift 0. */
  #pushVerbatim(text, block, firstLine, source) {
    const count = this.#mappings?.addMappedLines(text, { source: this.#sourceIndex.get(source) ?? 0, line: firstLine - 1, shift: 0 }) ?? lineCount(text);
    this.#chunks.push(text);
    this.#lines += count;
    this.#runs.add(count, block, firstLine, 0);
  }
  #header(firstLine, block) {
    if (this.#headerWritten) return false;
    this.#headerWritten = true;
    if (this.#comment === "none") return false;
    let consumedShebang = false;
    if (firstLine !== void 0 && firstLine.startsWith("#!")) {
      this.#push(firstLine, -1, block.line + 1, block.columnShift[0] ?? 0, block.doc);
      consumedShebang = true;
    }
    this.#push(commentLine(this.#comment, `Generated by tools/tangle.ts from ${this.#sources.join(", ")}. Do not edit: change the Markdown and run \`npm run tangle\`.`), -1, 0, 0, void 0);
    return consumedShebang;
  }
  #provenance(doc, line, prefix) {
    if (this.#comment === "none") return;
    this.#push(`${prefix}${commentLine(this.#comment, `${doc}:${line}`)}`, -1, 0, 0, void 0);
  }
  /** Emits block `index` with `prefix` before each line, expanding `<<name>>` references. */
  emitBlock(index, prefix, ctx) {
    const block = ctx.blocks[index];
    if (block === void 0) return;
    const whole = block.verbatim;
    const skipFirst = this.#header(whole === void 0 || whole.startsWith("#!") ? block.lines[0] : void 0, block);
    if (this.#comment !== "none" && this.#lines > 0 && prefix === "") this.#push("", -1, 0, 0, void 0);
    if (whole !== void 0 && !skipFirst && prefix === "" && !whole.includes("<<")) {
      this.#provenance(block.doc, block.line + 1, prefix);
      this.#pushVerbatim(whole, index, block.line + 1, block.doc);
      return;
    }
    let needProvenance = true;
    for (let i = skipFirst ? 1 : 0; i < block.lines.length; i++) {
      const text = block.lines[i] ?? "";
      const mdLine = block.line + 1 + i;
      const ref = text.includes("<<") ? referenceLine.exec(text) : null;
      if (ref !== null) {
        const indent = prefix + (ref[1] ?? "");
        this.#splice(ref[2] ?? "", indent, ctx, index, { file: block.doc, line: mdLine, column: (ref[1] ?? "").length + 1 + (block.columnShift[i] ?? 0) });
        needProvenance = true;
        continue;
      }
      if (needProvenance) {
        this.#provenance(block.doc, mdLine, prefix);
        needProvenance = false;
      }
      const shift = (block.columnShift[i] ?? 0) - prefix.length;
      this.#push(text === "" ? "" : prefix + text, index, mdLine, shift, block.doc);
    }
  }
  #splice(name, indent, ctx, parent, at) {
    const found = ctx.named.get(name);
    if (found === void 0) {
      ctx.diagnostics.push(error(at, "unknown-reference", `\`<<${name}>>\` refers to no block`, `name a block with \`#${name}\` in its fence, or fix the spelling`));
      return;
    }
    ctx.referenced.add(name);
    if (ctx.stack.includes(name)) {
      const cycle = [...ctx.stack.slice(ctx.stack.indexOf(name)), name];
      ctx.diagnostics.push(error(at, "reference-cycle", `references form a cycle: ${cycle.map((n) => `<<${n}>>`).join(" -> ")}`, "a block cannot include itself, directly or through others"));
      return;
    }
    ctx.stack.push(name);
    for (const child of found) {
      if (!ctx.placements.has(child)) ctx.placements.set(child, { target: this.#path, parent });
      this.emitBlock(child, indent, ctx);
    }
    ctx.stack.pop();
  }
  /**
   * The finished target. A target commented with `//` ends with its source map, inline: the
   * comment line is unmapped itself, so the map has a (empty) entry for every line.
   */
  finish() {
    const mappings = this.#mappings;
    if (mappings !== void 0) {
      mappings.addUnmapped();
      const dir = posix2.dirname(this.#path);
      this.#chunks.push(inlineSourceMapComment(posix2.basename(this.#path), this.#sources.map((s) => posix2.relative(dir, s)), mappings.bytes()));
      this.#lines++;
      this.#runs.add(1, -1, 0, 0);
    }
    if (this.#lines > 0) this.#chunks.push("");
    const content = this.#chunks.join("\n");
    const runs = this.#runs;
    return {
      path: this.#path,
      content,
      comment: this.#comment,
      sources: this.#sources,
      get lineBlock() {
        return runs.tables().lineBlock;
      },
      get lineSource() {
        return runs.tables().lineSource;
      },
      get lineShift() {
        return runs.tables().lineShift;
      }
    };
  }
};

// tools/lib/io.ts
import { Buffer as Buffer3, isAscii } from "node:buffer";
function decodeTexts(files) {
  if (!files.every((bytes) => isAscii(bytes))) return files.map((bytes) => bytes.toString("utf8"));
  const whole = Buffer3.concat(files).toString("latin1");
  let at = 0;
  return files.map((bytes) => whole.slice(at, at += bytes.length));
}

// bench/corpus.ts
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// bench/dice.ts
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = a + 1831565813 >>> 0;
    let t2 = a;
    t2 = Math.imul(t2 ^ t2 >>> 15, t2 | 1);
    t2 ^= t2 + Math.imul(t2 ^ t2 >>> 7, t2 | 61);
    return ((t2 ^ t2 >>> 14) >>> 0) / 4294967296;
  };
}
var Dice = class {
  #next;
  constructor(seed) {
    this.#next = mulberry32(seed);
  }
  /** An integer in [0, n). */
  int(n) {
    return Math.floor(this.#next() * n);
  }
  /** An integer in [lo, hi]. */
  between(lo, hi) {
    return lo + this.int(hi - lo + 1);
  }
  chance(p2) {
    return this.#next() < p2;
  }
  pick(items) {
    const item = items[this.int(items.length)];
    if (item === void 0) throw new Error("pick from an empty list");
    return item;
  }
};

// bench/corpus.ts
var subjects = ["The registry", "This module", "The loop", "Each item", "The caller", "A reader", "The planner", "The scanner", "Every record", "The agent"];
var verbs = ["keeps", "checks", "returns", "records", "collects", "validates", "describes", "normalises", "counts", "remembers"];
var objects = [
  "the items it was given",
  "every tag in the order it first appeared",
  "a summary that fits on one line",
  "the status of each record",
  "the version that changes on every write",
  "what the previous chapter produced",
  "the quantities as plain numbers",
  "the identifiers callers pass in",
  "a copy rather than the original",
  "the first problem it finds"
];
var tails = [
  "so that later chapters can rely on it",
  "without touching the disk",
  "because the tests read it back",
  "which keeps the invariants easy to state",
  "and nothing else",
  "in the same order every time",
  "so a reader can follow the data",
  "before anything is written",
  "even when the input is empty",
  "as the next section shows"
];
var headingWords = ["Items", "Statuses", "Defaults", "Creating records", "The registry", "Adopting", "Summaries", "Changes", "Applying changes", "Grouping", "Slugs", "Percentiles", "Auditing", "Errors", "Retrying", "Weights", "Reports", "Validation", "Pages", "Patches"];
var nouns = ["order", "invoice", "shipment", "ticket", "session", "account", "route", "sample", "reading", "entry"];
function sentence(d, name) {
  const base = `${d.pick(subjects)} ${d.pick(verbs)} ${d.pick(objects)}, ${d.pick(tails)}.`;
  return d.chance(0.35) ? `${base} See \`${name}\` for the details, and note that it ${d.pick(verbs)} ${d.pick(objects)}.` : base;
}
function prose(d, name, heading) {
  const out = [`## ${heading}`, ""];
  const paragraphs = d.between(1, 2);
  for (let p2 = 0; p2 < paragraphs; p2++) {
    const sentences = [];
    const count = d.between(2, 4);
    for (let s = 0; s < count; s++) sentences.push(sentence(d, name));
    out.push(sentences.join(" "), "");
  }
  if (d.chance(0.2)) out.push(`- it ${d.pick(verbs)} ${d.pick(objects)}`, `- it ${d.pick(verbs)} ${d.pick(objects)}`, "");
  return out;
}
function pad(n, width) {
  return String(n).padStart(width, "0");
}
var fixed = [
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
      "}"
    ]
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
      `} as const satisfies { quantity: number; status: Status${n}; maxTags: number; label: string };`
    ]
  }),
  (_d, n) => ({
    name: `createItem${n}`,
    lines: [
      `export function createItem${n}(id: string, name: string, tags: readonly string[] = []): Item${n} {`,
      "  const trimmed = name.trim();",
      '  if (trimmed === "") throw new Error(`item ${id} needs a name`);',
      `  const unique = [...new Set(tags)].slice(0, defaults${n}.maxTags);`,
      `  return { id, name: trimmed, quantity: defaults${n}.quantity, tags: unique, status: defaults${n}.status };`,
      "}"
    ]
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
      "}"
    ]
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
        "}"
      ]
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
      "}"
    ]
  }),
  (_d, n) => ({
    name: `Change${n}`,
    lines: [
      `export type Change${n} =`,
      `  | { readonly kind: "created"; readonly item: Item${n} }`,
      '  | { readonly kind: "renamed"; readonly id: string; readonly name: string }',
      `  | { readonly kind: "moved"; readonly id: string; readonly status: Status${n} }`,
      '  | { readonly kind: "removed"; readonly id: string };'
    ]
  }),
  (_d, n) => ({
    name: `applyChange${n}`,
    lines: [
      `export function applyChange${n}(items: ReadonlyMap<string, Item${n}>, change: Change${n}): Map<string, Item${n}> {`,
      "  const next = new Map(items);",
      "  switch (change.kind) {",
      '    case "created":',
      "      next.set(change.item.id, change.item);",
      "      return next;",
      '    case "renamed": {',
      "      const item = next.get(change.id);",
      "      if (item !== undefined) next.set(change.id, { ...item, name: change.name });",
      "      return next;",
      "    }",
      '    case "moved": {',
      "      const item = next.get(change.id);",
      "      if (item !== undefined) next.set(change.id, { ...item, status: change.status });",
      "      return next;",
      "    }",
      '    case "removed":',
      "      next.delete(change.id);",
      "      return next;",
      "    default: {",
      "      const never: never = change;",
      "      throw new Error(`unknown change ${String(never)}`);",
      "    }",
      "  }",
      "}"
    ]
  })
];
var randomKinds = [
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
      "}"
    ]
  }),
  (d, n, b) => ({
    name: `slug${n}_${b}`,
    lines: [
      `/** A URL-safe slug of at most ${d.between(20, 80)} characters. */`,
      `export function slug${n}_${b}(text: string, limit = ${d.between(20, 80)}): string {`,
      '  const lower = text.normalize("NFKD").toLowerCase();',
      '  const dashed = lower.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");',
      "  if (dashed.length <= limit) return dashed;",
      "  const cut = dashed.slice(0, limit);",
      '  const last = cut.lastIndexOf("-");',
      "  return last > 0 ? cut.slice(0, last) : cut;",
      "}"
    ]
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
      "}"
    ]
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
      "}"
    ]
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
      "}"
    ]
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
      "}"
    ]
  }),
  (d, n, b) => {
    const keys = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"].slice(0, d.between(3, 8));
    return {
      name: `weights${n}_${b}`,
      lines: [`export const weights${n}_${b}: Readonly<Record<string, number>> = {`, ...keys.map((k) => `  ${k}: ${d.between(1, 100) / 10},`), "};"]
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
        "}"
      ]
    };
  },
  (d, n, b) => ({
    name: `validate${n}_${b}`,
    lines: [
      `export function validate${n}_${b}(item: Item${n}): string[] {`,
      "  const problems: string[] = [];",
      '  if (item.id.trim() === "") problems.push("id is empty");',
      `  if (item.quantity < 0 || item.quantity > ${d.between(100, 1e4)}) problems.push(\`quantity \${item.quantity} is out of range\`);`,
      `  if (item.tags.length > defaults${n}.maxTags) problems.push("too many tags");`,
      '  if (item.note !== undefined && item.note.length > 200) problems.push("note is too long");',
      "  return problems;",
      "}"
    ]
  }),
  (_d, n, b) => ({
    name: `Page${n}_${b}`,
    lines: [
      `export interface Page${n}_${b}<T> {`,
      "  readonly items: readonly T[];",
      "  readonly cursor?: string;",
      "  readonly total: number;",
      "}"
    ]
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
      "}"
    ]
  }),
  (_d, n, b) => ({
    name: `Patch${n}_${b}`,
    lines: [`export type Patch${n}_${b} = { -readonly [K in keyof Item${n}]?: Item${n}[K] };`]
  }),
  (_d, n, b) => ({
    name: `renameAll${n}_${b}`,
    lines: [
      `export function renameAll${n}_${b}(registry: Registry${n}, rename: (name: string) => string): Change${n}[] {`,
      `  const changes: Change${n}[] = [];`,
      "  for (const item of registry.list()) {",
      "    const name = rename(item.name);",
      '    if (name !== item.name) changes.push({ kind: "renamed", id: item.id, name });',
      "  }",
      "  return changes;",
      "}"
    ]
  })
];
var diagrams = [
  ["```mermaid", "graph LR", "  md[literate/*.md] --> tangle", "  tangle --> ts[generated/*.ts]", "  ts --> verify", "```"],
  ["```sh", "npm run tangle", "npm run verify -- --json > report.json", "```"]
];
function documentText(n, spec, mod) {
  const d = new Dice(2654435761 ^ Math.imul(n + 1, 2246822507));
  const out = ["---", `title: Chapter ${n} of the synthetic corpus`, `tangle: generated/${mod(n)}.ts`, "---", "", `# Chapter ${n}`, ""];
  out.push(sentence(d, `Item${n}`), "");
  let other = 0;
  for (let b = 0; b < spec.blocksPerDocument; b++) {
    const maker = b < fixed.length ? fixed[b] : d.pick(randomKinds);
    if (maker === void 0) throw new Error("no block maker");
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
function corpusTsconfig(projectRoot2) {
  const project = JSON.parse(readFileSync(join(projectRoot2, "tsconfig.json"), "utf8"));
  return `${JSON.stringify({ compilerOptions: { ...project.compilerOptions, types: [] }, include: ["generated"] }, null, 2)}
`;
}
function writeCorpus(root2, spec, projectRoot2) {
  rmSync(root2, { recursive: true, force: true });
  mkdirSync(join(root2, "literate"), { recursive: true });
  writeFileSync(join(root2, "tsconfig.json"), corpusTsconfig(projectRoot2));
  writeFileSync(join(root2, "package.json"), `${JSON.stringify({ name: "bench-corpus", private: true, type: "module" }, null, 2)}
`);
  const width = Math.max(3, String(spec.documents - 1).length);
  const mod = (j) => `doc${pad(j, width)}`;
  let markdownBytes = 0;
  let codeBytes = 0;
  let tsBlocks = 0;
  let otherBlocks = 0;
  for (let n = 0; n < spec.documents; n++) {
    const { text, ts, other } = documentText(n, spec, mod);
    writeFileSync(join(root2, "literate", `${mod(n)}.md`), text);
    markdownBytes += Buffer.byteLength(text);
    codeBytes += fencedBytes(text);
    tsBlocks += ts;
    otherBlocks += other;
  }
  return { root: root2, documents: spec.documents, tsBlocks, otherBlocks, markdownBytes, codeBytes };
}
function fencedBytes(text) {
  let inside = false;
  let bytes = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) inside = !inside;
    else if (inside) bytes += line.length + 1;
  }
  return bytes;
}

// bench/toolchain.ts
import { mkdirSync as mkdirSync2, readdirSync, readFileSync as readFileSync2, rmSync as rmSync2, statSync, writeFileSync as writeFileSync2 } from "node:fs";
import { dirname, join as join2, resolve } from "node:path";
import { fileURLToPath } from "node:url";
var projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
var corpusBase = join2(projectRoot, "bench", ".corpus");
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? upper) + upper) / 2;
}
function timeOnce(fn, before) {
  before?.();
  const started = performance.now();
  fn();
  return performance.now() - started;
}
function removeAll(...paths) {
  for (const path of paths) rmSync2(path, { recursive: true, force: true });
}

// bench/.emit.ts
var root = join3("/dev/shm", `e300`);
writeCorpus(root, { documents: 300, blocksPerDocument: 20 }, projectRoot);
var names = readdirSync2(join3(root, "literate")).sort();
var texts = decodeTexts(names.map((n) => readFileSync3(join3(root, "literate", n))));
var inputs = names.map((n, i) => ({ path: `literate/${n}`, text: texts[i] }));
var docs = new Map(inputs.map((i) => [i.path, parseLiterateDocument(i.path, i.text)]));
var t = [];
var p = [];
for (let r = 0; r < 60; r++) {
  t.push(timeOnce(() => void tangle(inputs, { parsed: (i) => docs.get(i.path) })));
  p.push(timeOnce(() => {
    for (const i of inputs) parseLiterateDocument(i.path, i.text);
  }));
}
console.log("emit", median(t).toFixed(1), Math.min(...t).toFixed(1), "parse", median(p).toFixed(1), Math.min(...p).toFixed(1));
removeAll(root);
