/**
 * Syntax highlighting with shiki, grammars and theme loaded from `node_modules` (no network).
 * One highlighter per build; tokens come back as `CodeToken`s for `code-html.ts`.
 */
import { createHighlighter, type BundledLanguage, type Highlighter } from "shiki";
import { plainTokens, type CodeToken } from "./code-html.ts";

/** The languages the site highlights; anything else renders as plain text. */
export const highlightedLanguages: readonly BundledLanguage[] = ["typescript", "javascript", "json", "yaml", "shellscript", "markdown", "diff"];

const aliases: Readonly<Record<string, BundledLanguage>> = { ts: "typescript", js: "javascript", sh: "shellscript", bash: "shellscript", shell: "shellscript", yml: "yaml", md: "markdown" };

/** The theme code is highlighted with. */
export const codeTheme = "github-light";

/** Tokenizes code into lines of `CodeToken`s. */
export type Tokenize = (code: string, lang: string) => CodeToken[][];

/** Creates the build's highlighter. */
export async function createTokenizer(): Promise<Tokenize> {
  const highlighter: Highlighter = await createHighlighter({ themes: [codeTheme], langs: [...highlightedLanguages] });
  const loaded = new Set<string>(highlighter.getLoadedLanguages());
  return (code, lang) => {
    const name = aliases[lang] ?? lang;
    if (!loaded.has(name)) return plainTokens(code);
    const lineStarts: number[] = [0];
    for (let i = 0; i < code.length; i++) if (code[i] === "\n") lineStarts.push(i + 1);
    // No time limit per line: shiki's default (500 ms) cuts a line short on a loaded machine and
    // colours the rest of it as whatever scope was open, and the build cache would keep that.
    const { tokens } = highlighter.codeToTokens(code, { lang: name as BundledLanguage, theme: codeTheme, tokenizeTimeLimit: 0 });
    return tokens.map((line, i) =>
      line.map((t) => ({
        content: t.content,
        column: t.offset - (lineStarts[i] ?? 0),
        ...(t.color === undefined ? {} : { color: t.color }),
        ...(t.fontStyle === undefined || t.fontStyle <= 0 ? {} : { fontStyle: t.fontStyle }),
      })),
    );
  };
}
