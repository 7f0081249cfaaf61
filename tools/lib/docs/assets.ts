/**
 * The site's static assets: the style sheet and script written here, and the two browser
 * libraries copied out of `node_modules` (mermaid, MiniSearch). No CDN, no web fonts.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { searchOptions, titleSearchOptions, type SearchIndexes } from "./search.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** Resolves a file inside an installed package (whose `exports` may not list `package.json`). */
function packageFile(pkg: string, file: string): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(pkg));
  const isRoot = (d: string): boolean => existsSync(join(d, "package.json")) && (JSON.parse(readFileSync(join(d, "package.json"), "utf8")) as { name?: string }).name === pkg;
  while (!isRoot(dir)) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the folder of the package \`${pkg}\``);
    dir = parent;
  }
  return join(dir, file);
}

/** Writes the assets and the two search indexes into `${site}/assets`. */
export function writeAssets(site: string, search: SearchIndexes): void {
  const dir = join(site, "assets");
  mkdirSync(dir, { recursive: true });
  for (const name of ["site.css", "site.js", "search.js", "favicon.svg"]) copyFileSync(join(here, "assets", name), join(dir, name));
  copyFileSync(packageFile("mermaid", "dist/mermaid.min.js"), join(dir, "mermaid.min.js"));
  copyFileSync(packageFile("minisearch", "dist/umd/index.js"), join(dir, "minisearch.js"));
  writeSearchIndex(site, search);
}

/** Writes the site's search indexes, `assets/search-index.js` and `assets/search-titles.js`. */
export function writeSearchIndex(site: string, search: SearchIndexes): void {
  const dir = join(site, "assets");
  // A script rather than JSON, so search works from file:// as well as over HTTP.
  writeFileSync(join(dir, "search-index.js"), `window.__searchOptions = ${JSON.stringify(searchOptions)};\nwindow.__searchIndex = ${JSON.stringify(search.full)};\n`);
  writeFileSync(join(dir, "search-titles.js"), `window.__searchTitleOptions = ${JSON.stringify(titleSearchOptions)};\nwindow.__searchTitles = ${JSON.stringify(search.titles)};\n`);
}
