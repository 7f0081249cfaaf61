/**
 * Planning writes: the decision table of `planWrites` over hashes, with the disk faked by a map of
 * hashes (the function takes the disk as a parameter, so no mock is needed).
 */
import { describe, expect, it } from "vitest";
import { manifestPath } from "../../tools/lib/core/paths.ts";
import { formatManifest, parseManifest, planWrites, sha256, type Action, type DiskEntry, type Manifest } from "../../tools/lib/core/plan.ts";

const handEditedHint = "run `npm run stitch` to take the edit back into the Markdown (or move it there by hand, then run `npm run tangle -- --force` to overwrite the file)";

/** A disk holding these contents (path → content). */
function disk(contents: Readonly<Record<string, string>>): (path: string) => DiskEntry {
  return (path) => {
    const content = contents[path];
    return content === undefined ? { exists: false } : { exists: true, hash: sha256(content) };
  };
}

function manifestOf(contents: Readonly<Record<string, string>>): Manifest {
  const files: Record<string, string> = {};
  for (const [path, content] of Object.entries(contents)) files[path] = sha256(content);
  return { version: 1, files };
}

const files = (contents: Readonly<Record<string, string>>): ReadonlyMap<string, string> => new Map(Object.entries(contents));

/** The actions other than the manifest's own write. */
const fileActions = (actions: readonly Action[]): Action[] => actions.filter((a) => a.path !== manifestPath);

describe("planWrites", () => {
  it("writes a target that does not exist yet, and the manifest", () => {
    const plan = planWrites(files({ "generated/a.ts": "A" }), undefined, disk({}));
    expect(plan.actions).toEqual([
      { kind: "write", path: "generated/a.ts", content: "A", reason: "new" },
      { kind: "write", path: manifestPath, content: plan.manifestText, reason: "new" },
    ]);
    expect(plan.conflicts).toEqual([]);
    expect(plan.manifest).toEqual({ version: 1, files: { "generated/a.ts": sha256("A") } });
  });

  it("leaves alone a target whose content would not change, and a manifest that is current", () => {
    const manifest = manifestOf({ "generated/a.ts": "A" });
    const plan = planWrites(files({ "generated/a.ts": "A" }), manifest, disk({ "generated/a.ts": "A", [manifestPath]: formatManifest(manifest) }));
    expect(plan.actions).toEqual([]);
    expect(plan.unchanged).toEqual(["generated/a.ts"]);
  });

  it("rewrites a target tangle wrote and nobody touched", () => {
    const plan = planWrites(files({ "generated/a.ts": "A2" }), manifestOf({ "generated/a.ts": "A" }), disk({ "generated/a.ts": "A" }));
    expect(fileActions(plan.actions)).toEqual([{ kind: "write", path: "generated/a.ts", content: "A2", reason: "changed" }]);
    expect(plan.conflicts).toEqual([]);
  });

  it("adopts a file that already holds exactly what it would write", () => {
    const plan = planWrites(files({ "generated/a.ts": "A" }), undefined, disk({ "generated/a.ts": "A" }));
    expect(fileActions(plan.actions)).toEqual([]);
    expect(plan.unchanged).toEqual(["generated/a.ts"]);
    expect(plan.manifest.files).toEqual({ "generated/a.ts": sha256("A") });
  });

  it.each<[string, Manifest | undefined, Readonly<Record<string, string>>, string, string]>([
    [
      "a file tangle never wrote",
      undefined,
      { "generated/a.ts": "mine" },
      "not-ours",
      "`generated/a.ts` exists and was not written by tangle",
    ],
    [
      "a file edited by hand since tangle wrote it",
      manifestOf({ "generated/a.ts": "A" }),
      { "generated/a.ts": "A plus an edit" },
      "hand-edited",
      "`generated/a.ts` was edited by hand since tangle wrote it",
    ],
  ])("refuses to overwrite %s, and overwrites it with force", (_case, previous, onDisk, rule, message) => {
    const plan = planWrites(files({ "generated/a.ts": "A2" }), previous, disk(onDisk));
    expect(plan.conflicts).toEqual([
      {
        file: "generated/a.ts",
        line: 0,
        column: 0,
        severity: "error",
        rule,
        message,
        hint: rule === "not-ours" ? "move it away, choose another target, or run `npm run tangle -- --force` to overwrite it" : handEditedHint,
      },
    ]);
    expect(fileActions(plan.actions)).toEqual([]);
    const forced = planWrites(files({ "generated/a.ts": "A2" }), previous, disk(onDisk), { force: true });
    expect(forced.conflicts).toEqual([]);
    expect(fileActions(forced.actions)).toEqual([{ kind: "write", path: "generated/a.ts", content: "A2", reason: "changed" }]);
  });

  it("deletes a file it wrote that no document produces any more", () => {
    const plan = planWrites(files({}), manifestOf({ "generated/old.ts": "O" }), disk({ "generated/old.ts": "O" }));
    expect(fileActions(plan.actions)).toEqual([{ kind: "delete", path: "generated/old.ts" }]);
    expect(plan.manifest.files).toEqual({});
  });

  it("forgets an orphan that is already gone from the disk", () => {
    const plan = planWrites(files({}), manifestOf({ "generated/old.ts": "O" }), disk({}));
    expect(fileActions(plan.actions)).toEqual([]);
    expect(plan.conflicts).toEqual([]);
  });

  it("refuses to delete an orphan edited by hand, unless forced", () => {
    const plan = planWrites(files({}), manifestOf({ "generated/old.ts": "O" }), disk({ "generated/old.ts": "O edited" }));
    expect(plan.conflicts).toEqual([
      {
        file: "generated/old.ts",
        line: 0,
        column: 0,
        severity: "error",
        rule: "hand-edited",
        message: "`generated/old.ts` is no longer produced by any document, but was edited by hand since tangle wrote it",
        hint: "move it away, or run `npm run tangle -- --force` to delete it",
      },
    ]);
    expect(fileActions(plan.actions)).toEqual([]);
    const forced = planWrites(files({}), manifestOf({ "generated/old.ts": "O" }), disk({ "generated/old.ts": "O edited" }), { force: true });
    expect(fileActions(forced.actions)).toEqual([{ kind: "delete", path: "generated/old.ts" }]);
  });

  it("reports every conflict of a run, in path order", () => {
    const plan = planWrites(files({ "b.ts": "B", "a.ts": "A" }), undefined, disk({ "a.ts": "x", "b.ts": "y" }));
    expect(plan.conflicts.map((c) => c.file)).toEqual(["a.ts", "b.ts"]);
  });

  it("rewrites a manifest that differs from the one it would write", () => {
    const plan = planWrites(files({ "generated/a.ts": "A" }), manifestOf({ "generated/a.ts": "A" }), disk({ "generated/a.ts": "A", [manifestPath]: "{}\n" }));
    expect(plan.actions).toEqual([{ kind: "write", path: manifestPath, content: plan.manifestText, reason: "changed" }]);
  });

  it("hashes a file given as UTF-8 bytes as it hashes the same text", () => {
    const asText = planWrites(files({ "a.ts": "café ☕" }), undefined, disk({}));
    const asBytes = planWrites(new Map([["a.ts", Buffer.from("café ☕", "utf8")]]), undefined, disk({}));
    expect(asBytes.manifest).toEqual(asText.manifest);
    expect(asBytes.manifest.files["a.ts"]).toBe(sha256("café ☕"));
  });
});

describe("the manifest", () => {
  it("serializes with sorted keys and a final newline", () => {
    expect(formatManifest({ version: 1, files: { "b.ts": "2", "a.ts": "1" } })).toBe('{\n  "version": 1,\n  "files": {\n    "a.ts": "1",\n    "b.ts": "2"\n  }\n}\n');
  });

  it("reads back what it wrote, and nothing from an absent file", () => {
    const manifest: Manifest = { version: 1, files: { "a.ts": "1" } };
    expect(parseManifest(formatManifest(manifest))).toEqual(manifest);
    expect(parseManifest(undefined)).toBeUndefined();
  });

  it("drops entries whose hash is not a string", () => {
    expect(parseManifest('{"version":1,"files":{"a.ts":"1","b.ts":2}}')).toEqual({ version: 1, files: { "a.ts": "1" } });
  });

  it.each([
    ['{"version":1}', "manifest has no `files`"],
    ["[]", "manifest has no `files`"],
    ['{"files":null}', "manifest `files` is not an object"],
  ])("refuses %s with %s", (text, message) => {
    expect(() => parseManifest(text)).toThrow(message);
  });

  it("hashes with SHA-256", () => {
    expect(sha256("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
});
