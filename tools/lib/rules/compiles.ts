/**
 * Rule 3: the block compiles. One compiler run checks the whole program; each diagnostic on a
 * tangled line is placed at its block's Markdown line and column, the rest are the book's. Every
 * tangled TypeScript target must be in the checked program, or the rule proves nothing.
 */
import { error, type Diagnostic } from "../core/diagnostics.ts";
import { isTypeScriptPath } from "../core/paths.ts";
import type { TangleResult } from "../core/tangle.ts";
import type { TypeCheckResult } from "../core/evidence.ts";
import { type Findings, type Rule } from "./rule.ts";
import { pushAt } from "../core/maps.ts";

/** Maps compiler diagnostics on tangled lines to their blocks; the rest are pushed to `global`. */
function mapCompilerDiagnostics(result: TangleResult, checked: TypeCheckResult, global: Diagnostic[]): Map<number, Diagnostic[]> {
  const byBlock = new Map<number, Diagnostic[]>();
  const targets = new Map(result.targets.map((t) => [t.path, t]));
  for (const d of checked.diagnostics) {
    const message = d.code > 0 ? `TS${d.code}: ${d.message}` : d.message;
    const target = targets.get(d.file);
    const block = target?.lineBlock[d.line - 1] ?? -1;
    if (target === undefined || block < 0) {
      global.push(error({ file: d.file === "" ? "tsconfig.json" : d.file, line: d.line, column: d.column }, "compiles", message, target === undefined ? "fix the type error" : "the error is on a line tangle wrote; check the blocks around it"));
      continue;
    }
    const mdLine = target.lineSource[d.line - 1] ?? 0;
    const column = d.column + (target.lineShift[d.line - 1] ?? 0);
    const doc = result.blocks[block]?.doc ?? d.file;
    pushAt(byBlock, block, error({ file: doc, line: mdLine, column }, "compiles", message, "fix the code in this block; the whole program is checked at once"));
  }
  return byBlock;
}

export const compiles: Rule = {
  id: "compiles",
  description: "no diagnostic of the one whole-program type-check falls on the block's lines",
  reads: ["result", "checked", "inProgram"],
  check: ({ result, checked, inProgram }): Findings => {
    const global: Diagnostic[] = [];
    const byBlock = mapCompilerDiagnostics(result, checked, global);
    if (inProgram !== undefined) {
      for (const target of result.targets) {
        if (isTypeScriptPath(target.path) && !inProgram.has(target.path)) {
          global.push(error({ file: target.path, line: 0, column: 0 }, "compiles", `\`${target.path}\` is not part of the program \`tsconfig.json\` checks`, "add its folder to `include` in tsconfig.json"));
        }
      }
    }
    return { byBlock, global };
  },
};
