/**
 * `npm run docs`: builds the rendered site into `site/` (or `--out DIR`).
 * (`npm run docs:serve` is `npm run dev -- --docs-only`: dev's watcher and server.)
 * A thin CLI over `tools/lib/docs/command.ts`.
 */
import { runCli } from "./lib/commands/cli.ts";
import { docsCommand } from "./lib/docs/command.ts";

await runCli("docs", () => docsCommand(process.argv.slice(2)));
