/**
 * The search index, built at build time: chapters, sections (a heading with the prose under it),
 * definitions, error messages and API pages, serialized with MiniSearch so the browser only loads
 * it. Pure.
 */
import MiniSearch from "minisearch";

/** One searchable thing. */
export interface SearchEntry {
  readonly id: number;
  readonly kind: "chapter" | "section" | "definition" | "error" | "api";
  /** What a hit shows: a chapter's title, a heading's text, a definition's name, an error's message. */
  readonly title: string;
  /** The body searched besides the title. */
  readonly text: string;
  /** Site path with anchor. */
  readonly href: string;
  /** The chapter it is in (for an error, what raises it; for an API page, "API reference"). */
  readonly chapter: string;
  /** What a hit shows under its title: the start of the prose, or a definition's block. */
  readonly snippet?: string;
}

/** The options the full index is built with; the browser must load it with the same ones. */
export const searchOptions = {
  fields: ["title", "text"],
  storeFields: ["kind", "title", "href", "chapter", "snippet"],
} as const;

/** The options of the titles' index: titles alone, no snippets. */
export const titleSearchOptions = {
  fields: ["title"],
  storeFields: ["kind", "title", "href", "chapter"],
} as const;

/**
 * The two indexes, as JSON text for `MiniSearch.loadJSON`: the titles' (a fifth of the bytes),
 * which the browser fetches with the page so search answers early on a slow network, and the
 * full one (titles, prose, snippets), which replaces it once it has arrived.
 */
export interface SearchIndexes {
  readonly titles: string;
  readonly full: string;
}

/** Builds both indexes of `entries`. */
export function buildSearchIndexes(entries: readonly SearchEntry[]): SearchIndexes {
  const build = (options: { readonly fields: readonly string[]; readonly storeFields: readonly string[] }): string => {
    const index = new MiniSearch<SearchEntry>({ fields: [...options.fields], storeFields: [...options.storeFields] });
    index.addAll([...entries]);
    return JSON.stringify(index);
  };
  return { titles: build(titleSearchOptions), full: build(searchOptions) };
}
