/** Diagnostics: the one shape every check reports in, and how it prints. */
import { describe, expect, it } from "vitest";
import { LiterateError, error, formatDiagnostic, formatLocation, hasErrors, sortDiagnostics, visible, warning } from "../../tools/lib/core/diagnostics.ts";

const here = { file: "literate/loop.md", line: 57, column: 3 };

describe("diagnostics", () => {
  it.each([
    [{ file: "literate/loop.md", line: 57, column: 3 }, "literate/loop.md:57:3"],
    [{ file: "literate/loop.md", line: 57, column: 0 }, "literate/loop.md:57:1"],
    [{ file: "generated/a.ts", line: 0, column: 0 }, "generated/a.ts"],
  ])("formats the location %j as %s", (at, want) => {
    expect(formatLocation(at)).toBe(want);
  });

  it("prints an error as `file:line:col rule: message` and an indented hint line", () => {
    expect(formatDiagnostic(error(here, "unknown-reference", "`<<x>>` refers to no block", "name a block `#x`"))).toBe(
      "literate/loop.md:57:3 unknown-reference: `<<x>>` refers to no block\n  hint: name a block `#x`",
    );
  });

  it("says `warning` before the rule of a warning, and prints no hint line without a hint", () => {
    expect(formatDiagnostic(warning(here, "unclosed-fence", "never closed"))).toBe("literate/loop.md:57:3 warning unclosed-fence: never closed");
    expect("hint" in warning(here, "r", "m")).toBe(false);
  });

  it("sorts by file, line, column and rule", () => {
    const list = [error({ file: "b.md", line: 1, column: 1 }, "r", "m"), error({ file: "a.md", line: 2, column: 1 }, "r", "m"), error({ file: "a.md", line: 1, column: 5 }, "z", "m"), error({ file: "a.md", line: 1, column: 5 }, "a", "m")];
    expect(sortDiagnostics(list).map((d) => `${d.file}:${d.line}:${d.column}:${d.rule}`)).toEqual(["a.md:1:5:a", "a.md:1:5:z", "a.md:2:1:r", "b.md:1:1:r"]);
  });

  it("counts only errors as failures", () => {
    expect(hasErrors([warning(here, "r", "m")])).toBe(false);
    expect(hasErrors([warning(here, "r", "m"), error(here, "r", "m")])).toBe(true);
  });

  it("carries its diagnostics in a LiterateError, whose message prints them", () => {
    const d = error(here, "r", "m", "h");
    const e = new LiterateError([d]);
    expect(e.diagnostics).toEqual([d]);
    expect(e.message).toBe("literate/loop.md:57:3 r: m\n  hint: h");
    expect(e.name).toBe("LiterateError");
  });
});

describe("visible", () => {
  it("shows every character a terminal obeys as an escape, in a diagnostic's file, message and hint", () => {
    expect(visible("a\u001b[2J\r\n\u0085\u202eb\u200bc")).toBe("a\\x1b[2J\\x0d\\x0a\\x85\\u202eb\\u200bc");
    expect(visible("plain `é` ✓")).toBe("plain `é` ✓");
    const shown = formatDiagnostic(error({ file: "a\u001b.md", line: 0, column: 0 }, "rule", "bad `\u0007`", "hint\nnext"));
    expect(shown).toBe("a\\x1b.md rule: bad `\\x07`\n  hint: hint\\x0anext");
  });
});
