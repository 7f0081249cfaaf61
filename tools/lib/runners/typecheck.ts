/**
 * Rule 3, "compiles": one type-check of the whole project, never one per block; `typeCheck` once
 * (verify), or `IncrementalTypeChecker`, which stays warm between the checks of `npm run dev` so a
 * re-check after one save costs a fraction of a cold one.
 *
 * The native TypeScript 7 compiler (installed as the `tsgo` alias) is run directly, without
 * its npm launcher, on `tsconfig.json` with `--noEmit --pretty false`, and its diagnostics are
 * parsed from its output. When no native binary exists for this platform, the TypeScript
 * JavaScript API does the same check, slower.
 *
 * For dev, each native check is one `--incremental` run whose build information is kept in
 * `.cache/dev/`: it re-checks only the files an edit can affect. Measured on this project (2
 * loaded cores), a cold native check takes about 3 s, an incremental one after a one-block edit
 * about 1 s; the JavaScript API's builder, kept alive in this process, took 5–8 s for the same
 * edit, so it is only the fallback where no native binary exists.
 *
 * That fallback: a semantic-diagnostics builder program is rebuilt from the previous one on every check. The
 * compiler host keeps each parsed file until its modification time or size changes, so an edit
 * of one generated module re-parses that module alone (the standard library and `node_modules`
 * declarations are parsed once per process), and the builder re-checks only the files whose
 * meaning that edit can change. `tsconfig.json` is read again on every check, so a new
 * chapter's module joins the program.
 *
 * A dev check can be narrowed to the book: the tangled files and what they import, under the
 * project's compiler options (a configuration in `.cache/dev/` that extends `tsconfig.json` and
 * names the files). That is what a block's verdict depends on, and on this project it is 714
 * files instead of the whole project's 1,797 (the toolchain, its tests and the bench bring
 * TypeScript's, Stryker's and the editors' declarations): 0.45–0.6 s a check instead of
 * 0.9–1.2 s. `npm run verify` checks the whole project.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import ts from "typescript";
import type { CompilerDiagnostic, TypeCheckResult } from "../core/evidence.ts";
import { readIfExists, writeAtomically } from "../disk/io.ts";

/** Finds the native compiler binary shipped by the `tsgo` alias of `typescript@7`, if any. */
export function nativeCompilerPath(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const launcher = require.resolve("tsgo/package.json");
    const fromLauncher = createRequire(launcher);
    const pkg = fromLauncher.resolve(`@typescript/typescript-${process.platform}-${process.arch}/package.json`);
    const binary = join(dirname(pkg), "lib", process.platform === "win32" ? "tsc.exe" : "tsc");
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

const diagnosticLine = /^(.+?)\((\d+),(\d+)\): error TS(\d+): (.*)$/;
const globalLine = /^error TS(\d+): (.*)$/;

/** Parses `--pretty false` compiler output; continuation lines (indented) join their diagnostic. */
export function parseCompilerOutput(output: string): CompilerDiagnostic[] {
  const out: CompilerDiagnostic[] = [];
  for (const raw of output.split(/\r?\n/)) {
    if (raw.trim() === "") continue;
    const m = diagnosticLine.exec(raw);
    if (m !== null) {
      out.push({ file: (m[1] ?? "").split("\\").join("/"), line: Number(m[2]), column: Number(m[3]), code: Number(m[4]), message: m[5] ?? "" });
      continue;
    }
    const g = globalLine.exec(raw);
    if (g !== null) {
      out.push({ file: "", line: 0, column: 0, code: Number(g[1]), message: g[2] ?? "" });
      continue;
    }
    const last = out[out.length - 1];
    if (last !== undefined && /^\s/.test(raw)) out[out.length - 1] = { ...last, message: `${last.message} ${raw.trim()}` };
    else out.push({ file: "", line: 0, column: 0, code: 0, message: raw.trim() });
  }
  return out;
}

/** Type-checks the project at `root` once. */
export function typeCheck(root: string, options: { readonly compiler?: "native" | "javascript"; readonly project?: string } = {}): TypeCheckResult {
  const project = options.project ?? "tsconfig.json";
  const started = performance.now();
  const binary = options.compiler === "javascript" ? undefined : nativeCompilerPath();
  if (binary === undefined) return checkWithApi(root, project, undefined, started);
  const run = spawnSync(binary, ["-p", project, "--noEmit", "--pretty", "false"], { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (run.error !== undefined) throw run.error;
  return nativeResult(run.status, `${run.stdout}${run.stderr}`, started);
}

/** The native compiler's run as a result: its diagnostics, or an error when it failed without saying why. */
function nativeResult(status: number | null, output: string, started: number): TypeCheckResult {
  const diagnostics = parseCompilerOutput(output);
  if (status !== 0 && diagnostics.length === 0) throw new Error(`the TypeScript compiler exited with ${String(status)} and printed nothing`);
  return { compiler: "native", diagnostics, milliseconds: performance.now() - started };
}

/** What the JavaScript API keeps between dev's checks: the last builder program, and a host that caches parsed files. */
interface WarmApi {
  previous?: ts.SemanticDiagnosticsBuilderProgram;
  readonly host: (options: ts.CompilerOptions) => ts.CompilerHost;
}

/**
 * One check through the JavaScript API: the program `project` describes (the program `files`
 * start, under its options, when given), its configuration's errors first. The configuration is
 * parsed from its syntax tree rather than from plain JSON, so an error in an option keeps its
 * place in the file, as the native compiler reports it.
 */
function checkWithApi(root: string, project: string, files: readonly string[] | undefined, started: number, warm?: WarmApi): TypeCheckResult {
  const configPath = join(root, project);
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const found: ts.Diagnostic[] = read.error === undefined ? [] : [read.error];
  if (ts.sys.fileExists(configPath)) {
    const parsed = ts.parseJsonSourceFileConfigFileContent(ts.readJsonConfigFile(configPath, (p) => ts.sys.readFile(p)), ts.sys, dirname(configPath), undefined, configPath);
    const options: ts.CompilerOptions = { ...parsed.options, noEmit: true };
    const roots = files === undefined ? parsed.fileNames : files.map((file) => join(root, file));
    const program = ts.createSemanticDiagnosticsBuilderProgram(roots, options, warm?.host(options) ?? ts.createIncrementalCompilerHost(options), warm?.previous);
    if (warm !== undefined) warm.previous = program;
    found.push(...parsed.errors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics());
  }
  const diagnostics = found.filter((d) => d.category === ts.DiagnosticCategory.Error).map((d) => compilerDiagnostic(root, d));
  return { compiler: "javascript", diagnostics, milliseconds: performance.now() - started };
}

/** A compiler diagnostic as the rules read it, at a `root`-relative file. */
function compilerDiagnostic(root: string, d: ts.Diagnostic): CompilerDiagnostic {
  const message = ts.flattenDiagnosticMessageText(d.messageText, " ");
  if (d.file === undefined || d.start === undefined) return { file: "", line: 0, column: 0, code: d.code, message };
  const pos = d.file.getLineAndCharacterOfPosition(d.start);
  return { file: relative(root, d.file.fileName).split(sep).join("/"), line: pos.line + 1, column: pos.character + 1, code: d.code, message };
}

/** Where the native compiler keeps what it knows between checks of the whole project (project-relative). */
const buildInfoPath = ".cache/dev/tsc.tsbuildinfo";

/** The configuration of the book's program, and where the compiler keeps what it knows of it (project-relative). */
const book = { config: ".cache/dev/tsconfig.book.json", buildInfo: ".cache/dev/tsc-book.tsbuildinfo" } as const;

/** A type-checker that stays warm between calls of `check`. Not safe for concurrent calls. */
export class IncrementalTypeChecker {
  readonly #root: string;
  /** The project's configuration file. */
  readonly #project = "tsconfig.json";
  readonly #native: string | undefined;
  /** Each parsed file and the stat it was parsed from, and the host that answers from them while the options are the same. */
  readonly #sources = new Map<string, { readonly mtimeMs: number; readonly size: number; readonly languageVersion: string; readonly source: ts.SourceFile }>();
  #cachedHost: { readonly options: string; readonly host: ts.CompilerHost } | undefined;
  readonly #warm: WarmApi = { host: (options) => this.#host(options) };
  /** The book's configuration as this checker last read or wrote it. */
  #bookConfig: string | undefined;

  /** `compiler` forces the JavaScript API (default: native when its binary exists). */
  constructor(root: string, options: { readonly compiler?: "native" | "javascript" } = {}) {
    this.#root = root;
    this.#native = options.compiler === "javascript" ? undefined : nativeCompilerPath();
  }

  /**
   * Type-checks the project as it is on disk now; diagnostics as `typeCheck` reports them. With
   * `files` (project-relative), only the program those files start, under the project's compiler
   * options; the whole project when the project has no configuration file to extend.
   */
  async check(files?: readonly string[]): Promise<TypeCheckResult> {
    const narrowed = files === undefined || !existsSync(join(this.#root, this.#project)) ? undefined : files;
    if (this.#native === undefined) return checkWithApi(this.#root, this.#project, narrowed, performance.now(), this.#warm);
    if (narrowed === undefined) return await this.#checkNative(this.#native, this.#project, buildInfoPath);
    this.#writeBookConfig(narrowed);
    return await this.#checkNative(this.#native, book.config, book.buildInfo);
  }

  /**
   * Writes the book's configuration, when it is not already what `files` asks (a rewrite would
   * make the compiler read it as changed): read from disk once, then known from the last write.
   */
  #writeBookConfig(files: readonly string[]): void {
    const path = join(this.#root, book.config);
    const fromConfig = (file: string): string => relative(dirname(path), join(this.#root, file)).split("\\").join("/");
    const config = `${JSON.stringify({ extends: fromConfig(this.#project), files: [...files].sort().map(fromConfig), include: [] }, null, 2)}\n`;
    this.#bookConfig ??= readIfExists(path);
    if (this.#bookConfig === config) return;
    writeAtomically(path, config);
    this.#bookConfig = config;
  }

  /** One incremental run of the native compiler, without blocking the process (the docs server keeps answering). */
  async #checkNative(binary: string, project: string, buildInfo: string): Promise<TypeCheckResult> {
    const started = performance.now();
    mkdirSync(join(this.#root, dirname(buildInfo)), { recursive: true });
    // One thread: an incremental check after an edit takes as long on one as on several (measured
    // 0.35–0.5 s either way), and the other core stays free for the caller's work meanwhile.
    const args = ["-p", project, "--noEmit", "--pretty", "false", "--incremental", "--tsBuildInfoFile", buildInfo, "--singleThreaded"];
    const { status, output } = await new Promise<{ status: number | null; output: string }>((resolve, reject) => {
      const child = spawn(binary, args, { cwd: this.#root, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      child.on("error", reject);
      child.on("close", (code) => resolve({ status: code, output }));
    });
    return nativeResult(status, output, started);
  }

  /**
   * A compiler host whose `getSourceFile` answers from the cache while a file's stat is
   * unchanged; the same host while the options are (the builder reuses more of a program built
   * by the same host).
   */
  #host(options: ts.CompilerOptions): ts.CompilerHost {
    const key = JSON.stringify(options);
    if (this.#cachedHost?.options === key) return this.#cachedHost.host;
    const host = ts.createIncrementalCompilerHost(options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
      const stat = statSync(fileName, { throwIfNoEntry: false });
      const version = JSON.stringify(languageVersion);
      const cached = this.#sources.get(fileName);
      if (stat !== undefined && cached !== undefined && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size && cached.languageVersion === version) return cached.source;
      const fresh = read(fileName, languageVersion, onError, shouldCreate);
      if (fresh === undefined || stat === undefined) this.#sources.delete(fileName);
      else this.#sources.set(fileName, { mtimeMs: stat.mtimeMs, size: stat.size, languageVersion: version, source: fresh });
      return fresh;
    };
    this.#cachedHost = { options: key, host };
    return host;
  }
}
