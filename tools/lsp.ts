/**
 * `npm run lsp`: the book's language server, speaking the Language Server Protocol over stdin and
 * stdout, for an editor to start. A thin CLI over `tools/lib/lsp/server.ts`; see the README,
 * "Editing with the language server".
 */
import { parseArgs } from "node:util";
import { createConnection } from "vscode-languageserver/node";
import { startServer } from "./lib/lsp/server.ts";

const usage = `usage: lsp [--root DIR] [--stdio]

  --root   the project root (default: the editor's workspace folder, or the current folder)
  --stdio  speak over stdin and stdout (the only transport; editors pass it)`;

const { values } = parseArgs({ options: { root: { type: "string" }, stdio: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } }, strict: true, allowPositionals: false });
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
// stdout is the protocol's: anything else printed there would corrupt it.
const connection = createConnection(process.stdin, process.stdout);
startServer(connection, values.root === undefined ? {} : { root: values.root });
