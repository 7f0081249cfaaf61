#!/usr/bin/env node
// @ts-check
/**
 * The toolchain's launcher, what `npm run tangle|verify|docs|dev|mutate|stitch|lsp` run: `node tools/run.cjs TOOL [ARGS]`
 * starts the compiled `tools/TOOL.ts` with ARGS. `node tools/run.cjs --build` only builds
 * (`npm ci` runs it as `prepare`). CommonJS, like the tangle and verify it starts: Node loads it
 * faster than an ES module.
 *
 * The compiled code lives in `.cache/tools/KEY/` (see `tools/build.js`), where KEY is a digest of
 * the path, size and modification time of every file under `tools/` and of npm's record of
 * `node_modules`. So an edit to `tools/**\/*.ts` (or an install) changes KEY, and the next run
 * builds before it starts: the build can be missing, never stale. Computing KEY costs one listing
 * per folder and a `stat` per file. Builds older than ten minutes under other keys are removed
 * after a build.
 *
 * A stack trace names `tools/**\/*.ts` lines: each compiled file has a source map, read only
 * when a stack is formatted (see `tools/stack-map.cjs`).
 */
"use strict";
const { createHash } = require("node:crypto");
const { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require("node:fs");
const { Module, createRequire } = require("node:module");
const { dirname, join } = require("node:path");
const { Script } = require("node:vm");
const { pathToFileURL } = require("node:url");
const { mapStackTraces } = require("./stack-map.cjs");

const tools = __dirname;
const root = dirname(tools);
const builds = join(root, ".cache", "tools");

/** Each CLI's compiled file: `.cjs` CommonJS, `.js` an ES module (see `tools/build.js`). */
const clis = { tangle: "tangle.cjs", verify: "verify.cjs", docs: "docs.js", dev: "dev.js", mutate: "mutate.js", stitch: "stitch.js", lsp: "lsp.js" };

/** The digest of the sources a build is made from (see above). */
function sourceKey() {
  /** @type {string[]} */
  const parts = [];
  // A walk by hand: Node's recursive listing costs a cold process several times more.
  const walk = (/** @type {string} */ folder, /** @type {string} */ prefix) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`);
      else if (entry.isFile()) {
        const stat = statSync(path);
        parts.push(`${prefix}${entry.name}\0${stat.size}\0${stat.mtimeMs}`);
      }
    }
  };
  walk(tools, "");
  const installed = statSync(join(root, "node_modules", ".package-lock.json"), { throwIfNoEntry: false });
  parts.sort().push(`node_modules\0${installed?.size ?? 0}\0${installed?.mtimeMs ?? 0}`, process.version);
  return createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 16);
}

/** The folder of the current build, building it first when it is missing. */
async function currentBuild() {
  const key = sourceKey();
  const dir = join(builds, key);
  if (existsSync(join(dir, clis.tangle))) return dir;
  /** @type {typeof import("./build.js")} */
  const { buildTools } = await import("./build.js");
  await buildTools(dir, clis);
  const old = Date.now() - 10 * 60_000;
  for (const name of readdirSync(builds)) {
    const other = join(builds, name);
    if (name !== key && (statSync(other, { throwIfNoEntry: false })?.mtimeMs ?? old) < old) rmSync(other, { recursive: true, force: true });
  }
  return dir;
}

/**
 * Runs the CommonJS file `file` as `require` would, through a V8 code cache beside it
 * (`FILE.cache`): a fresh process then skips parsing and compiling the functions an earlier run
 * compiled, 3–4 ms of a full tangle. The first run without a usable cache writes one as it
 * exits (a temporary file renamed into place; nothing when the folder is read-only). V8 refuses
 * a cache made from other code or by another Node, and the run that finds it refused writes anew.
 * @param {string} file
 */
function runCached(file) {
  const cacheFile = `${file}.cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(Module.wrap(readFileSync(file, "utf8")), { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected === true) {
    process.on("exit", () => {
      const temporary = `${cacheFile}.tmp-${process.pid}`;
      try {
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cacheFile);
      } catch {
        rmSync(temporary, { force: true });
      }
    });
  }
  const module = { exports: {}, id: file, filename: file, loaded: false };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
}

/** True when `caught` says esbuild (a dev dependency) is not installed. */
function noEsbuild(/** @type {unknown} */ caught) {
  const error = /** @type {NodeJS.ErrnoException | undefined} */ (caught);
  return error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("'esbuild'");
}

async function main() {
  const tool = process.argv[2] ?? "";
  if (tool === "--build") {
    try {
      await currentBuild();
    } catch (caught) {
      // An install without dev dependencies (the agent alone) has no toolchain to build.
      if (!noEsbuild(caught)) throw caught;
      process.stderr.write("run: esbuild is not installed, so the toolchain was not built (it needs the dev dependencies)\n");
    }
    return;
  }
  const file = Object.hasOwn(clis, tool) ? clis[/** @type {keyof typeof clis} */ (tool)] : undefined;
  if (file === undefined) {
    process.stderr.write(`run: unknown tool \`${tool}\`\n  hint: node tools/run.cjs ${Object.keys(clis).join("|")} [options], or --build\n`);
    process.exitCode = 1;
    return;
  }
  let dir;
  try {
    dir = await currentBuild();
  } catch (caught) {
    if (Array.isArray(/** @type {{ errors?: unknown }} */ (caught).errors)) {
      process.stderr.write("run: the toolchain's sources in tools/ do not compile (esbuild's errors are above)\n");
    } else if (noEsbuild(caught)) {
      process.stderr.write("run: esbuild is not installed, and the toolchain needs it to build\n  hint: run `npm ci` (with the dev dependencies)\n");
    } else throw caught;
    process.exit(1);
  }
  // The tool reads its options from process.argv as if it had been started itself.
  process.argv.splice(2, 1);
  mapStackTraces(dir);
  if (file.endsWith(".cjs")) runCached(join(dir, file));
  else await import(pathToFileURL(join(dir, file)).href);
}

void main();
