/**
 * `npm run mutate`: records which mutants of each chapter's blocks its tests kill
 * (`mutation/CHAPTER.json`), or with `--sample N` re-checks recorded kills.
 * A thin CLI over `tools/lib/commands/mutate-command.ts`.
 */
import { runCli } from "./lib/commands/cli.ts";
import { mutateCommand } from "./lib/commands/mutate-command.ts";

// Not awaited: runCli exits the process itself.
void runCli("mutate", () => mutateCommand(process.argv.slice(2)));
