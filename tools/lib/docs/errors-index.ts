/**
 * TeX's index of errors: every error message the harness and the tools can raise, found
 * statically from the syntax trees of the sources (test files excluded by the caller). Pure:
 * file texts in, sites out.
 *
 * Five shapes count:
 * - an error constructed anywhere (`throw new X(…)`, `Promise.reject(new X(…))`, `return new X(…)`),
 *   its message found by the class's constructor signature: the parameter named like `message`
 *   (a `code` parameter labels the entry), classes declared in any of the files, `Error` built in;
 * - a diagnostic built with `error(at, "rule", message, …)` or `warning(…)`;
 * - a problem pushed onto a list of problems (`problems.push(\`…\`)`, `issues.push(…)`): the
 *   configuration and schema validation messages;
 * - an HTTP error reply, a call with a 4xx/5xx status and `{ error: … }`;
 * - a command's `fail(message, hint)`.
 * Template literals are rendered with `…` for each interpolation; a message with no literal
 * text at all (a variable passed along) says nothing a reader can look up and is left out.
 */
import ts from "typescript";

/** One place an error can be raised. */
export interface ErrorSite {
  readonly file: string;
  /** 1-based line of the construction or call. */
  readonly line: number;
  readonly kind: "throw" | "diagnostic" | "problem" | "http" | "fail";
  /** What raises it: the error class with its code (`DelegateError invalid-config`), the rule, `HTTP 404`, `loadConfig problem`. */
  readonly label: string;
  /** The message, each run-time value shown as `…`. */
  readonly message: string;
}

/** The placeholder for a value filled in at run time. */
const placeholder = "…";

/** The text of a message argument, `…` for each interpolation; `undefined` when it has no literal text. */
export function messageText(node: ts.Expression): string | undefined {
  const text = render(node);
  return text === undefined || text.replaceAll(placeholder, "").trim() === "" ? undefined : text;
}

function render(node: ts.Expression): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) text += `${placeholder}${span.literal.text}`;
    return text;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) return `${render(node.left) ?? placeholder}${render(node.right) ?? placeholder}`;
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return render(node.expression);
  if (ts.isConditionalExpression(node)) {
    const a = render(node.whenTrue);
    const b = render(node.whenFalse);
    return a !== undefined && b !== undefined ? `${a} | ${b}` : (a ?? b);
  }
  return undefined;
}

/** An error class's constructor: parameter names, or its base's when it declares none. */
interface ErrorClass {
  readonly params?: readonly string[];
  readonly base?: string;
}

const builtinErrors = ["Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError", "URIError", "EvalError", "AggregateError"];

/** A class declared with an `extends` clause: its name, its base, its constructor's parameters. */
type DeclaredClass = ErrorClass & { readonly name: string; readonly base: string };

/**
 * What the walks of a syntax tree found, kept with the tree: a tree that a long-lived process
 * keeps between calls (`findErrorSites`'s `trees`) is walked again only when its text changed,
 * or, for its error sites, when the error classes it was read against did.
 */
const classesOfTree = new WeakMap<ts.SourceFile, readonly DeclaredClass[]>();
const sitesOfTree = new WeakMap<ts.SourceFile, { readonly classes: string; readonly sites: readonly ErrorSite[] }>();

/** The classes `source` declares with an `extends` clause. */
function classesDeclaredIn(source: ts.SourceFile): readonly DeclaredClass[] {
  const known = classesOfTree.get(source);
  if (known !== undefined) return known;
  const declared: DeclaredClass[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) && node.name !== undefined) {
      const base = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
      if (base !== undefined && ts.isIdentifier(base)) {
        const ctor = node.members.find(ts.isConstructorDeclaration);
        declared.push({ name: node.name.text, base: base.text, ...(ctor === undefined ? {} : { params: ctor.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : "")) }) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  classesOfTree.set(source, declared);
  return declared;
}

/** Collects the error classes declared in the sources: those extending a known error class. */
function errorClasses(sources: readonly ts.SourceFile[]): Map<string, ErrorClass> {
  const classes = new Map<string, ErrorClass>(builtinErrors.map((name) => [name, { params: name === "AggregateError" ? ["errors", "message"] : ["message", "options"] }]));
  const declared = sources.flatMap(classesDeclaredIn);
  // Classes extend classes declared in any order: settle until nothing new is known.
  for (let changed = true; changed; ) {
    changed = false;
    for (const d of declared) {
      if (classes.has(d.name) || !classes.has(d.base)) continue;
      classes.set(d.name, d);
      changed = true;
    }
  }
  return classes;
}

function paramsOf(classes: ReadonlyMap<string, ErrorClass>, name: string): readonly string[] {
  for (let c = classes.get(name), hops = 0; c !== undefined && hops < 20; c = c.base === undefined ? undefined : classes.get(c.base), hops++) {
    if (c.params !== undefined) return c.params;
  }
  return ["message"];
}

const messageParam = /^(message|msg|reason|detail|text|description)$/i;
const problemLists = /(problems|issues|errors|complaints)$/i;

/** The name of the function, method or class member a node is in, for labels. */
function enclosingName(node: ts.Node): string | undefined {
  for (let n: ts.Node | undefined = node.parent; n !== undefined; n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name !== undefined && ts.isIdentifier(n.name)) return n.name.text;
    if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && ts.isVariableDeclaration(n.parent) && ts.isIdentifier(n.parent.name)) return n.parent.name.text;
  }
  return undefined;
}

/**
 * Finds the error sites of a set of TypeScript files (error classes may be declared in any of
 * them). `trees`, when given, keeps each file's syntax tree between calls: a file whose text is
 * the same is not parsed again (the docs worker's builds after a one-block edit).
 */
export function findErrorSites(files: readonly { readonly file: string; readonly text: string }[], trees?: Map<string, ts.SourceFile>): ErrorSite[] {
  const sources = files.map((f) => {
    const kept = trees?.get(f.file);
    if (kept !== undefined && kept.text === f.text) return kept;
    const parsed = ts.createSourceFile(f.file, f.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    trees?.set(f.file, parsed);
    return parsed;
  });
  const kept = new Set(files.map((f) => f.file));
  for (const file of trees?.keys() ?? []) if (!kept.has(file)) trees?.delete(file);
  const classes = errorClasses(sources);
  const classesKey = JSON.stringify([...classes]);
  return sources.flatMap((source) => {
    const known = sitesOfTree.get(source);
    if (known?.classes === classesKey) return known.sites;
    const found = sitesIn(source, classes);
    sitesOfTree.set(source, { classes: classesKey, sites: found });
    return found;
  });
}

/** The error sites of one file, read against the project's error `classes`. */
function sitesIn(source: ts.SourceFile, classes: ReadonlyMap<string, ErrorClass>): ErrorSite[] {
  const sites: ErrorSite[] = [];
  const file = source.fileName;
  const lineOf = (node: ts.Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const add = (node: ts.Node, kind: ErrorSite["kind"], label: string, message: ts.Expression | undefined): void => {
    const text = message === undefined ? undefined : messageText(message);
    if (text !== undefined) sites.push({ file, line: lineOf(node), kind, label, message: text });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && classes.has(node.expression.text)) {
      const name = node.expression.text;
      const params = paramsOf(classes, name);
      const args = node.arguments ?? [];
      let index = params.findIndex((p) => messageParam.test(p));
      if (index < 0) index = args.findIndex((a) => messageText(a) !== undefined);
      const code = params.findIndex((p) => /^code$/i.test(p));
      const codeArg = code < 0 ? undefined : args[code];
      const label = codeArg !== undefined && ts.isStringLiteralLike(codeArg) ? `${name} ${codeArg.text}` : name;
      const arg = args[index];
      // An object argument carries its message as a property (`new X({ message: … })`).
      const message = arg !== undefined && ts.isObjectLiteralExpression(arg) ? propertyValue(arg, "message") : arg;
      add(node, "throw", label, message);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const args = node.arguments;
      if (ts.isIdentifier(callee) && (callee.text === "error" || callee.text === "warning") && args.length >= 3) {
        const rule = args[1];
        if (rule !== undefined && ts.isStringLiteral(rule)) add(node, "diagnostic", rule.text, args[2]);
      } else if (ts.isPropertyAccessExpression(callee) && callee.name.text === "push" && ts.isIdentifier(callee.expression) && problemLists.test(callee.expression.text) && args.length === 1) {
        const where = enclosingName(node);
        add(node, "problem", `${where === undefined ? "" : `${where} `}${callee.expression.text.replace(/s$/, "")}`, args[0]);
      } else if (ts.isIdentifier(callee) && callee.text === "fail" && args.length >= 1) {
        const where = enclosingName(node);
        add(node, "fail", where === undefined ? "failure" : `${where} failure`, args[0]);
      } else {
        const status = args.find((a): a is ts.NumericLiteral => ts.isNumericLiteral(a) && Number(a.text) >= 400 && Number(a.text) < 600);
        const body = args.find(ts.isObjectLiteralExpression);
        const message = body === undefined ? undefined : (propertyValue(body, "error") ?? propertyValue(body, "message"));
        if (status !== undefined && message !== undefined) add(node, "http", `HTTP ${status.text}`, message);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

function propertyValue(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  return object.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === name)?.initializer;
}
