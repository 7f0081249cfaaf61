import { join } from "node:path";
import { readdirSync, readFileSync } from "node:fs";
import { tangle } from "../tools/lib/tangle.ts";
import { parseLiterateDocument } from "../tools/lib/document.ts";
import { decodeTexts } from "../tools/lib/io.ts";
import { writeCorpus } from "./corpus.ts";
import { median, projectRoot, removeAll, timeOnce } from "./toolchain.ts";
const root = join("/dev/shm", `e300`);
writeCorpus(root, { documents: 300, blocksPerDocument: 20 }, projectRoot);
const names = readdirSync(join(root, "literate")).sort();
const texts = decodeTexts(names.map((n) => readFileSync(join(root, "literate", n))));
const inputs = names.map((n, i) => ({ path: `literate/${n}`, text: texts[i]! }));
const docs = new Map(inputs.map((i) => [i.path, parseLiterateDocument(i.path, i.text)]));
const t: number[] = [], p: number[] = [];
for (let r = 0; r < 60; r++) { t.push(timeOnce(() => void tangle(inputs, { parsed: (i) => docs.get(i.path) }))); p.push(timeOnce(() => { for (const i of inputs) parseLiterateDocument(i.path, i.text); })); }
console.log("emit", median(t).toFixed(1), Math.min(...t).toFixed(1), "parse", median(p).toFixed(1), Math.min(...p).toFixed(1));
removeAll(root);
