import { describe, expect, it } from "vitest";
import { findErrorSites, messageText } from "../../tools/lib/docs/errors-index.ts";
import ts from "typescript";

const sites = (text: string, more: { file: string; text: string }[] = []) => findErrorSites([{ file: "generated/a.ts", text }, ...more]).map(({ label, message, kind }) => ({ label, message, kind }));

describe("the index of errors", () => {
  it("keeps each file's tree between calls, parses again only a changed file, forgets a removed one, and finds the same sites", () => {
    const trees = new Map<string, ts.SourceFile>();
    const base = { file: "generated/b.ts", text: "export class ToolError extends Error { constructor(code: string, message: string) { super(message); } }" };
    const user = (said: string) => ({ file: "generated/a.ts", text: `throw new ToolError("unknown-tool", "${said}");` });
    expect(findErrorSites([base, user("no tool")], trees).map((s) => s.message)).toEqual(["no tool"]);
    const baseTree = trees.get("generated/b.ts");
    const userTree = trees.get("generated/a.ts");
    expect(findErrorSites([base, user("no such tool")], trees).map((s) => s.message)).toEqual(["no such tool"]);
    expect(trees.get("generated/b.ts")).toBe(baseTree);
    expect(trees.get("generated/a.ts")).not.toBe(userTree);
    // An unchanged file is read again against a changed error class: here its message is now the first argument.
    const swapped = { ...base, text: base.text.replace("constructor(code: string, message: string)", "constructor(message: string, code: string)") };
    expect(findErrorSites([swapped, user("no such tool")], trees).map((s) => s.message)).toEqual(["unknown-tool"]);
    expect(findErrorSites([base, user("no such tool")], trees).map((s) => s.message)).toEqual(["no such tool"]);
    // Without the file that declares the error class, its construction is no error site any more.
    expect(findErrorSites([user("no such tool")], trees)).toEqual([]);
    expect([...trees.keys()]).toEqual(["generated/a.ts"]);
  });

  it("finds the message by the constructor's `message` parameter, not the first argument", () => {
    const text = `export class DelegateError extends Error { constructor(code: string, message: string) { super(message); } }
      export class HttpError extends Error { constructor(status: number, message: string) { super(message); } }
      throw new DelegateError("invalid-config", \`no actuator for \\\`\${name}\\\`\`);
      throw new HttpError(400, "bad body");`;
    expect(sites(text)).toEqual([
      { label: "DelegateError invalid-config", message: "no actuator for `…`", kind: "throw" },
      { label: "HttpError", message: "bad body", kind: "throw" },
    ]);
  });

  it("counts errors created without `throw` and classes declared in another file or inherited", () => {
    const base = { file: "generated/b.ts", text: "export class ToolError extends Error { constructor(code: string, message: string) { super(message); } }\nexport class ShellError extends ToolError {}" };
    const text = `function f() { return Promise.reject(new ToolError("unknown-tool", "no tool")); }
      function g() { return new ShellError("invalid-result", \`exit \${code}\`); }
      const e = new RangeError("too deep");`;
    expect(sites(text, [base])).toEqual([
      { label: "ToolError unknown-tool", message: "no tool", kind: "throw" },
      { label: "ShellError invalid-result", message: "exit …", kind: "throw" },
      { label: "RangeError", message: "too deep", kind: "throw" },
    ]);
  });

  it("finds diagnostics, pushed problems, HTTP error replies and command failures", () => {
    const text = `function loadConfig() { problems.push(\`\\\`\${name}\\\` must be a number\`); }
      error(at, "unknown-reference", \`no block named \\\`\${n}\\\`\`, "hint");
      function route() { return sendJson(res, 404, { error: \`no route \\\`\${path}\\\`\` }); }
      function send() { return fail("the daemon refused the token", "hint"); }`;
    expect(sites(text)).toEqual([
      { label: "loadConfig problem", message: "`…` must be a number", kind: "problem" },
      { label: "unknown-reference", message: "no block named `…`", kind: "diagnostic" },
      { label: "HTTP 404", message: "no route `…`", kind: "http" },
      { label: "send failure", message: "the daemon refused the token", kind: "fail" },
    ]);
  });

  it("leaves out messages with no literal text and errors wrapping diagnostics", () => {
    expect(sites("throw new Error(reason); throw new LiterateError([]); throw new Error(`${a}`);")).toEqual([]);
  });

  it("renders concatenations and conditionals with placeholders", () => {
    const expr = (code: string): ts.Expression => {
      const source = ts.createSourceFile("x.ts", `(${code});`, ts.ScriptTarget.Latest, true);
      const statement = source.statements[0] as ts.ExpressionStatement;
      return (statement.expression as ts.ParenthesizedExpression).expression;
    };
    expect(messageText(expr('"a " + x + " b"'))).toBe("a … b");
    expect(messageText(expr('ok ? "yes" : "no"'))).toBe("yes | no");
  });
});
