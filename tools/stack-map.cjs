// @ts-check
/**
 * Stack traces through compiled code, mapped back to its sources: `tools/run.cjs` uses it for
 * the toolchain's builds, `bin/passepartout.js` for the agent's bundle.
 */
"use strict";
const { readFileSync } = require("node:fs");
const { SourceMap } = require("node:module");
const { dirname, join, resolve } = require("node:path");
const { pathToFileURL } = require("node:url");

/**
 * Maps the frames of stack traces that fall in the compiled files of `dir` to the sources their
 * maps name (the toolchain's TypeScript; the agent's Markdown), as `node --enable-source-maps` would. Node reads and indexes every map as its
 * file loads (in Node 20 it must be on before then), which costs a no-change tangle about a sixth
 * of its instructions; here a map is read only when a stack that passes through its file is formatted.
 * @param {string} dir
 */
function mapStackTraces(dir) {
  const folder = `${dir}/`;
  const folderUrl = pathToFileURL(folder).href;
  /** @type {Map<string, SourceMap | undefined>} */
  const maps = new Map();
  const mapOf = (/** @type {string} */ file) => {
    if (!maps.has(file)) {
      try {
        maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8"))));
      } catch {
        maps.set(file, undefined);
      }
    }
    return maps.get(file);
  };
  /** One frame as V8 prints it, its location mapped when a map knows it. */
  const frame = (/** @type {NodeJS.CallSite} */ site) => {
    const text = `${site}`;
    const name = site.getFileName();
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    if (name === undefined || name === null || line === null || column === null) return text;
    // CommonJS frames name a path; ES module frames a file URL.
    const file = name.startsWith(folder) ? name : name.startsWith(folderUrl) ? join(folder, decodeURIComponent(name.slice(folderUrl.length))) : undefined;
    if (file === undefined) return text;
    const entry = mapOf(file)?.findEntry(line - 1, column - 1);
    if (entry === undefined || !("originalSource" in entry)) return text;
    const source = resolve(dirname(file), entry.originalSource);
    return text.replace(`${name}:${line}:${column}`, `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
  };
  Error.prepareStackTrace = (error, sites) => {
    let head;
    try {
      head = String(error);
    } catch {
      head = "Error";
    }
    return [head, ...sites.map((site) => `    at ${frame(site)}`)].join("\n");
  };
}

module.exports = { mapStackTraces };
