/**
 * The docs build on the bench corpus, beside verify's type-check of the same tree: the issue's
 * target is a docs build at most twice the type-check. The lead wires `benchDocs` into
 * bench/run.ts; `tsx bench/docs.ts` runs it alone.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDocs } from "../tools/lib/docs/build.ts";
import { runTangle } from "../tools/lib/tangle-run.ts";
import { typeCheck } from "../tools/lib/typecheck.ts";
import { writeCorpus } from "./corpus.ts";
import { median } from "./toolchain.ts";

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Corpus shape: the size bench/run.ts uses for its middle corpus. */
const spec = { documents: 50, blocksPerDocument: 20 } as const;

/** Times the docs build on a generated corpus and prints it beside verify's type-check time. */
export async function benchDocs(print: (line: string) => void): Promise<void> {
  const root = join(projectRoot, "bench", ".corpus", `docs-${spec.documents}`);
  const info = writeCorpus(root, spec, projectRoot);
  const tangled = runTangle({ root });
  if (tangled.warnings.length > 0) throw new Error(`the docs corpus tangles with warnings: ${tangled.warnings.map((w) => w.message).join("; ")}`);
  print(`## docs: corpus of ${info.documents} documents, ${info.tsBlocks} ts blocks, ${info.otherBlocks} mermaid/sh blocks`);

  typeCheck(root); // warm the file cache, as verify's own run would find it
  const checks = [typeCheck(root), typeCheck(root), typeCheck(root)];
  if (checks.some((c) => c.diagnostics.length > 0)) throw new Error("the docs corpus does not type-check");
  const checkMs = median(checks.map((c) => c.milliseconds));

  const out = join(root, "site");
  const runs = [];
  for (let i = 0; i < 2; i++) {
    rmSync(out, { recursive: true, force: true });
    runs.push(await buildDocs({ root, out }));
  }
  const last = runs[runs.length - 1];
  if (last === undefined) return;
  const t = last.timings;
  const docsMs = Math.min(...runs.map((r) => r.timings.total));
  const ratio = docsMs / checkMs;
  print(`docs build: ${docsMs.toFixed(0)} ms for ${last.pages} pages (verify ${t.verify.toFixed(0)}, cross-references ${t.xref.toFixed(0)}, API ${t.api.toFixed(0)}, render ${t.render.toFixed(0)}, write ${t.write.toFixed(0)})`);
  print(`verify type-check (${checks[0]?.compiler ?? "?"}): ${checkMs.toFixed(0)} ms`);
  print(`docs / type-check: ${ratio.toFixed(2)}× (target ≤ 2×) ${ratio <= 2 ? "OK" : "OVER"}`);
  const withoutApi = await buildDocs({ root, out, api: false });
  print(`docs build without the API reference: ${withoutApi.timings.total.toFixed(0)} ms (${(withoutApi.timings.total / checkMs).toFixed(2)}×)`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchDocs((line) => process.stdout.write(`${line}\n`));
}
