/**
 * `npm run verify`: proves every definition block is one definition, has prose before it,
 * compiles, and was executed by a passing test (with a current `tested=` stamp), and that every
 * chapter imports only from earlier chapters; warns of doc comments that repeat their prose.
 * A thin CLI over `tools/lib/commands/verify-command.ts`.
 */
import { runCli } from "./lib/commands/cli.ts";
import { verifyCommand } from "./lib/commands/verify-command.ts";

// Not awaited: the compiled CLI is CommonJS, which has no top-level await (runCli exits the process itself).
void runCli("verify", (streams) => verifyCommand(process.argv.slice(2), streams));
