/** Target paths: which ones tangle may write, and how they are normalized. */
import { describe, expect, it } from "vitest";
import { checkTargetPath, isCanonicalTarget, isTypeScriptPath } from "../../tools/lib/core/paths.ts";

describe("checkTargetPath", () => {
  it.each([
    ["generated/a.ts", "generated/a.ts"],
    ["./generated/../generated/a.ts", "generated/a.ts"],
    ["generated//a.ts", "generated/a.ts"],
    ["test/a.test.ts", "test/a.test.ts"],
    ["literate-notes/x.ts", "literate-notes/x.ts"],
    [".ci/run", ".ci/run"],
  ])("accepts %s as %s", (raw, path) => {
    expect(checkTargetPath(raw)).toEqual({ ok: true, path });
  });

  it.each([
    ["generated\\a.ts", "target `generated\\a.ts` uses backslashes; write it with `/`"],
    ["a\0b.ts", "target `a\0b.ts` holds a NUL character"],
    ["generated/\u001b[2Ja.ts", "target `generated/\u001b[2Ja.ts` holds a control character"],
    ["generated/a\u009b.ts", "target `generated/a\u009b.ts` holds a control character"],
    ["/etc/passwd", "target `/etc/passwd` is absolute; targets are relative to the project root"],
    ["C:/x.ts", "target `C:/x.ts` is absolute; targets are relative to the project root"],
    ["", "target `` names a folder, not a file"],
    [".", "target `.` names a folder, not a file"],
    ["generated/", "target `generated/` names a folder, not a file"],
    ["..", "target `..` is outside the project"],
    ["../x.ts", "target `../x.ts` is outside the project"],
    ["../../etc/x", "target `../../etc/x` is outside the project"],
    ["generated/../../x.ts", "target `generated/../../x.ts` is outside the project"],
    ["literate/x.ts", "target `literate/x.ts` is inside `literate/`, which tangle never writes"],
    ["./literate/x.md", "target `./literate/x.md` is inside `literate/`, which tangle never writes"],
    ["generated/../literate/x.md", "target `generated/../literate/x.md` is inside `literate/`, which tangle never writes"],
    ["node_modules/x/index.js", "target `node_modules/x/index.js` is inside `node_modules/`, which tangle never writes"],
    [".git/config", "target `.git/config` is inside `.git/`, which tangle never writes"],
    [".cache/tangle-stat.json", "target `.cache/tangle-stat.json` is inside `.cache/`, which tangle never writes"],
    ["generated/../.cache/x.ts", "target `generated/../.cache/x.ts` is inside `.cache/`, which tangle never writes"],
    ["generated/.tangle-manifest.json", "target `generated/.tangle-manifest.json` is tangle's own manifest"],
  ])("refuses %j: %s", (raw, reason) => {
    expect(checkTargetPath(raw)).toEqual({ ok: false, reason });
  });
});

describe("isCanonicalTarget", () => {
  it("accepts a target only as tangle writes it, so a manifest cannot name a file two ways", () => {
    expect(isCanonicalTarget("generated/a.ts")).toBe(true);
    expect(isCanonicalTarget("./generated/a.ts")).toBe(false);
    expect(isCanonicalTarget("generated//a.ts")).toBe(false);
    expect(isCanonicalTarget("literate/a.md")).toBe(false);
    expect(isCanonicalTarget("../outside.ts")).toBe(false);
  });
});

describe("isTypeScriptPath", () => {
  it.each([
    ["generated/a.ts", true],
    ["test/a.test.tsx", true],
    ["generated/a.mts", true],
    ["generated/a.cts", true],
    ["generated/a.js", false],
    ["generated/a.d.json", false],
    ["generated/ts", false],
    ["README.md", false],
  ])("reads %s as TypeScript: %s", (path, expected) => {
    expect(isTypeScriptPath(path)).toBe(expected);
  });
});
