/**
 * The language server's protocol side (`vscode-languageserver`): documents opened, changed,
 * saved and closed go into the `Book`; requests are answered by `features.ts`, `splices.ts` and
 * `lens.ts`, their Markdown ranges turned into the protocol's locations. Diagnostics of every
 * open chapter are published on open, and ~150 ms after the last change (a burst of keystrokes
 * is judged once). A failure inside a request is answered as an error of that request, never a
 * crash of the server.
 */
import { relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { CodeLens, CompletionItemKind, DiagnosticSeverity, ErrorCodes, MarkupKind, MessageType, ResponseError, SymbolKind, TextDocumentSyncKind, TextDocuments, type CompletionItem, type Connection, type Diagnostic as LspDiagnostic, type DocumentSymbol, type InitializeResult, type Location, type Range, type WorkspaceEdit } from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { recordPath } from "../core/mutation.ts";
import { Book, type BookProblem, type BookRange, type Place, type Span } from "./book.ts";
import { filesNamingTheBook } from "./disk.ts";
import { readDocuments, readIfExists } from "../disk/io.ts";
import { RenameRefused, completionDetails, completions, hover, outline, placesAt, prepareRename, rename, signatureHelp, type CompletionAnswer, type OutlineEntry } from "./features.ts";
import { BackgroundJudge, judgeInThread, type JudgeReply, type JudgeRequest, type WorkerChannel } from "./judge-worker.ts";
import { lenses, testBlockCount, testedBy, type Lens } from "./lens.ts";
import { projectCompilerOptions } from "./tangled-host.ts";
import { spliceCompletions, spliceDefinitions, spliceNameAt, spliceReferences } from "./splices.ts";

/** Options of a server. */
export interface ServerOptions {
  /** The project root; without it, the client's root folder (or the current folder). */
  readonly root?: string;
  /** Where the server's own log lines go (the client's log, by default). */
  readonly log?: (line: string) => void;
  /**
   * Starts the judge's worker for the project at `root` (`judge-worker.ts`); without it the judge
   * runs in this thread (`judgeInThread`). It is called once the first diagnostics are sent:
   * loading the worker's code would otherwise take a core from the start-up.
   */
  readonly startJudge?: (root: string) => WorkerChannel<JudgeReply, JudgeRequest>;
}

/** How long after the last change diagnostics are published, in ms. */
const debounceMs = 150;

/** How long after the type errors are published the judge's whole verdict follows, if nothing changed meanwhile, in ms. */
const judgeDelayMs = 300;

/** What a code lens carries from `codeLens` to `codeLens/resolve`. */
type LensData = Lens & { readonly doc: string };

/** Starts answering on `connection` (already created over its streams); returns when it listens. */
export function startServer(connection: Connection, options: ServerOptions = {}): void {
  const documents = new TextDocuments(TextDocument);
  const log = options.log ?? ((line: string): void => connection.console.log(line));
  let lensRefresh = false;
  let book: Book | undefined;
  let root = options.root === undefined ? undefined : resolve(options.root);
  /** The judge's worker, once started. */
  let judge: BackgroundJudge | undefined;
  const startJudge = options.startJudge ?? judgeInThread;
  const judgeWorker = (): BackgroundJudge | undefined => {
    if (judge === undefined && root !== undefined) {
      const at = root;
      judge = new BackgroundJudge(() => startJudge(at), (line) => log(`lsp: ${line}`));
    }
    return judge;
  };
  let timer: NodeJS.Timeout | undefined;

  const pathOf = (uri: string): string | undefined => {
    if (root === undefined || !uri.startsWith("file:")) return undefined;
    const path = relative(root, fileURLToPath(uri)).split(sep).join("/");
    return path.startsWith("literate/") && path.endsWith(".md") ? path : undefined;
  };
  const openUris = new Map<string, string>();
  const uriOf = (path: string): string => openUris.get(path) ?? pathToFileURL(resolve(root ?? ".", path)).href;
  const bookLocation = (r: BookRange): Location => ({ uri: uriOf(r.doc), range: range(r) });
  const location = (place: Place): Location => (place.kind === "book" ? bookLocation(place.range) : { uri: pathToFileURL(place.fileName).href, range: range(place.range) });
  const requireBook = (): Book => {
    if (book === undefined) throw new ResponseError(ErrorCodes.ServerNotInitialized, "the book is not loaded yet");
    return book;
  };

  /** Runs a request's body; a failure becomes that request's error, logged with its stack. */
  const guarded = <T>(what: string, body: () => T): T => {
    try {
      return body();
    } catch (caught) {
      if (caught instanceof ResponseError) throw caught;
      if (caught instanceof RenameRefused) throw new ResponseError(ErrorCodes.InvalidRequest, caught.message);
      log(`lsp: ${what} failed: ${caught instanceof Error ? (caught.stack ?? caught.message) : String(caught)}`);
      throw new ResponseError(ErrorCodes.InternalError, `${what} failed: ${caught instanceof Error ? caught.message : String(caught)}`);
    }
  };

  /** A request about a document: `body`'s answer (under `guarded`) for a chapter of `literate/`, `none` for any other file. */
  const inChapter = <T>(what: string, uri: string, none: T, body: (doc: string, b: Book) => T): T =>
    guarded(what, () => {
      const doc = pathOf(uri);
      return doc === undefined ? none : body(doc, requireBook());
    });

  /** Sends each open chapter's problems, as `find` gives them. */
  const send = (find: (b: Book, doc: string, open: readonly string[]) => BookProblem[]): void => {
    if (book === undefined) return;
    const open = [...openUris.keys()];
    for (const doc of open) {
      const uri = uriOf(doc);
      try {
        const diagnostics: LspDiagnostic[] = find(book, doc, open).map(({ diagnostic: d, range: r }) => ({
          range: range(r),
          severity: d.severity === "error" ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
          source: "passepartout",
          code: d.rule,
          message: d.hint === undefined ? d.message : `${d.message}\nhint: ${d.hint}`,
        }));
        void connection.sendDiagnostics({ uri, diagnostics });
      } catch (caught) {
        log(`lsp: diagnostics of ${doc} failed: ${caught instanceof Error ? (caught.stack ?? caught.message) : String(caught)}`);
        void connection.sendDiagnostics({ uri, diagnostics: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: DiagnosticSeverity.Error, source: "passepartout", message: `the language server could not check this document: ${caught instanceof Error ? caught.message : String(caught)}` }] });
      }
    }
  };
  /**
   * Errors first: the type errors of the modules the edit changed, then of every module of the
   * open chapters, then (unless a newer change came) the judge's whole verdict; each step its own
   * turn of the event loop, so what a step sends is written before the next step's work.
   */
  const publish = (): void => {
    try {
      book?.widen([...openUris.keys()]);
    } catch (caught) {
      log(`lsp: the open chapters could not be tangled: ${caught instanceof Error ? (caught.stack ?? caught.message) : String(caught)}`);
    }
    send((b, doc) => b.quickProblems(doc, true));
    judgeWorker();
    const steps: (() => void)[] = [
      () => send((b, doc) => b.quickProblems(doc)),
      () => judgeOpen(),
      // Quiet now: let the service take in the whole book, for references and rename.
      () => {
        book?.widen(undefined);
        book?.service.getProgram();
      },
    ];
    const delays = [0, judgeDelayMs, judgeDelayMs];
    const next = (k: number): void => {
      timer = k < steps.length ? setTimeout(() => {
        try {
          steps[k]?.();
        } catch (caught) {
          log(`lsp: publishing failed: ${caught instanceof Error ? (caught.stack ?? caught.message) : String(caught)}`);
        }
        next(k + 1);
      }, delays[k]) : undefined;
    };
    next(0);
  };
  /** The judge's whole verdict on the open chapters, published when the worker answers. */
  const judgeOpen = (): void => {
    const b = book;
    const worker = judgeWorker();
    if (b === undefined || worker === undefined) return;
    const input = b.judgeInput([...openUris.keys()]);
    if (input === undefined) return;
    const asked = performance.now();
    worker.ask(b.model.texts(), input.checked, (reply) => {
      for (const note of reply.notes) log(`lsp: ${note}`);
      if (reply.error !== undefined) {
        log(`lsp: the judge failed: ${reply.error}`);
        return;
      }
      b.accept(input, reply.judgement);
      send((bk, doc, open) => bk.problems(doc, open));
      log(`lsp: the judge's verdict published, ${Math.round(performance.now() - asked)} ms after it was asked${input.version === b.version ? "" : " (on texts changed since)"}`);
      if (lensRefresh) void connection.sendRequest("workspace/codeLens/refresh").catch(() => undefined);
    });
  };
  /** Publishes after `delay` ms of quiet; a change before then (or before the judge's turn) starts the wait again. */
  const schedule = (delay: number): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(publish, delay);
  };
  connection.onInitialize((params): InitializeResult => {
    if (root === undefined) {
      const folder = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
      root = folder === undefined || folder === null ? process.cwd() : fileURLToPath(folder);
    }
    const started = performance.now();
    book = new Book(root, projectCompilerOptions(root), readDocuments(root));
    lensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
    log(`lsp: ${book.model.paths.length} documents of ${root} loaded in ${Math.round(performance.now() - started)} ms`);
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        hoverProvider: true,
        completionProvider: { triggerCharacters: [".", "<", '"', "'", "/"], resolveProvider: true },
        signatureHelpProvider: { triggerCharacters: ["(", ","] },
        definitionProvider: true,
        referencesProvider: true,
        documentSymbolProvider: true,
        renameProvider: { prepareProvider: true },
        codeLensProvider: { resolveProvider: true },
      },
      serverInfo: { name: "passepartout-book", version: ts.version },
    };
  });

  documents.onDidOpen(({ document }) => {
    const doc = pathOf(document.uri);
    if (doc === undefined || book === undefined) return;
    openUris.set(doc, document.uri);
    book.setText(doc, document.getText());
    schedule(0);
  });
  documents.onDidChangeContent(({ document }) => {
    const doc = pathOf(document.uri);
    if (doc === undefined || book === undefined || !openUris.has(doc)) return;
    if (book.setText(doc, document.getText())) schedule(debounceMs);
  });
  documents.onDidSave(() => {
    if (book === undefined || root === undefined) return;
    // A save is when other tools run (tangle, verify --stamp, a checkout): take the closed chapters from disk again.
    book.syncClosed(readDocuments(root), new Set(openUris.keys()));
    judge?.reloadEvidence();
    schedule(debounceMs);
  });
  documents.onDidClose(({ document }) => {
    const doc = pathOf(document.uri);
    if (doc === undefined || book === undefined || root === undefined) return;
    openUris.delete(doc);
    book.setText(doc, readIfExists(resolve(root, doc)) ?? "");
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
    schedule(debounceMs);
  });

  connection.onHover(({ textDocument, position }) =>
    inChapter("hover", textDocument.uri, null, (doc, b) => {
      const answer = hover(b, doc, position);
      return answer === undefined ? null : { contents: { kind: MarkupKind.Markdown, value: answer.markdown }, ...(answer.range === undefined ? {} : { range: range(answer.range) }) };
    }),
  );

  connection.onCompletion(({ textDocument, position }) =>
    inChapter("completion", textDocument.uri, [], (doc, b): CompletionItem[] => {
      const lineText = (documents.get(textDocument.uri)?.getText({ start: { line: position.line, character: 0 }, end: { line: position.line + 1, character: 0 } }) ?? "").replace(/\r?\n$/, "");
      const spliced = spliceCompletions(b.tangled(), doc, position.line, position.character, lineText);
      if (spliced !== undefined) return spliced.names.map((name) => ({ label: name, kind: CompletionItemKind.Reference, textEdit: { range: range(spliced.replace), newText: `${name}>>` } }));
      return completions(b, doc, position).map((c) => ({ label: c.label, kind: kinds[c.kind]?.[1] ?? CompletionItemKind.Text, sortText: c.sortText, ...(c.insertText === undefined ? {} : { insertText: c.insertText }), data: c.data }));
    }),
  );
  connection.onCompletionResolve((item) =>
    guarded("completion details", () => {
      const data = item.data as CompletionAnswer["data"] | undefined;
      if (data === undefined || book === undefined) return item;
      const details = completionDetails(book, data);
      return details === undefined ? item : { ...item, detail: details.detail, documentation: { kind: MarkupKind.Markdown, value: details.documentation } };
    }),
  );

  connection.onSignatureHelp(({ textDocument, position }) => inChapter("signature help", textDocument.uri, null, (doc, b) => signatureHelp(b, doc, position) ?? null));

  connection.onDefinition(({ textDocument, position }) =>
    inChapter("definition", textDocument.uri, [], (doc, b): Location[] => {
      const name = spliceNameAt(b.tangled(), doc, position.line);
      if (name !== undefined) return spliceDefinitions(b.tangled(), name).map(bookLocation);
      return placesAt(b, doc, position, "definitions").map(location);
    }),
  );

  connection.onReferences(({ textDocument, position }) =>
    inChapter("references", textDocument.uri, [], (doc, b): Location[] => {
      const name = spliceNameAt(b.tangled(), doc, position.line);
      if (name !== undefined) return spliceReferences(b.tangled(), name).map(bookLocation);
      b.widen(undefined);
      return placesAt(b, doc, position, "references").map(location);
    }),
  );

  connection.onDocumentSymbol(({ textDocument }) => inChapter("document symbols", textDocument.uri, [], (doc, b): DocumentSymbol[] => outline(b, doc).map(symbol)));

  connection.onPrepareRename(({ textDocument, position }) =>
    inChapter("rename", textDocument.uri, null, (doc, b) => {
      const prepared = prepareRename(b, doc, position);
      return { range: range(prepared.range), placeholder: prepared.placeholder };
    }),
  );
  connection.onRenameRequest(({ textDocument, position, newName }) =>
    guarded("rename", (): WorkspaceEdit => {
      const doc = pathOf(textDocument.uri);
      if (doc === undefined) throw new RenameRefused("only the blocks of `literate/*.md` are renamed here");
      const b = requireBook();
      b.widen(undefined);
      const edits = rename(b, doc, position, newName);
      const outside = root === undefined ? [] : filesNamingTheBook(root, new Set(b.tangled().result.files.keys()), prepareRename(b, doc, position).placeholder);
      if (outside.length > 0) void connection.sendNotification("window/showMessage", { type: MessageType.Warning, message: renamedInTheBookOnly(outside) });
      return { changes: Object.fromEntries([...edits].map(([path, list]) => [uriOf(path), list.map((e) => ({ range: range(e.range), newText: e.newText }))])) };
    }),
  );

  connection.onCodeLens(({ textDocument }) =>
    inChapter("code lens", textDocument.uri, [], (doc, b): CodeLens[] => {
      const judgement = b.latestJudgement;
      if (judgement === undefined) return [];
      return lenses(judgement, doc).map((lens) => ({ range: range(lens.range), data: { ...lens, doc } satisfies LensData }));
    }),
  );
  connection.onCodeLensResolve((lens) =>
    guarded("code lens", (): CodeLens => {
      const data = lens.data as LensData;
      const b = requireBook();
      const uri = uriOf(data.doc);
      if (data.names === "tests") {
        b.widen(undefined);
        const judgement = b.latestJudgement;
        const refs = judgement === undefined ? [] : testedBy(b, judgement, data.block);
        const title = `tested by ${testBlockCount(b, refs)}${data.title === "" ? " ✓" : ` ✗ (${data.title})`}`;
        return { ...lens, command: { title, command: "editor.action.showReferences", arguments: [uri, lens.range.start, refs.map(bookLocation)] } };
      }
      if (data.names === "mutants" && root !== undefined) return { ...lens, command: { title: data.title, command: "vscode.open", arguments: [pathToFileURL(resolve(root, recordPath(data.doc))).href] } };
      return { ...lens, command: { title: data.title, command: "" } };
    }),
  );

  documents.listen(connection);
  connection.listen();
}

/** What a rename says when files outside the book name the renamed name: they are not edited. */
function renamedInTheBookOnly(paths: readonly string[]): string {
  return `renamed in the book only: ${paths.map((p) => `\`${p}\``).join(", ")} import${paths.length === 1 ? "s" : ""} generated/ and name${paths.length === 1 ? "s" : ""} it too, and ${paths.length === 1 ? "is" : "are"} not edited (the server edits the blocks of \`literate/*.md\`); rename there by hand, or rename in generated/ with TypeScript and run \`npm run stitch\``;
}

const range = (r: Span): Range => ({ start: { ...r.start }, end: { ...r.end } });

function symbol(entry: OutlineEntry): DocumentSymbol {
  return { name: entry.name, kind: kinds[entry.kind]?.[0] ?? SymbolKind.Variable, range: range(entry.range), selectionRange: range(entry.selectionRange), children: entry.children.map(symbol) };
}

/** The protocol's symbol and completion kinds of a TypeScript element kind (any other: a variable, and text). */
const kinds: Readonly<Record<string, readonly [SymbolKind, CompletionItemKind]>> = {
  function: [SymbolKind.Function, CompletionItemKind.Function],
  "local function": [SymbolKind.Function, CompletionItemKind.Function],
  method: [SymbolKind.Method, CompletionItemKind.Method],
  class: [SymbolKind.Class, CompletionItemKind.Class],
  interface: [SymbolKind.Interface, CompletionItemKind.Interface],
  type: [SymbolKind.TypeParameter, CompletionItemKind.TypeParameter],
  enum: [SymbolKind.Enum, CompletionItemKind.Enum],
  "enum member": [SymbolKind.EnumMember, CompletionItemKind.EnumMember],
  const: [SymbolKind.Constant, CompletionItemKind.Constant],
  let: [SymbolKind.Variable, CompletionItemKind.Variable],
  var: [SymbolKind.Variable, CompletionItemKind.Variable],
  "local var": [SymbolKind.Variable, CompletionItemKind.Variable],
  parameter: [SymbolKind.Variable, CompletionItemKind.Variable],
  alias: [SymbolKind.Variable, CompletionItemKind.Variable],
  property: [SymbolKind.Property, CompletionItemKind.Property],
  getter: [SymbolKind.Property, CompletionItemKind.Property],
  setter: [SymbolKind.Property, CompletionItemKind.Property],
  // `as const`: the key `constructor` takes no contextual type from the record.
  constructor: [SymbolKind.Constructor, CompletionItemKind.Constructor] as const,
  keyword: [SymbolKind.Variable, CompletionItemKind.Keyword],
  module: [SymbolKind.Module, CompletionItemKind.Module],
};
