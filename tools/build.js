// @ts-check
/**
 * Compiles the toolchain's CLIs (`tools/tangle.ts`, `verify.ts`, `docs.ts`, `dev.ts`, `mutate.ts`, `stitch.ts`, `lsp.ts`) to JavaScript, so a
 * run starts without transforming TypeScript. `tools/run.cjs` calls it when its build is missing;
 * `npm ci` calls it through `prepare`. Plain JavaScript: it must run before anything is compiled.
 *
 * The output is one folder (see `tools/run.cjs` for where), each file with a source map that
 * points at `tools/**\/*.ts`:
 *
 * - `tangle.cjs` and `verify.cjs` (as `tools/run.cjs` names them): one CommonJS file each, packages left to `node_modules`.
 *   CommonJS because Node loads one such file several milliseconds faster than the same code as
 *   ES modules, a good part of a no-change tangle; their packages are all loadable by `require`.
 * - `docs.js`, `dev.js`, `mutate.js`, `lsp.js` and their chunks (the language server starts `lsp.js` again as its judge's worker): ES modules (`splitting`, so each loads only what it uses), since
 *   the docs stack has packages that are ES modules only.
 * - `remark.cjs`: `tools/lib/core/remark.ts`, the remark stack, packages inlined, as CommonJS. Each
 *   CLI imports a stand-in instead that `require`s it on the first call: scanning is synchronous
 *   all the way up to `runTangle`, so a dynamic `import()` cannot stand there; a `require` can,
 *   on every Node this project supports (remark is ES modules only). A tangle whose documents
 *   the fast scanner reads never loads it.
 *
 * In the ES module builds, the CommonJS packages `requiredPackages` names are loaded with `require`
 * (see `requireCommonJs`).
 *
 * `import.meta.url` in a source file becomes that source file's own URL, so code that finds files
 * beside itself (the docs' assets) or resolves packages from itself works as it does under tsx.
 */
import { build } from "esbuild";
import { readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The folder holding this file: `tools/`. */
const tools = dirname(fileURLToPath(import.meta.url));

/** The module loaded only when the fast scanner defers to remark. */
const remarkModule = join(tools, "lib", "core", "remark.ts");

/** File name of the compiled remark stack, beside the CLIs. */
const remarkFile = "./remark.cjs";

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
 * Replaces `tools/lib/core/remark.ts` with a stand-in exporting the same functions, each loading
 * `remark.cjs` on its first call.
 * @param {readonly string[]} names the functions `remark.ts` exports
 * @param {"cjs" | "esm"} format the format of the build the stand-in goes into
 * @returns {import("esbuild").Plugin}
 */
function lazyRemark(names, format) {
  const load =
    format === "cjs"
      ? [`const load = () => (loaded ??= require(${JSON.stringify(remarkFile)}));`]
      : [`import { createRequire } from "node:module";`, `const load = () => (loaded ??= createRequire(import.meta.url)(${JSON.stringify(remarkFile)}));`];
  return {
    name: "lazy-remark",
    setup(b) {
      b.onResolve({ filter: /\/remark\.ts$/ }, (args) => (join(args.resolveDir, args.path) === remarkModule ? { path: remarkModule, namespace: "lazy-remark" } : undefined));
      b.onLoad({ filter: /.*/, namespace: "lazy-remark" }, () => ({
        contents: [`let loaded;`, ...load, ...names.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`)].join("\n"),
        loader: "js",
      }));
    },
  };
}

/**
 * CommonJS packages the ES module builds load with `require` instead of `import`: Node imports a
 * CommonJS file into an ES module only after guessing its format and scanning all of its text for
 * the names it exports, ~0.4 s for TypeScript's 9 MB on each start of the language server (and
 * again in its judge's worker), where `require` only compiles it.
 */
const requiredPackages = ["typescript", "vscode-languageserver/node"];

/**
 * Replaces an `import` of each package of `names` with a module that `require`s it (from the
 * build's own folder, through `createRequire`) and exports its default and each of its names, as
 * Node's import of it would.
 * @param {readonly string[]} names
 * @returns {import("esbuild").Plugin}
 */
function requireCommonJs(names) {
  const load = createRequire(import.meta.url);
  const filter = new RegExp(`^(${names.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|")})$`);
  return {
    name: "require-commonjs",
    setup(b) {
      b.onResolve({ filter }, (args) => (args.kind === "import-statement" ? { path: args.path, namespace: "require-commonjs" } : undefined));
      b.onLoad({ filter: /.*/, namespace: "require-commonjs" }, (args) => {
        const exported = Object.keys(load(args.path)).filter((key) => /^[A-Za-z_$][\w$]*$/.test(key) && key !== "default");
        return {
          contents: [`import { createRequire } from "node:module";`, `const loaded = createRequire(import.meta.url)(${JSON.stringify(args.path)});`, `export default loaded;`, `export const { ${exported.join(", ")} } = loaded;`].join("\n"),
          loader: "js",
        };
      });
    },
  };
}

/**
 * Builds each CLI `tools/NAME.ts` into `outDir` as the file `clis` names for it (`NAME.cjs`:
 * CommonJS, `NAME.js`: ES modules). Throws when esbuild reports an error (printed on stderr).
 * @param {string} outDir
 * @param {Readonly<Record<string, string>>} clis
 */
export async function buildTools(outDir, clis) {
  await buildInto(outDir, async (temporary) => {
    const probe = await build({ entryPoints: [remarkModule], bundle: false, format: "esm", write: false, metafile: true, outdir: temporary, logLevel: "error" });
    const exported = Object.values(probe.metafile.outputs).flatMap((output) => output.exports);
    const builds = [build({ ...common, entryPoints: [remarkModule], format: "cjs", outfile: join(temporary, remarkFile), plugins: [ownImportMetaUrl] })];
    const modules = [];
    for (const [name, file] of Object.entries(clis)) {
      if (!file.endsWith(".cjs")) {
        modules.push(name);
        continue;
      }
      const plugins = [ownImportMetaUrl, lazyRemark(exported, "cjs")];
      builds.push(build({ ...common, entryPoints: [join(tools, `${name}.ts`)], format: "cjs", packages: "external", external: [remarkFile], outfile: join(temporary, file), plugins }));
    }
    if (modules.length > 0) {
      const entryPoints = Object.fromEntries(modules.map((name) => [name, join(tools, `${name}.ts`)]));
      // Chunks beside the entries, so the stand-in finds `remark.cjs` at `./` from any of them.
      builds.push(build({ ...common, entryPoints, format: "esm", splitting: true, packages: "external", outdir: temporary, chunkNames: "chunk-[hash]", plugins: [ownImportMetaUrl, lazyRemark(exported, "esm"), requireCommonJs(requiredPackages)] }));
    }
    await Promise.all(builds);
  });
}

/**
 * Bundles the agent's command, `generated/cli.ts`, into `outDir/cli.js` (an ES module, packages
 * left to `node_modules`), for `bin/passepartout.js`. Its source map goes through the maps the
 * generated files carry, to the `literate/*.md` lines.
 * @param {string} outDir
 * @param {string} entry the path of `generated/cli.ts`
 * @param {{ readonly logLevel?: "silent" | "error" }} [options]
 */
export async function buildAgent(outDir, entry, options = {}) {
  await buildInto(outDir, async (temporary) => {
    // Each module keeps its own `import.meta.url` (the skills the package ships are found beside generated/).
    await build({ ...common, ...options, entryPoints: [entry], format: "esm", packages: "external", outfile: join(temporary, "cli.js"), plugins: [ownImportMetaUrl] });
  });
}

/**
 * Runs `make` on a temporary folder and renames it to `outDir`, so `outDir` is made whole or not
 * at all; when another process finished the same build first, its folder is kept.
 * @param {string} outDir
 * @param {(temporary: string) => Promise<void>} make
 */
async function buildInto(outDir, make) {
  const temporary = `${outDir}.tmp-${process.pid}`;
  rmSync(temporary, { recursive: true, force: true });
  try {
    await make(temporary);
    renameSync(temporary, outDir);
  } catch (caught) {
    rmSync(temporary, { recursive: true, force: true });
    const code = /** @type {NodeJS.ErrnoException} */ (caught).code;
    // Another process renamed the same build into place first: use it.
    if (code === "ENOTEMPTY" || code === "EEXIST") return;
    throw caught;
  }
}
