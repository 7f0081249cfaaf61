/**
 * Syntax highlighting with shiki, grammars and theme loaded from `node_modules` (no network).
 * One highlighter per build; tokens come back as `CodeToken`s for `code-html.ts`.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { createHighlighter, type BundledLanguage, type Highlighter } from "shiki";
import { plainTokens, type CodeToken } from "./code-html.ts";

/** The languages the site highlights; anything else renders as plain text. */
export const highlightedLanguages: readonly BundledLanguage[] = ["typescript", "javascript", "json", "yaml", "shellscript", "markdown", "diff"];

const aliases: Readonly<Record<string, BundledLanguage>> = { ts: "typescript", js: "javascript", sh: "shellscript", bash: "shellscript", shell: "shellscript", yml: "yaml", md: "markdown" };

/** The theme code is highlighted with. */
export const codeTheme = "github-light";

/** Tokenizes code into lines of `CodeToken`s. */
export type Tokenize = (code: string, lang: string) => CodeToken[][];

/** One token as shiki gives it, cut to what `CodeToken` needs (and what crosses a thread). */
interface ShikiToken {
  readonly content: string;
  readonly offset: number;
  readonly color?: string | undefined;
  readonly fontStyle?: number | undefined;
}

/** shiki's lines of tokens as `CodeToken`s: columns counted from each line's start. */
function codeTokensOf(code: string, lines: readonly (readonly ShikiToken[])[]): CodeToken[][] {
  const lineStarts: number[] = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === "\n") lineStarts.push(i + 1);
  return lines.map((line, i) =>
    line.map((t) => ({
      content: t.content,
      column: t.offset - (lineStarts[i] ?? 0),
      ...(t.color === undefined ? {} : { color: t.color }),
      ...(t.fontStyle === undefined || t.fontStyle <= 0 ? {} : { fontStyle: t.fontStyle }),
    })),
  );
}

/** Creates the build's highlighter. */
export async function createTokenizer(): Promise<Tokenize> {
  const highlighter: Highlighter = await createHighlighter({ themes: [codeTheme], langs: [...highlightedLanguages] });
  const loaded = new Set<string>(highlighter.getLoadedLanguages());
  return (code, lang) => {
    const name = aliases[lang] ?? lang;
    if (!loaded.has(name)) return plainTokens(code);
    // No time limit per line: shiki's default (500 ms) cuts a line short on a loaded machine and
    // colours the rest of it as whatever scope was open, and the build cache would keep that.
    const { tokens } = highlighter.codeToTokens(code, { lang: name as BundledLanguage, theme: codeTheme, tokenizeTimeLimit: 0 });
    return codeTokensOf(code, tokens);
  };
}

/** One piece of code to highlight. */
export interface CodeToHighlight {
  readonly code: string;
  readonly lang: string;
}

/**
 * The worker thread's script (plain JavaScript: it runs as it is, under the compiled tools and
 * under vitest alike). It loads shiki from the URL it is given, tokenizes every piece with the
 * options `createTokenizer` uses, and posts back shiki's tokens cut to `ShikiToken`, or `null`
 * for a language it does not highlight.
 */
const workerScript = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const { createHighlighter } = await import(workerData.shiki);
  const highlighter = await createHighlighter({ themes: [workerData.theme], langs: workerData.langs });
  const loaded = new Set(highlighter.getLoadedLanguages());
  const lines = workerData.pieces.map(({ code, lang }) => {
    const name = workerData.aliases[lang] ?? lang;
    if (!loaded.has(name)) return null;
    const { tokens } = highlighter.codeToTokens(code, { lang: name, theme: workerData.theme, tokenizeTimeLimit: 0 });
    return tokens.map((line) => line.map((t) => ({ content: t.content, offset: t.offset, color: t.color, fontStyle: t.fontStyle })));
  });
  parentPort.postMessage(lines);
})();
`;

/**
 * Highlights `pieces` on a worker thread, so the caller's thread stays free for other work (a cold
 * docs build resolves its identifiers meanwhile). Resolves to the same tokens `createTokenizer`
 * gives, in order; rejects when the thread fails.
 */
export function highlightOnWorker(pieces: readonly CodeToHighlight[]): Promise<CodeToken[][][]> {
  const shiki = pathToFileURL(createRequire(import.meta.url).resolve("shiki")).href;
  const worker = new Worker(workerScript, { eval: true, workerData: { shiki, theme: codeTheme, langs: [...highlightedLanguages], aliases, pieces } });
  return new Promise((resolve, reject) => {
    worker.once("message", (lines: readonly ((readonly ShikiToken[][]) | null)[]) => {
      resolve(pieces.map((piece, i) => {
        const tokens = lines[i];
        return tokens === null || tokens === undefined ? plainTokens(piece.code) : codeTokensOf(piece.code, tokens);
      }));
      void worker.terminate();
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the highlighting thread exited with code ${code} before it answered`)));
  });
}
