/**
 * Rule 5: pinned. Each runtime block has a record in its chapter's `mutation/CHAPTER.json`
 * (written only by `npm run mutate`) matching its hash, scoring at least 80% with declared
 * equivalents left out, and every `equivalent` declaration names a mutant that survives
 * (`judgePinned`, `core/mutation.ts`). A project with no record file at all is not judged by it.
 */
import { judgePinned, type PinnedVerdict } from "../core/mutation.ts";
import type { Rule } from "./rule.ts";

/** What rule 5 found (`judgePinned`'s verdict), with each recorded block's score and standing survivors (what the pages show). */
export type PinnedFindings = PinnedVerdict;

export const pinned: Rule<PinnedFindings> = {
  id: "pinned",
  description: "a runtime block's current mutation record shows at least 80% of its mutants killed by its chapter's tests",
  reads: ["result", "analyses", "hashes", "records"],
  check: ({ result, analyses, hashes, records }) => judgePinned(result, analyses, hashes, records),
};
