#!/usr/bin/env node
// The `passepartout` command: runs generated/cli.ts (tangled from literate/cli.md) through tsx,
// in this process, so signals reach the CLI's handlers directly. Exit codes are main's.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../generated/cli.ts");
process.exit(await main(process.argv.slice(2)));
