#!/usr/bin/env node
// The `passepartout` command (and `npm start`): runs generated/cli.ts (tangled from literate/cli.md)
// in this process, so signals reach the CLI's handlers directly. runEntry exits with main's code.
//
// It runs generated/ bundled by esbuild into .cache/agent/KEY/, where KEY is a digest of the path, size and
// modification time of every generated file (and of the bundler and npm's record of node_modules): a re-tangle
// makes a new KEY, and the first start after it bundles first. So a start pays no TypeScript transform, and stack
// traces still name literate/*.md lines (tools/stack-map.cjs). Where no bundle can be made (esbuild not installed,
// a read-only install), it runs the TypeScript through tsx.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const generated = join(root, "generated");

/** The digest the bundle's folder is named by (see above). */
function bundleKey() {
  const parts = [];
  for (const name of readdirSync(generated).sort()) {
    const stat = statSync(join(generated, name));
    parts.push(`${name}\0${stat.size}\0${stat.mtimeMs}`);
  }
  for (const file of [join(root, "tools", "build.js"), join(root, "node_modules", ".package-lock.json")]) {
    const stat = statSync(file, { throwIfNoEntry: false });
    parts.push(`${file}\0${stat?.size ?? 0}\0${stat?.mtimeMs ?? 0}`);
  }
  // The bundle holds each module's own URL (tools/build.js), so a checkout moved elsewhere bundles anew.
  parts.push(root, process.version);
  return createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 16);
}

/**
 * The bundle's folder, bundling first when it is missing; undefined when it cannot be made (no
 * esbuild, a read-only install, code esbuild refuses), and tsx is to run the TypeScript instead,
 * reporting any error in it as it would have anyway.
 */
async function agentBundle() {
  const dir = join(root, ".cache", "agent", bundleKey());
  if (existsSync(join(dir, "cli.js"))) return dir;
  try {
    const { buildAgent } = await import("../tools/build.js");
    await buildAgent(dir, join(generated, "cli.ts"), { logLevel: "silent" });
  } catch {
    return undefined;
  }
  // Bundles of other generated trees are removed once they are ten minutes old.
  const old = Date.now() - 10 * 60_000;
  for (const name of readdirSync(dirname(dir))) {
    const other = join(dirname(dir), name);
    if (other !== dir && (statSync(other, { throwIfNoEntry: false })?.mtimeMs ?? old) < old) rmSync(other, { recursive: true, force: true });
  }
  return dir;
}

const dir = await agentBundle();
let runEntry;
if (dir === undefined) {
  const { register } = await import("tsx/esm/api");
  register();
  ({ runEntry } = await import("../generated/cli.ts"));
} else {
  createRequire(import.meta.url)("../tools/stack-map.cjs").mapStackTraces(dir);
  ({ runEntry } = await import(pathToFileURL(join(dir, "cli.js")).href));
}
await runEntry(process.argv.slice(2));
