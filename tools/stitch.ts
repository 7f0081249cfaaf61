/**
 * `npm run stitch`: takes edits made to tangled files back into the Markdown they came from.
 * A thin CLI over `tools/lib/commands/stitch-command.ts`; run it in the project root.
 */
import { runCli } from "./lib/commands/cli.ts";
import { stitchCommand } from "./lib/commands/stitch-command.ts";

void runCli("stitch", (streams) => stitchCommand(process.argv.slice(2), streams));
