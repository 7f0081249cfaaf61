// @ts-check
/**
 * Compiles the toolchain's CLIs (`tools/tangle.ts`, `verify.ts`, `docs.ts`) to JavaScript, so a
 * run starts without transforming TypeScript. `tools/run.js` calls it when its build is missing
 * or older than the sources; `npm ci` calls it through `prepare`. Plain JavaScript: it must run
 * before anything is compiled.
 *
 * The output is one folder (see `tools/run.js` for where): each CLI an ES module, their shared
 * code and their dynamic imports as chunks beside them (`splitting`), packages left to
 * `node_modules`, and a source map per file that points at `tools/**\/*.ts`. Two rewrites:
 *
 * - `import.meta.url` in a source file becomes that source file's own URL, so code that finds
 *   files beside itself (the docs' assets) or resolves packages from itself works as under tsx.
 * - `tools/lib/remark.ts`, the remark stack, is compiled apart into `remark.cjs` (CommonJS, the
 *   packages inlined), and the CLIs import a stand-in that `require`s it on the first call.
 *   Scanning is synchronous all the way up to `runTangle`, so a dynamic `import()` cannot stand
 *   there; a CommonJS `require` can, on every Node this project supports (remark is ESM-only).
 *   A tangle whose documents the fast scanner reads never loads it.
 */
import { build } from "esbuild";
import { readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The folder holding this file: `tools/`. */
const tools = dirname(fileURLToPath(import.meta.url));

/** The module loaded only when the fast scanner defers to remark. */
const remarkModule = join(tools, "lib", "remark.ts");

/** File name of the compiled remark stack, beside the CLIs. */
const remarkFile = "remark.cjs";

const common = /** @type {const} */ ({ bundle: true, platform: "node", target: "node20", sourcemap: true, sourcesContent: false, logLevel: "error" });

/** @type {import("esbuild").Plugin} */
const ownImportMetaUrl = {
  name: "own-import-meta-url",
  setup(b) {
    b.onLoad({ filter: /\.ts$/, namespace: "file" }, (args) => {
      const text = readFileSync(args.path, "utf8");
      return { contents: text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)), loader: "ts" };
    });
  },
};

/**
 * Replaces `tools/lib/remark.ts` in the CLIs with a stand-in exporting the same functions, each
 * loading `remark.cjs` on its first call.
 * @param {readonly string[]} names the functions `remark.ts` exports
 * @returns {import("esbuild").Plugin}
 */
function lazyRemark(names) {
  return {
    name: "lazy-remark",
    setup(b) {
      b.onResolve({ filter: /\/remark\.ts$/ }, (args) => (join(args.resolveDir, args.path) === remarkModule ? { path: remarkModule, namespace: "lazy-remark" } : undefined));
      b.onLoad({ filter: /.*/, namespace: "lazy-remark" }, () => ({
        contents: [
          `import { createRequire } from "node:module";`,
          `let loaded;`,
          `const load = () => (loaded ??= createRequire(import.meta.url)(${JSON.stringify(`./${remarkFile}`)}));`,
          ...names.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
        ].join("\n"),
        loader: "js",
      }));
    },
  };
}

/**
 * Builds the CLIs `tools/NAME.ts` for each of `names` into `outDir` (created whole or not at all: the files are written to a
 * temporary folder renamed into place; when another process finished the same build first, its
 * folder is kept). Throws when esbuild reports an error (printed on stderr).
 * @param {string} outDir
 * @param {readonly string[]} names
 */
export async function buildTools(outDir, names) {
  const temporary = `${outDir}.tmp-${process.pid}`;
  rmSync(temporary, { recursive: true, force: true });
  try {
    const probe = await build({ entryPoints: [remarkModule], bundle: false, format: "esm", write: false, metafile: true, outdir: temporary, logLevel: "error" });
    const exported = Object.values(probe.metafile.outputs).flatMap((output) => output.exports);
    await build({ ...common, entryPoints: [remarkModule], format: "cjs", outfile: join(temporary, remarkFile), plugins: [ownImportMetaUrl] });
    await build({
      ...common,
      entryPoints: Object.fromEntries(names.map((name) => [name, join(tools, `${name}.ts`)])),
      format: "esm",
      splitting: true,
      packages: "external",
      outdir: temporary,
      // Chunks beside the entries, so the stand-in finds `remark.cjs` at `./` from any of them.
      chunkNames: "chunk-[hash]",
      plugins: [ownImportMetaUrl, lazyRemark(exported)],
    });
    renameSync(temporary, outDir);
  } catch (caught) {
    rmSync(temporary, { recursive: true, force: true });
    const code = /** @type {NodeJS.ErrnoException} */ (caught).code;
    // Another process renamed the same build into place first: use it.
    if (code === "ENOTEMPTY" || code === "EEXIST") return;
    throw caught;
  }
}
