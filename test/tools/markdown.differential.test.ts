/**
 * The fast fence scanner against the reference (remark), over generated documents.
 *
 * `scanFast` may refuse any document (it returns `undefined` and tangle asks remark), but when it
 * answers it must answer exactly what remark answers. A seeded PRNG builds documents from pieces
 * chosen to confuse a line scanner; a second family of ordinary chapters proves the fast path
 * actually answers, so this test cannot pass by always bailing.
 */
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { Dice } from "../../bench/dice.ts";
import { scanFast, type RawBlock, type ScanResult } from "../../tools/lib/core/markdown.ts";
import { scanWithRemark } from "../../tools/lib/core/remark.ts";

/** What remark says, without the fields only remark computes. */
function reference(text: string): ScanResult {
  const result = scanWithRemark(text);
  return {
    frontMatter: result.frontMatter,
    blocks: result.blocks.map((block): RawBlock => {
      const { proseBefore: _ignored, prose: _text, ...rest } = block;
      return rest;
    }),
  };
}

const words = ["tangle", "the", "loop", "agent", "`code`", "*emph*", "a<b", "x > y", "~~~", "```", "&amp;", "\\`", "<<name>>", "[link](x)", "1."];
const infos = [
  "",
  "ts",
  "ts file=generated/a.ts",
  "ts #helper",
  "ts test",
  "ts no-tangle",
  "ts\tfile=generated/b.ts",
  " ts",
  "ts  ",
  "json file=config.json",
  "ts `x`",
  "`ts`",
  "ts \\#escaped",
  "ts &amp; entity",
  "ts&#x20;x",
  "\tts",
  "ts\u00a0x",
  "\u00a0ts",
  "ts\u000b",
  "ts\u2028x",
  "sh",
  "ts ~~~",
];

function fenceRun(d: Dice, char: "`" | "~"): string {
  return char.repeat(d.between(3, 5));
}

/** Prose an ordinary chapter holds: inline code, entities and `<<name>>`, but nothing that opens a fence. */
const plainWords = ["tangle", "the", "loop", "agent", "`code`", "*emph*", "a<b", "x > y", "&amp;", "<<name>>", "[link](x)", "``a ` b``"];

function phrase(d: Dice, vocabulary: readonly string[] = words): string {
  const n = d.between(1, 7);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(d.pick(vocabulary));
  return out.join(" ");
}

/** A fenced block, possibly indented, possibly unclosed, with fence-looking lines inside. */
function fencedBlock(d: Dice, indent: string): string[] {
  const char = d.chance(0.6) ? "`" : "~";
  const open = fenceRun(d, char);
  const lines = [`${indent}${open}${d.pick(infos)}`];
  const body = d.between(0, 5);
  for (let i = 0; i < body; i++) {
    lines.push(
      indent +
        d.pick([
          "const x = 1;",
          "",
          "  <<helper>>",
          "<<helper>>",
          "```",
          "~~~",
          "````ts",
          "```ts",
          "~~~~",
          "   ```",
          "    ```",
          "> quoted",
          "<div>",
          "- item",
          "\tindented();",
          "---",
          "# not a heading",
          `${open}x`,
          `${open.slice(1)}`,
        ]),
    );
  }
  const close = d.int(10);
  if (close === 0) return lines; // unclosed, runs to the end of its container
  const closer =
    close === 1
      ? `${open}${char}`
      : close === 2
        ? `${open}  `
        : close === 3
          ? ` ${open}`
          : close === 4
            ? `   ${open}\t`
            : close === 5
              ? `    ${open}`
              : close === 6
                ? (char === "`" ? "~" : "`").repeat(open.length)
                : open;
  lines.push(indent + closer);
  if (close === 5 || close === 6) lines.push(indent + open);
  return lines;
}

/** One piece of a confusing document. */
function confusingPiece(d: Dice): string[] {
  switch (d.int(22)) {
    case 0:
      return [`${"#".repeat(d.between(1, 6))} ${phrase(d)}`];
    case 1:
      return [phrase(d), phrase(d)];
    case 2:
      return [""];
    case 3:
    case 4:
    case 5:
      return fencedBlock(d, "");
    case 6:
      return fencedBlock(d, d.pick([" ", "  ", "   ", "    ", "\t"]));
    case 7: {
      const marker = d.pick(["- ", "* ", "+ ", "1. ", "2) ", "-\t", "- - ", "1. - "]);
      const inner = fencedBlock(d, "");
      return inner.map((l, i) => (i === 0 ? marker + l : " ".repeat(marker.length) + l));
    }
    case 8:
      return [`- ${phrase(d)}`, `  - ${phrase(d)}`, `- ${phrase(d)}`];
    case 9:
      return ["1. first", "2. second", "   continued"];
    case 10:
      return [`> ${phrase(d)}`, "> ```ts", "> code", "> ```"];
    case 11:
      return [d.pick(["> plain quote", "> > nested", ">```ts", "- > ```ts", "1) > ~~~"])];
    case 12:
      return d.pick([["<div>", "", "```ts", "</div>"], ["<pre>", "```ts", "x", "</pre>"], ["<!-- comment", "```", "-->"], ["<details>", "<summary>x</summary>", "</details>"]]);
    case 13:
      return ["", "    indented code", "    ```ts", "    more"];
    case 14:
      return ["\tcode with tab", "\t```"];
    case 15:
      return [d.pick(["<<helper>>", "  <<helper>>", "<<a>> <<b>>"])];
    case 16:
      return ["| a | b |", "| - | - |", "| ``` | x |"];
    case 17:
      return [d.pick(["[^1]: ```ts", "[^note]: a footnote", "* [^x]: ~~~"]), "    code"];
    case 18:
      return [d.pick(["---", "***", "___", "- - -"])];
    case 19:
      return [phrase(d), d.pick(["===", "---"])];
    case 20:
      return ["- item", "", "  ```ts", "  code", "  ```"];
    default:
      return [d.pick(["```", "~~~", "``` ts file=x", "~~~\tts"]), phrase(d)];
  }
}

function frontMatter(d: Dice): string[] {
  switch (d.int(7)) {
    case 0:
      return ["---", "tangle: generated/a.ts", "test: test/a.test.ts", "---"];
    case 1:
      return ["---  ", "title: trailing spaces", "---\t"];
    case 2:
      return ["---", "title: never closed", "", "# Heading"];
    case 3:
      return ["---", "---"];
    case 4:
      return ["----", "title: four dashes", "----"];
    case 5:
      return ["---", "title: x", "```ts", "---"];
    default:
      return [];
  }
}

function confusingDocument(d: Dice): string {
  const lines = [...frontMatter(d)];
  const pieces = d.between(1, 8);
  for (let i = 0; i < pieces; i++) {
    lines.push(...confusingPiece(d));
    if (d.chance(0.5)) lines.push("");
  }
  const eol = d.chance(0.2) ? "\r\n" : "\n";
  const text = lines.join(eol);
  // Some editors start a file with a byte-order mark; it must not hide the document's blocks.
  const bom = d.chance(0.1) ? "\ufeff" : "";
  return bom + (d.chance(0.85) ? text + eol : text);
}

/** A chapter as authors write them: front matter, prose, lists, and fences at column 1. */
function typicalChapter(d: Dice): string {
  const lines = ["---", "tangle: generated/chapter.ts", "test: test/chapter.test.ts", `title: Chapter ${d.int(100)}`, "---", "", `# ${phrase(d, plainWords)}`, ""];
  const sections = d.between(1, 8);
  for (let s = 0; s < sections; s++) {
    switch (d.int(5)) {
      case 0:
        lines.push(`## ${phrase(d, plainWords)}`, "");
        break;
      case 1:
        lines.push(`- ${phrase(d, plainWords)}`, `- ${phrase(d, plainWords)}`, `  - ${phrase(d, plainWords)}`, "");
        break;
      case 2:
        lines.push(`1. ${phrase(d, plainWords)}`, `2. ${phrase(d, plainWords)}`, "");
        break;
      default:
        // A prose line starting with `<` is refused (it could open an HTML block), so prose starts with a word.
        lines.push(`The **${d.pick(["loop", "tool", "agent"])}** ${phrase(d, plainWords)}.`, `and ${phrase(d, plainWords)}`, "");
    }
    const fence = d.pick(["```", "```", "````", "~~~"]);
    const info = d.pick(["ts", "ts #helper", "ts test", "ts no-tangle", "ts file=generated/other.ts", "json file=config.json", "sh"]);
    lines.push(`${fence}${info}`);
    const body = d.between(0, 6);
    for (let i = 0; i < body; i++) lines.push(d.pick(["export const x = 1;", "", "  <<helper>>", "  return `template`;", "// comment", "if (a < b && c > d) {", "}"]));
    lines.push(fence, "");
  }
  return (d.chance(0.1) ? "\ufeff" : "") + lines.join("\n");
}

interface Disagreement {
  readonly text: string;
  readonly fast: ScanResult;
  readonly remark: ScanResult;
}

function describeDisagreement(found: Disagreement | undefined, count: number): string {
  if (found === undefined) return "";
  return `${count} document(s) disagree; first:\n${JSON.stringify(found.text)}\nfast:   ${JSON.stringify(found.fast)}\nremark: ${JSON.stringify(found.remark)}`;
}

describe("scanFast against remark", () => {
  it("agrees with remark on every generated confusing document it answers for", () => {
    const d = new Dice(0x5eed);
    let answered = 0;
    let answeredWithBlocks = 0;
    let answeredCrlf = 0;
    let answeredUnclosed = 0;
    let answeredFrontMatter = 0;
    let answeredBom = 0;
    let disagreements = 0;
    let first: Disagreement | undefined;
    const total = 4000;
    for (let n = 0; n < total; n++) {
      const text = confusingDocument(d);
      const fast = scanFast(text);
      if (fast === undefined) continue;
      answered++;
      if (fast.blocks.length > 0) answeredWithBlocks++;
      if (text.includes("\r\n") && fast.blocks.length > 0) answeredCrlf++;
      if (fast.blocks.some((b) => !b.closed)) answeredUnclosed++;
      if (fast.frontMatter !== undefined) answeredFrontMatter++;
      if (text.startsWith("\ufeff") && fast.blocks.length > 0) answeredBom++;
      const remark = reference(text);
      if (!isDeepStrictEqual(fast, remark)) {
        disagreements++;
        first ??= { text, fast, remark };
      }
    }
    expect(disagreements, describeDisagreement(first, disagreements)).toBe(0);
    // The comparison must have had something to compare: many documents answered, with blocks.
    expect(answered, `fast path answered ${answered} of ${total}`).toBeGreaterThan(total / 10);
    expect(answeredWithBlocks, `fast path answered ${answeredWithBlocks} documents holding blocks`).toBeGreaterThan(total / 20);
    for (const [what, count] of Object.entries({ answeredCrlf, answeredUnclosed, answeredFrontMatter, answeredBom })) {
      expect(count, `${what}: the fast path must have answered some such documents`).toBeGreaterThan(20);
    }
  });

  it("answers for every typical chapter, and answers what remark does", () => {
    const d = new Dice(20240601);
    for (let n = 0; n < 300; n++) {
      const text = typicalChapter(d);
      const fast = scanFast(text);
      expect(fast, `fast path refused a typical chapter:\n${text}`).toBeDefined();
      expect(fast, `disagreement on:\n${JSON.stringify(text)}`).toEqual(reference(text));
    }
  });

  it("generates the same documents from the same seed", () => {
    const a = new Dice(7);
    const b = new Dice(7);
    expect(Array.from({ length: 20 }, () => confusingDocument(a))).toEqual(Array.from({ length: 20 }, () => confusingDocument(b)));
  });
});
