/**
 * The search index, built at build time: headings, prose sections and definitions, serialized
 * with MiniSearch so the browser only loads it. Pure.
 */
import MiniSearch from "minisearch";

/** One searchable thing. */
export interface SearchEntry {
  readonly id: number;
  readonly kind: "definition" | "heading" | "prose";
  /** What a hit shows: a definition's name, a heading's text. */
  readonly title: string;
  /** The body searched besides the title. */
  readonly text: string;
  /** Site path with anchor. */
  readonly href: string;
  /** The chapter it is in. */
  readonly chapter: string;
  /** What a hit shows under its title: the start of the prose, or a definition's block. */
  readonly snippet?: string;
}

/** The options the index is built with; the browser must load it with the same ones. */
export const searchOptions = {
  fields: ["title", "text"],
  storeFields: ["kind", "title", "href", "chapter", "snippet"],
} as const;

/** Builds the index and returns it as JSON text for `MiniSearch.loadJSON`. */
export function buildSearchIndex(entries: readonly SearchEntry[]): string {
  const index = new MiniSearch<SearchEntry>({ fields: [...searchOptions.fields], storeFields: [...searchOptions.storeFields] });
  index.addAll([...entries]);
  return JSON.stringify(index);
}
