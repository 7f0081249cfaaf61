// The language server in a real editor: Debian's Neovim, headless (`npm test`'s `pretest`
// installs it, tools/ensure-test-programs.sh), configured with the README's own Lua snippet, driven by a
// Lua script on the fixture book: open a chapter, hover, jump to a definition in another chapter,
// see a type error's diagnostic appear after an unsaved edit, rename across chapters.
import { spawn } from "node:child_process";
import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureBook } from "./lsp-fixture.ts";

/** The README's Neovim snippet, as a new user copies it. */
function readmeSnippet(): string {
  const readme = readFileSync("README.md", "utf8");
  const section = readme.slice(readme.indexOf("## Editing with the language server"));
  const snippet = /```lua\n([\s\S]*?)```/.exec(section)?.[1];
  if (snippet === undefined) throw new Error("the README's language server section has no Lua snippet");
  return snippet;
}

/** The script: what a user does, each result written to `out.json`. */
const script = String.raw`
local out = {}
local ok, err = pcall(function()
  vim.cmd("edit literate/paths.md")
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.wait(90000, function()
    local _, client = next(vim.lsp.buf_get_clients(buf))
    return client ~= nil and client.server_capabilities ~= nil
  end, 50), "no language client attached to literate/paths.md")
  local uri = vim.uri_from_bufnr(buf)
  local function find(text)
    for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
      local column = line:find(text, 1, true)
      if column then return i - 1, column - 1 end
    end
    error("not found: " .. text)
  end
  local function request(method, params)
    local answers, failure = vim.lsp.buf_request_sync(buf, method, params, 90000)
    assert(answers, "no answer to " .. method .. ": " .. tostring(failure))
    local _, answer = next(answers)
    assert(answer and not answer.err, method .. " failed: " .. vim.inspect(answer))
    return answer.result
  end

  local line, column = find("distance(points")
  local hover = request("textDocument/hover", { textDocument = { uri = uri }, position = { line = line, character = column } })
  out.hover = hover.contents.value

  local definition = request("textDocument/definition", { textDocument = { uri = uri }, position = { line = line, character = column } })
  vim.lsp.util.jump_to_location(definition[1], "utf-16")
  out.definition = { file = vim.api.nvim_buf_get_name(0), line = vim.api.nvim_win_get_cursor(0)[1] }
  vim.cmd("buffer " .. buf)

  local total = find("let total = 0;")
  vim.api.nvim_buf_set_lines(buf, total + 1, total + 1, false, { '  const wrong: number = "not a number";' })
  out.edited = total + 1
  vim.wait(60000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.message:find("TS2322", 1, true) then return true end
    end
    return false
  end, 50)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(out.diagnostics, { line = d.lnum, column = d.col, message = d.message }) end

  line, column = find("distance(points")
  local edit = request("textDocument/rename", { textDocument = { uri = uri }, position = { line = line, character = column }, newName = "measure" })
  vim.lsp.util.apply_workspace_edit(edit, "utf-16")
  local shapes = vim.fn.bufnr(vim.fn.getcwd() .. "/literate/shapes.md")
  out.renamed = {
    paths = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"),
    shapes = table.concat(vim.api.nvim_buf_get_lines(shapes, 0, -1, false), "\n"),
  }
end)
if not ok then out.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(out) }, "out.json")
vim.cmd("qa!")
`;

interface Outcome {
  readonly error?: string;
  readonly hover?: string;
  readonly definition?: { readonly file: string; readonly line: number };
  readonly edited?: number;
  readonly diagnostics?: readonly { readonly line: number; readonly column: number; readonly message: string }[];
  readonly renamed?: { readonly paths: string; readonly shapes: string };
}

describe("the language server in Neovim", () => {
  let root: string;
  let outcome: Outcome;

  beforeAll(async () => {
    root = fixtureBook();
    // The snippet starts `ROOT/tools/run.cjs`: the toolchain of this repository, linked in.
    symlinkSync(resolve("tools"), join(root, "tools"), "dir");
    writeFileSync(join(root, "test.lua"), `${readmeSnippet()}\n${script}`);
    const child = spawn("nvim", ["--headless", "--clean", "-c", "luafile test.lua"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => {
        child.kill();
        fail(new Error(`nvim did not finish within 150 s: ${output}`));
      }, 150_000);
      child.on("exit", () => {
        clearTimeout(timer);
        done();
      });
    });
    outcome = JSON.parse(readFileSync(join(root, "out.json"), "utf8")) as Outcome;
  }, 180_000);
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it("runs the whole session without an error", () => {
    expect(outcome.error).toBeUndefined();
  });

  it("hovers a name another chapter defines, with its type and documentation", () => {
    expect(outcome.hover).toContain("distance(a: Point, b: Point): number");
    expect(outcome.hover).toContain("The straight-line distance between two points.");
  });

  it("jumps to the definition in the other chapter's block", () => {
    const shapes = readFileSync(join(root, "literate/shapes.md"), "utf8").split("\n");
    expect(outcome.definition?.file).toBe(join(root, "literate/shapes.md"));
    expect(shapes[(outcome.definition?.line ?? 0) - 1]).toContain("export function distance(");
  });

  it("shows a type error typed into a block, unsaved, at its line", () => {
    const error = outcome.diagnostics?.find((d) => d.message.includes("TS2322"));
    expect(error?.line).toBe(outcome.edited);
    expect(error?.column).toBe("  const ".length);
  });

  it("renames a name across the two chapters' blocks", () => {
    expect(outcome.renamed?.shapes).toContain("export function measure(a: Point, b: Point): number {");
    expect(outcome.renamed?.paths).toContain('import { measure, type Point } from "./shapes.ts";');
    expect(outcome.renamed?.paths).toContain("total += measure(points[i - 1]!, points[i]!);");
    expect(outcome.renamed?.paths).not.toMatch(/distance[(,]/);
  });
});
