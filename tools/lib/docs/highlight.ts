/**
 * Syntax highlighting with shiki, grammars and theme loaded from `node_modules` (no network).
 * One highlighter per build; tokens come back as `CodeToken`s for `code-html.ts`.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { createHighlighter, type BundledLanguage, type Highlighter, type ThemedToken } from "shiki";
import { plainTokens, type CodeToken } from "./code-html.ts";

/** The languages the site highlights; anything else renders as plain text. */
const highlightedLanguages: readonly BundledLanguage[] = ["typescript", "javascript", "json", "yaml", "shellscript", "markdown", "diff"];

const aliases: Readonly<Record<string, BundledLanguage>> = { ts: "typescript", js: "javascript", sh: "shellscript", bash: "shellscript", shell: "shellscript", yml: "yaml", md: "markdown" };

/**
 * The themes code is highlighted with, light and dark: GitHub's default pair, whose every token
 * colour passes WCAG AA (4.5:1) on the site's code background in its mode (`github-light`, the
 * tempting classic, has an orange at 3.5:1). Each token carries both colours; the style sheet
 * picks the dark one when the reader's system is dark.
 */
const codeThemes = { light: "github-light-default", dark: "github-dark-default" } as const;

/** Both themes as one name, for the caches' keys. */
export const codeTheme = `${codeThemes.light}+${codeThemes.dark}`;

/**
 * Light colours overridden for contrast: the comment grey (4.6:1 on white) falls under 4.5:1 on
 * the tinted backgrounds of a linked or a problem line, so it is darkened to the site's muted grey.
 */
const colourOverrides: Readonly<Record<string, string>> = { "#6e7781": "#59636e" };

/** Tokenizes code into lines of `CodeToken`s. */
export type Tokenize = (code: string, lang: string) => CodeToken[][];

/** One token as shiki gives it (with two themes: the light colour as `color`, the dark one as `htmlStyle`'s `--shiki-dark`), cut to what `CodeToken` needs and what crosses a thread. */
type ShikiToken = Pick<ThemedToken, "content" | "offset" | "color" | "htmlStyle" | "fontStyle">;

/** A colour as the page writes it: lower case, overridden where the theme's falls short of AA. */
function shownColour(colour: string | undefined): string | undefined {
  if (colour === undefined) return undefined;
  const lower = colour.toLowerCase();
  return colourOverrides[lower] ?? lower;
}

/** shiki's lines of tokens as `CodeToken`s: columns counted from each line's start. */
function codeTokensOf(code: string, lines: readonly (readonly ShikiToken[])[]): CodeToken[][] {
  const lineStarts: number[] = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === "\n") lineStarts.push(i + 1);
  return lines.map((line, i) =>
    line.map((t) => {
      const color = shownColour(t.htmlStyle?.["color"] ?? t.color);
      const dark = shownColour(t.htmlStyle?.["--shiki-dark"]);
      return {
        content: t.content,
        column: t.offset - (lineStarts[i] ?? 0),
        ...(color === undefined ? {} : { color }),
        ...(dark === undefined ? {} : { dark }),
        ...(t.fontStyle === undefined || t.fontStyle <= 0 ? {} : { fontStyle: t.fontStyle }),
      };
    }),
  );
}

/** Creates the build's highlighter. */
export async function createTokenizer(): Promise<Tokenize> {
  const highlighter: Highlighter = await createHighlighter({ themes: [codeThemes.light, codeThemes.dark], langs: [...highlightedLanguages] });
  const loaded = new Set<string>(highlighter.getLoadedLanguages());
  return (code, lang) => {
    const name = aliases[lang] ?? lang;
    if (!loaded.has(name)) return plainTokens(code);
    // No time limit per line: shiki's default (500 ms) cuts a line short on a loaded machine and
    // colours the rest of it as whatever scope was open, and the build cache would keep that.
    const { tokens } = highlighter.codeToTokens(code, { lang: name as BundledLanguage, themes: codeThemes, defaultColor: "light", tokenizeTimeLimit: 0 });
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
  const highlighter = await createHighlighter({ themes: [workerData.themes.light, workerData.themes.dark], langs: workerData.langs });
  const loaded = new Set(highlighter.getLoadedLanguages());
  const lines = workerData.pieces.map(({ code, lang }) => {
    const name = workerData.aliases[lang] ?? lang;
    if (!loaded.has(name)) return null;
    const { tokens } = highlighter.codeToTokens(code, { lang: name, themes: workerData.themes, defaultColor: "light", tokenizeTimeLimit: 0 });
    return tokens.map((line) => line.map((t) => ({ content: t.content, offset: t.offset, color: t.color, htmlStyle: t.htmlStyle, fontStyle: t.fontStyle })));
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
  const worker = new Worker(workerScript, { eval: true, workerData: { shiki, themes: codeThemes, langs: [...highlightedLanguages], aliases, pieces } });
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
