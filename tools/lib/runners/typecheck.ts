/**
 * Rule 3, "compiles": one type-check of the whole project, never one per block.
 *
 * The native TypeScript 7 compiler (installed as the `tsgo` alias) is run directly, without
 * its npm launcher, on `tsconfig.json` with `--noEmit --pretty false`, and its diagnostics are
 * parsed from its output. When no native binary exists for this platform, the TypeScript
 * JavaScript API does the same check, slower.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import ts from "typescript";
import type { CompilerDiagnostic, TypeCheckResult } from "../core/evidence.ts";

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
  if (binary !== undefined) {
    const run = spawnSync(binary, ["-p", project, "--noEmit", "--pretty", "false"], { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    if (run.error !== undefined) throw run.error;
    return nativeResult(run.status, `${run.stdout}${run.stderr}`, started);
  }
  return { compiler: "javascript", diagnostics: typeCheckWithApi(root, project), milliseconds: performance.now() - started };
}

/** The native compiler's run as a result: its diagnostics, or an error when it failed without saying why. */
export function nativeResult(status: number | null, output: string, started: number): TypeCheckResult {
  const diagnostics = parseCompilerOutput(output);
  if (status !== 0 && diagnostics.length === 0) throw new Error(`the TypeScript compiler exited with ${String(status)} and printed nothing`);
  return { compiler: "native", diagnostics, milliseconds: performance.now() - started };
}

/**
 * The configuration file at `configPath`, parsed from its syntax tree rather than from plain
 * JSON, so an error in an option keeps its place in the file, as the native compiler reports it.
 */
export function parseProject(configPath: string): ts.ParsedCommandLine {
  const source = ts.readJsonConfigFile(configPath, (p) => ts.sys.readFile(p));
  return ts.parseJsonSourceFileConfigFileContent(source, ts.sys, dirname(configPath), undefined, configPath);
}

/** A compiler diagnostic as the rules read it, at a `root`-relative file. */
export function compilerDiagnostic(root: string, d: ts.Diagnostic): CompilerDiagnostic {
  const message = ts.flattenDiagnosticMessageText(d.messageText, " ");
  if (d.file === undefined || d.start === undefined) return { file: "", line: 0, column: 0, code: d.code, message };
  const pos = d.file.getLineAndCharacterOfPosition(d.start);
  return { file: relative(root, d.file.fileName).split(sep).join("/"), line: pos.line + 1, column: pos.character + 1, code: d.code, message };
}

/** Every diagnostic of the program a configuration file describes, the file's own first. */
function checkProgram(configPath: string, readError: ts.Diagnostic | undefined): readonly ts.Diagnostic[] {
  const parsed = parseProject(configPath);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
  return [...(readError === undefined ? [] : [readError]), ...parsed.errors, ...ts.getPreEmitDiagnostics(program)];
}

function typeCheckWithApi(root: string, project: string): CompilerDiagnostic[] {
  const configPath = join(root, project);
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  return (ts.sys.fileExists(configPath) ? checkProgram(configPath, read.error) : read.error === undefined ? [] : [read.error])
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => compilerDiagnostic(root, d));
}
