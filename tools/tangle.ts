/**
 * `npm run tangle`: writes the TypeScript (and other files) the literate documents define.
 * A thin CLI over `tools/lib/commands/tangle-command.ts`; run it in the project root.
 */
import { runCli } from "./lib/commands/cli.ts";
import { tangleCommand } from "./lib/commands/tangle-command.ts";

// Not awaited: the compiled CLI is CommonJS, which has no top-level await (runCli exits the process itself).
void runCli("tangle", (streams) => tangleCommand(process.argv.slice(2), streams));
