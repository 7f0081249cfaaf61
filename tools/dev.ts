/**
 * `npm run dev`: one long-lived process for authors. On every save of a `literate/*.md` file it
 * tangles, type-checks, runs the tests of the changed blocks, prints a verdict per changed block
 * at its Markdown line, stamps what the run proved, and serves the docs site, updating the changed
 * chapter's page in open browsers (`--docs-only`, which `npm run docs:serve` runs: the site alone).
 * A thin CLI over `tools/lib/dev/command.ts`.
 */
import { runCli } from "./lib/commands/cli.ts";
import { devCommand } from "./lib/dev/command.ts";

await runCli("dev", () => devCommand(process.argv.slice(2)));
