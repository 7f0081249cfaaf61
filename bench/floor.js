// @ts-check
/**
 * The floor of a tangle run as a process: `node bench/floor.js ROOT OUT` reads each
 * `ROOT/literate/*.md` and copies the lines between a ```ts fence and its closing fence into
 * `OUT/generated/<name>.ts` — the code a tangle writes for the bench corpus, without header,
 * provenance, source map, manifest, checks or atomic writes. Plain JavaScript, so Node runs it
 * with no transform: what a bare Node line scanner costs, start-up included.
 *
 * The same scanner as `floorTangle` in `bench/toolchain.ts`; the bench checks that both write
 * the same files before timing this one.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [root, outRoot] = process.argv.slice(2);
if (root === undefined || outRoot === undefined) {
  process.stderr.write("usage: node bench/floor.js ROOT OUT\n");
  process.exit(1);
}
const names = readdirSync(join(root, "literate"))
  .filter((name) => name.endsWith(".md"))
  .sort();
const outDir = join(outRoot, "generated");
mkdirSync(outDir, { recursive: true });
for (const name of names) {
  const text = readFileSync(join(root, "literate", name), "utf8");
  const code = [];
  let fence = "none";
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) {
      fence = fence !== "none" ? "none" : line.startsWith("```ts") ? "ts" : "other";
      continue;
    }
    if (fence === "ts") code.push(line);
  }
  writeFileSync(join(outDir, `${name.slice(0, -3)}.ts`), `${code.join("\n")}\n`);
}
