/**
 * Cross-references: one TypeScript program over the whole tangled tree.
 *
 * Every identifier of every tangled TypeScript file is resolved once against one program (never
 * one compiler run per block): to the symbol it names, the place that symbol is declared, and the
 * quick info an editor would show on hover. Quick info is computed once per symbol, not per use,
 * from the type checker directly (`describeSymbol`): the language service's own
 * `getQuickInfoAtPosition` says the same with more ceremony and took 60% longer on this project.
 * Positions are in generated-file coordinates; `model.ts` maps them to blocks.
 *
 * Reads the compiler's library files and `node_modules` types from the disk; the tangled files
 * themselves come from memory, so the result matches the documents even before they are written.
 */
import { join, relative, sep } from "node:path";
import ts from "typescript";
import { pushAt, valueAt } from "../core/maps.ts";

/** A symbol some identifier names, with its hover text and, when the project declares it, where. */
export interface XrefSymbol {
  readonly name: string;
  /** Quick info: the declaration as an editor shows it, then the first lines of its doc comment. */
  readonly hover: string;
  /** Where the symbol is declared, when that is one of the tangled files (0-based line and character). */
  readonly definition?: { readonly file: string; readonly line: number; readonly character: number };
}

/** One identifier in a tangled file (0-based line and character of the generated file). */
export interface XrefOccurrence {
  readonly file: string;
  readonly line: number;
  readonly character: number;
  readonly length: number;
  /** Index into `XrefResult.symbols`. */
  readonly symbol: number;
  /** True when this identifier is the name in the symbol's own declaration. */
  readonly isDefinition: boolean;
}

/** Everything the language service said. */
export interface XrefResult {
  readonly symbols: readonly XrefSymbol[];
  readonly occurrences: readonly XrefOccurrence[];
  readonly milliseconds: number;
  /** The one program, for typedoc to reuse (absent when the result came from the cache). */
  readonly program?: ts.Program;
}

/** Reads the compiler options of `tsconfig.json` under `root`. */
export function readCompilerOptions(root: string): ts.CompilerOptions {
  const read = ts.readConfigFile(join(root, "tsconfig.json"), (p) => ts.sys.readFile(p));
  return { ...ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, root).options, noEmit: true };
}

const maxDocumentation = 600;

/**
 * What a long-lived process keeps between cross-references: the last program and its parsed
 * files, so the next program reparses only the tangled files whose text changed.
 */
export interface XrefMemory {
  program?: ts.Program;
  /** Parsed files by name: the library and `node_modules` files for the session, tangled ones with their text. */
  readonly sources: Map<string, { readonly text: string | undefined; readonly file: ts.SourceFile }>;
}

/** An empty `XrefMemory`, for a process that builds the docs more than once. */
export function xrefMemory(): XrefMemory {
  return { sources: new Map() };
}

/**
 * Resolves every identifier of `files` (project-relative path → content; TypeScript only) with
 * one program that holds exactly those files (and what they import), with `options`. With
 * `memory` (same root and options on every call) the program is built from the previous one:
 * unchanged files are neither read nor parsed again, only the type checker starts afresh.
 */
export function crossReference(root: string, files: ReadonlyMap<string, string>, options: ts.CompilerOptions, memory?: XrefMemory): XrefResult {
  const started = performance.now();
  const resolve = resolver(root, files, options, memory);
  const symbols: XrefSymbol[] = [];
  const symbolIndex = new Map<ts.Symbol, number>();
  const occurrences: XrefOccurrence[] = [];
  // Each symbol described once, at its first occurrence: its index is where it was pushed.
  resolve.walk([...files.keys()], occurrences, (target, describe) => valueAt(symbolIndex, target, () => symbols.push(describe()) - 1));
  return { symbols, occurrences, milliseconds: performance.now() - started, program: resolve.program };
}

/**
 * The cross-references of `files` computed from `previous` (those of `previousFiles`, the same
 * paths): only the identifiers of the files whose text changed are resolved again, against a new
 * program; the other files' occurrences are kept. `npm run dev` uses it to update a chapter's page
 * within seconds; it is exact for the changed files and their own symbols, and approximate
 * elsewhere: an unchanged file keeps its resolution even where the change altered it (a renamed
 * export, a type another file infers from the changed one), until the next full cross-reference.
 * Symbols declared in a changed file keep their index (matched by name and declaration, whose
 * line is moved by the lines added or removed above it, or by name in that file when the edit
 * covered the declaration); a symbol no longer named keeps its entry.
 * Falls back to `crossReference` when files were added or removed.
 */
export function crossReferenceChanged(root: string, files: ReadonlyMap<string, string>, options: ts.CompilerOptions, memory: XrefMemory, previous: XrefResult, previousFiles: ReadonlyMap<string, string>): XrefResult {
  const started = performance.now();
  if (files.size !== previousFiles.size || [...files.keys()].some((f) => !previousFiles.has(f))) return crossReference(root, files, options, memory);
  const changed = [...files.keys()].filter((f) => files.get(f) !== previousFiles.get(f));
  if (changed.length === 0) return { symbols: previous.symbols, occurrences: previous.occurrences, milliseconds: 0 };
  const moves = new Map(changed.map((f) => [f, lineMove(previousFiles.get(f) ?? "", files.get(f) ?? "")]));
  const keyOf = (s: XrefSymbol): string => (s.definition === undefined ? `${s.name}\0${s.hover}` : `${s.name}\0${s.definition.file}\0${s.definition.line}\0${s.definition.character}`);
  const symbols: XrefSymbol[] = previous.symbols.map((s) => {
    const move = s.definition === undefined ? undefined : moves.get(s.definition.file);
    if (s.definition === undefined || move === undefined) return s;
    const line = move(s.definition.line);
    return line === undefined ? s : { ...s, definition: { ...s.definition, line } };
  });
  const byKey = new Map(symbols.map((s, i) => [keyOf(s), i]));
  // A declaration inside the edited stretch has no line to move to: it is matched by its name in its file.
  const byName = new Map<string, number[]>();
  symbols.forEach((s, i) => {
    if (s.definition === undefined || !moves.has(s.definition.file)) return;
    pushAt(byName, `${s.name}\0${s.definition.file}`, i);
  });
  const claimed = new Set<number>();
  const changedSet = new Set(changed);
  const occurrences = previous.occurrences.filter((o) => !changedSet.has(o.file));
  const resolve = resolver(root, files, options, memory);
  const seen = new Map<ts.Symbol, number>();
  resolve.walk(changed, occurrences, (target, describe) =>
    valueAt(seen, target, () => {
      const symbol = describe();
      const index = byKey.get(keyOf(symbol)) ?? (symbol.definition === undefined ? undefined : byName.get(`${symbol.name}\0${symbol.definition.file}`)?.find((i) => !claimed.has(i)));
      if (index === undefined) {
        byKey.set(keyOf(symbol), symbols.length);
        return symbols.push(symbol) - 1;
      }
      claimed.add(index);
      symbols[index] = symbol;
      return index;
    }),
  );
  return { symbols, occurrences, milliseconds: performance.now() - started, program: resolve.program };
}

/**
 * Where the lines of `before` went in `after`, when one stretch of lines was replaced: lines
 * above and below the stretch move with it, lines inside it have no place (`undefined`).
 */
export function lineMove(before: string, after: string): (line: number) => number | undefined {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return (line) => (line < head ? line : line >= a.length - tail ? line + b.length - a.length : undefined);
}

/** One program over `files` and the walk that records their identifiers' occurrences and symbols. */
function resolver(root: string, files: ReadonlyMap<string, string>, options: ts.CompilerOptions, memory: XrefMemory | undefined): { program: ts.Program; walk: (which: readonly string[], occurrences: XrefOccurrence[], indexOf: (target: ts.Symbol, describe: () => XrefSymbol) => number) => void } {
  const absolute = new Map([...files].map(([path, content]) => [join(root, path), content]));
  const toRelative = (fileName: string): string => relative(root, fileName).split(sep).join("/");
  const host = ts.createCompilerHost(options, true);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (fileName) => absolute.get(fileName) ?? readFile(fileName);
  host.getSourceFile = (fileName, language, onError, shouldCreate) => {
    const text = absolute.get(fileName);
    const kept = memory?.sources.get(fileName);
    // The program reuses a file only when the host hands back the very same object.
    if (kept !== undefined && kept.text === text) return kept.file;
    const file = text === undefined ? getSourceFile(fileName, language, onError, shouldCreate) : ts.createSourceFile(fileName, text, language, true);
    if (memory !== undefined && file !== undefined) memory.sources.set(fileName, { text, file });
    return file;
  };
  host.fileExists = (fileName) => absolute.has(fileName) || fileExists(fileName);
  host.getCurrentDirectory = () => root;
  const program = ts.createProgram({ rootNames: [...absolute.keys()], options, host, ...(memory?.program === undefined ? {} : { oldProgram: memory.program }) });
  if (memory !== undefined) memory.program = program;
  const checker = program.getTypeChecker();

  const definitionOf = (symbol: ts.Symbol): XrefSymbol["definition"] => {
    for (const declaration of symbol.declarations ?? []) {
      const source = declaration.getSourceFile();
      if (!absolute.has(source.fileName)) continue;
      const name = ts.getNameOfDeclaration(declaration) ?? declaration;
      const pos = source.getLineAndCharacterOfPosition(name.getStart(source));
      return { file: toRelative(source.fileName), line: pos.line, character: pos.character };
    }
    return undefined;
  };

  const hoverOf = (symbol: ts.Symbol, node: ts.Node, name: string): string => {
    const head = describeSymbol(checker, symbol, node, name);
    const doc = plainDocText(symbol.getDocumentationComment(checker)).trim();
    const shortDoc = doc.length > maxDocumentation ? `${doc.slice(0, maxDocumentation - 1)}…` : doc;
    return shortDoc === "" ? head : `${head}\n\n${shortDoc}`;
  };

  const walk = (which: readonly string[], occurrences: XrefOccurrence[], indexOf: (target: ts.Symbol, describe: () => XrefSymbol) => number): void => {
    const record = (node: ts.Identifier | ts.PrivateIdentifier, source: ts.SourceFile, file: string): void => {
      if (isKeywordLike(node)) return;
      const symbol = checker.getSymbolAtLocation(node);
      if (symbol === undefined) return;
      const aliased = (symbol.flags & ts.SymbolFlags.Alias) !== 0;
      const target = aliased ? checker.getAliasedSymbol(symbol) : symbol;
      const start = node.getStart(source);
      const index = indexOf(target, () => {
        const definition = definitionOf(target);
        // An import renamed on export (`expect` is vitest's `globalExpect`) shows by the name used here.
        const local = ts.isImportSpecifier(node.parent) ? node.parent.name : node;
        const name = aliased && ts.isIdentifier(local) ? local.text : target.getName();
        return { name, hover: hoverOf(target, node, name), ...(definition === undefined ? {} : { definition }) };
      });
      const isDefinition = (target.declarations ?? []).some((d) => ts.getNameOfDeclaration(d) === node);
      const pos = source.getLineAndCharacterOfPosition(start);
      occurrences.push({ file, line: pos.line, character: pos.character, length: node.getEnd() - start, symbol: index, isDefinition });
    };
    for (const path of which) {
      const source = program.getSourceFile(join(root, path));
      if (source === undefined) continue;
      const file = toRelative(source.fileName);
      const visit = (node: ts.Node): void => {
        if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
          record(node, source, file);
          return;
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  };
  return { program, walk };
}

const F = ts.SymbolFlags;

/** The first line of quick info for a symbol, in the editor's words (`function f(x: number): string`). */
function describeSymbol(checker: ts.TypeChecker, symbol: ts.Symbol, node: ts.Node, name = symbol.getName()): string {
  const f = symbol.flags;
  const declared = (): string => checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol));
  if (f & F.TypeAlias) {
    // The declared type of a generic alias is its body: say its type parameters too (`ReturnType<T extends …>`).
    const alias = symbol.declarations?.find(ts.isTypeAliasDeclaration);
    const parameters = alias?.typeParameters === undefined ? "" : `<${alias.typeParameters.map((p) => p.getText()).join(", ")}>`;
    return `type ${name}${parameters} = ${checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), undefined, ts.TypeFormatFlags.InTypeAlias | ts.TypeFormatFlags.NoTruncation)}`;
  }
  if (f & F.Class) return `class ${declared()}`;
  if (f & F.Interface) return `interface ${declared()}`;
  if (f & F.Enum) return `enum ${name}`;
  if (f & F.EnumMember) return `(enum member) ${name}`;
  if (f & F.TypeParameter) return `(type parameter) ${name}`;
  if (f & F.Module) return `namespace ${name}`;
  const type = checker.getTypeOfSymbolAtLocation(symbol, node);
  if (f & (F.Function | F.Method)) {
    const kind = f & F.Method ? "(method) " : "function ";
    const signatures = checker.getSignaturesOfType(type, ts.SignatureKind.Call);
    if (signatures.length > 0) return signatures.map((s) => `${kind}${name}${checker.signatureToString(s)}`).join("\n");
  }
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  let kind = "";
  if (declaration !== undefined && ts.isParameter(declaration)) kind = "(parameter) ";
  else if (f & F.Property) kind = "(property) ";
  else if (f & F.BlockScopedVariable && declaration !== undefined && ts.isVariableDeclarationList(declaration.parent)) kind = declaration.parent.flags & ts.NodeFlags.Const ? "const " : "let ";
  else if (f & F.FunctionScopedVariable) kind = "var ";
  else if (f & F.Accessor) kind = "(accessor) ";
  return `${kind}${name}: ${checker.typeToString(type)}`;
}

/**
 * Identifiers that read as keywords and have nothing to say on hover: `undefined`, and the
 * `const` of `as const` (parsed as a type named `const`).
 */
function isKeywordLike(node: ts.Identifier | ts.PrivateIdentifier): boolean {
  if (!ts.isIdentifier(node)) return false;
  if (node.text === "undefined") return true;
  return node.text === "const" && ts.isTypeReferenceNode(node.parent) && (ts.isAsExpression(node.parent.parent) || ts.isTypeAssertionExpression(node.parent.parent));
}

/**
 * A doc comment's text as a reader sees it: each `{@link Name}` (`@linkcode`, `@linkplain`) as the
 * name, or as its text when it has one (`{@link Name | text}`). From the display parts, where the
 * link's name and text are apart (`displayPartsToString` runs them together: `{@link Namethe text}`).
 */
function plainDocText(parts: readonly ts.SymbolDisplayPart[]): string {
  let out = "";
  let link: { name: string; text: string } | undefined;
  for (const part of parts) {
    if (part.kind === "link") {
      if (link === undefined) link = { name: "", text: "" };
      else {
        out += link.text.trim() === "" ? link.name.trim() : link.text.trim();
        link = undefined;
      }
    } else if (link !== undefined && part.kind === "linkName") link.name += part.text;
    else if (link !== undefined) link.text += part.text;
    else out += part.text;
  }
  return out;
}
