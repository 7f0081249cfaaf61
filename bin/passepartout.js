#!/usr/bin/env node
// The `passepartout` command (and `npm start`): runs generated/cli.ts (tangled from literate/cli.md)
// through tsx, in this process, so signals reach the CLI's handlers directly. runEntry exits with main's code.
import { register } from "tsx/esm/api";

register();
const { runEntry } = await import("../generated/cli.ts");
await runEntry(process.argv.slice(2));
