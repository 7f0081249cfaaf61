#!/usr/bin/env node
// @ts-check
/**
 * The toolchain's launcher, what `npm run tangle|verify|docs` run: `node tools/run.js TOOL [ARGS]`
 * starts the compiled `tools/TOOL.ts` with ARGS. `node tools/run.js --build` only builds
 * (`npm ci` runs it as `prepare`).
 *
 * The compiled code lives in `.cache/tools/KEY/`, where KEY is a digest of the path, size and
 * modification time of every file under `tools/` and of npm's record of `node_modules`. So an
 * edit to `tools/**\/*.ts` (or an install) changes KEY, and the next run builds before it starts:
 * the build can be missing, never stale. Computing KEY costs one listing and a `stat` per file.
 * Builds older than ten minutes under other keys are removed after a build.
 *
 * Source maps are on, so a stack trace names `tools/**\/*.ts` lines.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const tools = dirname(fileURLToPath(import.meta.url));
const root = dirname(tools);
const builds = join(root, ".cache", "tools");
const names = ["tangle", "verify", "docs"];

/** The digest of the sources a build is made from (see above). */
function sourceKey() {
  const parts = [];
  for (const entry of readdirSync(tools, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    const stat = statSync(full);
    parts.push(`${relative(tools, full)}\0${stat.size}\0${stat.mtimeMs}`);
  }
  const installed = statSync(join(root, "node_modules", ".package-lock.json"), { throwIfNoEntry: false });
  parts.sort().push(`node_modules\0${installed?.size ?? 0}\0${installed?.mtimeMs ?? 0}`, process.version);
  return createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 16);
}

/** The folder of the current build, building it first when it is missing. */
async function currentBuild() {
  const key = sourceKey();
  const dir = join(builds, key);
  if (existsSync(join(dir, "tangle.js"))) return dir;
  const { buildTools } = await import("./build.js");
  await buildTools(dir, names);
  const old = Date.now() - 10 * 60_000;
  for (const name of readdirSync(builds)) {
    const other = join(builds, name);
    if (name !== key && (statSync(other, { throwIfNoEntry: false })?.mtimeMs ?? old) < old) rmSync(other, { recursive: true, force: true });
  }
  return dir;
}

/** True when `caught` says esbuild (a dev dependency) is not installed. */
function noEsbuild(caught) {
  const error = /** @type {NodeJS.ErrnoException} */ (caught);
  return error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("'esbuild'");
}

const tool = process.argv[2] ?? "";
if (tool === "--build") {
  try {
    await currentBuild();
  } catch (caught) {
    // An install without dev dependencies (the agent alone) has no toolchain to build.
    if (!noEsbuild(caught)) throw caught;
    process.stderr.write("run: esbuild is not installed, so the toolchain was not built (it needs the dev dependencies)\n");
  }
} else if (!names.includes(tool)) {
  process.stderr.write(`run: unknown tool \`${tool}\`\n  hint: node tools/run.js ${names.join("|")} [options], or --build\n`);
  process.exitCode = 1;
} else {
  let dir;
  try {
    dir = await currentBuild();
  } catch (caught) {
    if (Array.isArray(/** @type {{ errors?: unknown }} */ (caught).errors)) {
      process.stderr.write(`run: the toolchain's sources in tools/ do not compile (esbuild's errors are above)\n`);
    } else if (noEsbuild(caught)) {
      process.stderr.write("run: esbuild is not installed, and the toolchain needs it to build\n  hint: run `npm ci` (with the dev dependencies)\n");
    } else throw caught;
    process.exit(1);
  }
  // The tool reads its options from process.argv as if it had been started itself.
  process.argv.splice(2, 1);
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(join(dir, `${tool}.js`)).href);
}
