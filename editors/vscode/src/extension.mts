/**
 * The VS Code extension: a thin language client for the book's language server. It starts
 * `node tools/run.cjs lsp --stdio --root ROOT` in the project and attaches it to the chapters,
 * `literate/**\/*.md`; everything else (diagnostics, hover, completion, definitions, rename, code
 * lenses) is the server's.
 */
import { join } from "node:path";
import { workspace, type ExtensionContext } from "vscode";
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

/** Starts the client when the workspace is a literate project. */
export async function activate(context: ExtensionContext): Promise<void> {
  const settings = workspace.getConfiguration("passepartout");
  const root = settings.get<string>("root") || workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (root === undefined) return;
  // The transport adds `--stdio` to the arguments.
  const server: ServerOptions = { command: settings.get<string>("node") || "node", args: [join(root, "tools", "run.cjs"), "lsp", "--root", root], transport: TransportKind.stdio, options: { cwd: root } };
  const options: LanguageClientOptions = { documentSelector: [{ scheme: "file", language: "markdown", pattern: `${root}/literate/**/*.md` }] };
  client = new LanguageClient("passepartout-book", "Passepartout book", server, options);
  context.subscriptions.push({ dispose: () => void client?.stop() });
  await client.start();
}

/** Stops the client (and so the server). */
export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
