/**
 * TeX's index of errors: every error message the harness and the tools can raise, found
 * statically. Two shapes count: `throw new SomethingError(message, …)` and a diagnostic built
 * with `error(at, "rule", message, …)` or `warning(…)`. Pure: file texts in, sites out.
 */
import ts from "typescript";

/** One place an error can be raised. */
export interface ErrorSite {
  readonly file: string;
  /** 1-based line of the call or `throw`. */
  readonly line: number;
  /** `throw` for a thrown error, `diagnostic` for a reported one. */
  readonly kind: "throw" | "diagnostic";
  /** The error class (`RangeError`) or the diagnostic's rule (`unknown-reference`). */
  readonly label: string;
  /** The message, with each interpolation shown as `⟨expression⟩`. */
  readonly message: string;
}

/** The text of a message argument: literal text, with interpolations shown as `⟨expression⟩`. */
export function messageText(node: ts.Expression, source: ts.SourceFile): string {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) text += `⟨${span.expression.getText(source)}⟩${span.literal.text}`;
    return text;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) return messageText(node.left, source) + messageText(node.right, source);
  if (ts.isParenthesizedExpression(node)) return messageText(node.expression, source);
  return `⟨${node.getText(source)}⟩`;
}

const diagnosticBuilders: ReadonlySet<string> = new Set(["error", "warning"]);

/** Finds the error sites of one TypeScript file. */
export function findErrorSites(file: string, text: string): ErrorSite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const sites: ErrorSite[] = [];
  const lineOf = (node: ts.Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isThrowStatement(node) && ts.isNewExpression(node.expression)) {
      const callee = node.expression.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : "";
      const first = node.expression.arguments?.[0];
      // `throw new LiterateError([error(…)])` is indexed through its diagnostics.
      if (/Error$/.test(name) && first !== undefined && !ts.isArrayLiteralExpression(first)) {
        sites.push({ file, line: lineOf(node), kind: "throw", label: name, message: messageText(first, source) });
      }
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && diagnosticBuilders.has(node.expression.text) && node.arguments.length >= 3) {
      const rule = node.arguments[1];
      const message = node.arguments[2];
      if (rule !== undefined && message !== undefined && ts.isStringLiteral(rule)) {
        sites.push({ file, line: lineOf(node), kind: "diagnostic", label: rule.text, message: messageText(message, source) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}
