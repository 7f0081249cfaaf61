/**
 * The TypeScript language service's view of the book: the tangled TypeScript files, held in
 * memory as the latest tangle wrote them (never on disk), over the project's own files and
 * `node_modules` read through `ts.sys`. A file's script version moves only when its text changes,
 * so after an edit the service re-checks the changed module and reuses every other file's work.
 */
import { isAbsolute, join } from "node:path";
import ts from "typescript";
import { isTypeScriptPath } from "../core/paths.ts";

/** One tangled file in memory. */
interface Held {
  readonly text: string;
  readonly version: number;
  readonly snapshot: ts.IScriptSnapshot;
}

/** The compiler options of `root/tsconfig.json` (the project's own), or strict defaults when it has none. */
export function projectCompilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, "tsconfig.json");
  if (!ts.sys.fileExists(configPath)) return { strict: true, noEmit: true, allowImportingTsExtensions: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 };
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  return { ...ts.parseJsonConfigFileContent(read.config, ts.sys, root).options, noEmit: true };
}

/** A `LanguageServiceHost` over the tangled files of a project at `root`; see the module comment. */
export class TangledHost implements ts.LanguageServiceHost {
  readonly root: string;
  readonly #options: ts.CompilerOptions;
  /** Absolute path → the tangled file. */
  readonly #held = new Map<string, Held>();
  #names: string[] = [];
  /** The files the program starts from (absolute), or `undefined` for every tangled file. */
  #roots: Set<string> | undefined = new Set();
  #version = 0;
  #projectVersion = 0;

  constructor(root: string, options: ts.CompilerOptions) {
    this.root = root;
    this.#options = options;
  }

  /** The absolute path of a project-relative one. */
  absolute(path: string): string {
    return isAbsolute(path) ? path : join(this.root, path);
  }

  /** The project-relative path of a tangled file the host holds, or `undefined` for any other file. */
  tangledPath(fileName: string): string | undefined {
    if (!this.#held.has(fileName)) return undefined;
    return fileName.slice(this.root.length + 1);
  }

  /** Replaces the tangled files by `files` (project-relative path → text; non-TypeScript ones ignored). Returns the paths whose text changed. */
  update(files: ReadonlyMap<string, string>): string[] {
    const changed: string[] = [];
    const present = new Set<string>();
    for (const [path, text] of files) {
      if (!isTypeScriptPath(path)) continue;
      const name = this.absolute(path);
      present.add(name);
      if (this.#held.get(name)?.text === text) continue;
      this.#held.set(name, { text, version: ++this.#version, snapshot: ts.ScriptSnapshot.fromString(text) });
      changed.push(path);
    }
    for (const name of [...this.#held.keys()]) {
      if (present.has(name)) continue;
      this.#held.delete(name);
      changed.push(name.slice(this.root.length + 1));
    }
    if (changed.length > 0) this.#rename();
    return changed;
  }

  /**
   * Starts the program from the tangled files `paths` (project-relative) too, besides those it
   * already starts from: the modules they import are read all the same, so an editor's first
   * answers in a chapter need only its own modules. `undefined`: every tangled file (what
   * references and rename need).
   */
  widen(paths: readonly string[] | undefined): void {
    if (this.#roots === undefined) return;
    if (paths === undefined) this.#roots = undefined;
    else {
      const before = this.#roots.size;
      for (const path of paths) this.#roots.add(this.absolute(path));
      if (this.#roots.size === before) return;
    }
    this.#rename();
  }

  #rename(): void {
    this.#projectVersion++;
    const roots = this.#roots;
    this.#names = [...this.#held.keys()].filter((name) => roots === undefined || roots.has(name)).sort();
  }

  getProjectVersion(): string {
    return String(this.#projectVersion);
  }
  getCompilationSettings(): ts.CompilerOptions {
    return this.#options;
  }
  getScriptFileNames(): string[] {
    return this.#names;
  }
  getScriptVersion(fileName: string): string {
    return String(this.#held.get(fileName)?.version ?? 0);
  }
  getScriptSnapshot(fileName: string): ts.IScriptSnapshot | undefined {
    const held = this.#held.get(fileName);
    if (held !== undefined) return held.snapshot;
    const text = ts.sys.readFile(fileName);
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  }
  getCurrentDirectory(): string {
    return this.root;
  }
  getDefaultLibFileName(options: ts.CompilerOptions): string {
    return ts.getDefaultLibFilePath(options);
  }
  fileExists(fileName: string): boolean {
    return this.#held.has(fileName) || ts.sys.fileExists(fileName);
  }
  readFile(fileName: string): string | undefined {
    return this.#held.get(fileName)?.text ?? ts.sys.readFile(fileName);
  }
  directoryExists(directoryName: string): boolean {
    return ts.sys.directoryExists(directoryName) || this.#names.some((name) => name.startsWith(`${directoryName}/`));
  }
  getDirectories(directoryName: string): string[] {
    return ts.sys.getDirectories(directoryName);
  }
  realpath(path: string): string {
    return this.#held.has(path) ? path : (ts.sys.realpath?.(path) ?? path);
  }
  useCaseSensitiveFileNames(): boolean {
    return ts.sys.useCaseSensitiveFileNames;
  }
}
