/**
 * The site's static assets: the style sheet and script written here, and the two browser
 * libraries copied out of `node_modules` (mermaid, MiniSearch). No CDN, no web fonts.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { searchOptions, titleSearchOptions, type SearchIndexes } from "./search.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** Writes the assets and the two search indexes into `${site}/assets`. */
export function writeAssets(site: string, search: SearchIndexes): void {
  const dir = join(site, "assets");
  mkdirSync(dir, { recursive: true });
  for (const name of ["site.css", "site.js", "search.js", "favicon.svg"]) copyFileSync(join(here, "assets", name), join(dir, name));
  const require = createRequire(import.meta.url);
  copyFileSync(require.resolve("mermaid/dist/mermaid.min.js"), join(dir, "mermaid.min.js"));
  // MiniSearch's `exports` name no browser build: it lies beside the CommonJS one.
  copyFileSync(join(dirname(require.resolve("minisearch")), "..", "umd", "index.js"), join(dir, "minisearch.js"));
  writeSearchIndex(site, search);
}

/** Writes the site's search indexes, `assets/search-index.js` and `assets/search-titles.js`. */
export function writeSearchIndex(site: string, search: SearchIndexes): void {
  const dir = join(site, "assets");
  // A script rather than JSON, so search works from file:// as well as over HTTP.
  writeFileSync(join(dir, "search-index.js"), `window.__searchOptions = ${JSON.stringify(searchOptions)};\nwindow.__searchIndex = ${JSON.stringify(search.full)};\n`);
  writeFileSync(join(dir, "search-titles.js"), `window.__searchTitleOptions = ${JSON.stringify(titleSearchOptions)};\nwindow.__searchTitles = ${JSON.stringify(search.titles)};\n`);
}
