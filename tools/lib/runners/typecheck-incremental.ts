/**
 * Rule 3 for `npm run dev`: the same whole-project type-check as `typecheck.ts`, made
 * incremental so a re-check after one save costs a fraction of a cold one.
 *
 * With the native compiler, each check is one `--incremental` run whose build information is
 * kept in `.cache/dev/tsc.tsbuildinfo`: it re-checks only the files an edit can affect. Measured
 * on this project (2 loaded cores), a cold native check takes about 3 s, an incremental one after
 * a one-block edit about 1 s; the JavaScript API's builder, kept alive in this process, took 5–8 s
 * for the same edit, so it is only the fallback where no native binary exists.
 *
 * That fallback: a semantic-diagnostics builder program is rebuilt from the previous one on every check. The
 * compiler host keeps each parsed file until its modification time or size changes, so an edit
 * of one generated module re-parses that module alone (the standard library and `node_modules`
 * declarations are parsed once per process), and the builder re-checks only the files whose
 * meaning that edit can change. `tsconfig.json` is read again on every check, so a new
 * chapter's module joins the program.
 *
 * A check can be narrowed to the book: the tangled files and what they import, under the
 * project's compiler options (a configuration in `.cache/dev/` that extends `tsconfig.json` and
 * names the files). That is what a block's verdict depends on, and on this project it is 714
 * files instead of the whole project's 1,797 (the toolchain, its tests and the bench bring
 * TypeScript's, Stryker's and the editors' declarations): 0.45–0.6 s a check instead of
 * 0.9–1.2 s. `npm run verify` checks the whole project.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import type { TypeCheckResult } from "../core/evidence.ts";
import { compilerDiagnostic, nativeCompilerPath, nativeResult, parseProject } from "./typecheck.ts";
import { readIfExists, writeAtomically } from "../disk/io.ts";

/** Where the native compiler keeps what it knows between checks of the whole project (project-relative). */
const buildInfoPath = ".cache/dev/tsc.tsbuildinfo";

/** The configuration of the book's program, and where the compiler keeps what it knows of it (project-relative). */
const book = { config: ".cache/dev/tsconfig.book.json", buildInfo: ".cache/dev/tsc-book.tsbuildinfo" } as const;

/** A parsed file and the stat it was parsed from. */
interface CachedSource {
  readonly mtimeMs: number;
  readonly size: number;
  readonly languageVersion: string;
  readonly source: ts.SourceFile;
}

/** A type-checker that stays warm between calls of `check`. Not safe for concurrent calls. */
export class IncrementalTypeChecker {
  readonly #root: string;
  readonly #project: string;
  readonly #sources = new Map<string, CachedSource>();
  #previous: ts.SemanticDiagnosticsBuilderProgram | undefined;
  #cachedHost: { readonly options: string; readonly host: ts.CompilerHost } | undefined;

  readonly #native: string | undefined;
  /** The book's configuration as this checker last read or wrote it. */
  #bookConfig: string | undefined;

  /**
   * `project` is the configuration file, relative to `root` (default `tsconfig.json`);
   * `compiler` forces the JavaScript API (default: native when its binary exists).
   */
  constructor(root: string, options: { readonly project?: string; readonly compiler?: "native" | "javascript" } = {}) {
    this.#root = root;
    this.#project = options.project ?? "tsconfig.json";
    this.#native = options.compiler === "javascript" ? undefined : nativeCompilerPath();
  }

  /**
   * Type-checks the project as it is on disk now; diagnostics as `typeCheck` reports them. With
   * `files` (project-relative), only the program those files start, under the project's compiler
   * options; the whole project when the project has no configuration file to extend.
   */
  async check(files?: readonly string[]): Promise<TypeCheckResult> {
    const narrowed = files === undefined || !existsSync(join(this.#root, this.#project)) ? undefined : files;
    if (this.#native === undefined) return this.#checkWithApi(narrowed);
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
    mkdirSync(dirname(path), { recursive: true });
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

  #checkWithApi(files: readonly string[] | undefined): TypeCheckResult {
    const started = performance.now();
    const configPath = join(this.#root, this.#project);
    const parsed = parseProject(configPath);
    const options: ts.CompilerOptions = { ...parsed.options, noEmit: true };
    const host = this.#host(options);
    const roots = files === undefined ? parsed.fileNames : files.map((file) => join(this.#root, file));
    const program = ts.createSemanticDiagnosticsBuilderProgram(roots, options, host, this.#previous);
    this.#previous = program;
    const all = [...parsed.errors, ...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()];
    const diagnostics = all.filter((d) => d.category === ts.DiagnosticCategory.Error).map((d) => compilerDiagnostic(this.#root, d));
    return { compiler: "javascript", diagnostics, milliseconds: performance.now() - started };
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
