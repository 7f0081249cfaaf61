/**
 * Diagnostics: the one shape every check of the toolchain reports in.
 *
 * A diagnostic names a place an editor can jump to (`literate/loop.md:57:3`), the rule that
 * found it, a message that quotes the offending value in backticks, and at most one `hint:` line.
 * User errors (`error`), warnings and internal bugs are kept apart so exit codes can follow the
 * worst severity seen: 0 clean, 1 user errors, 2 internal bugs.
 */

/** Where a diagnostic points. `line` and `column` are 1-based; 0 means "the whole file". */
export interface Location {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** How bad a diagnostic is. Only `error` makes a run fail. */
export type Severity = "error" | "warning";

/** One problem found by tangle or verify. */
export interface Diagnostic extends Location {
  readonly severity: Severity;
  /** The rule or check that found it, e.g. `unknown-reference`, `one-definition`. */
  readonly rule: string;
  readonly message: string;
  readonly hint?: string;
}

/** Builds an error diagnostic (`warning`: a warning); `hint` is omitted when not given. */
export function error(at: Location, rule: string, message: string, hint?: string): Diagnostic {
  return { ...at, severity: "error", rule, message, ...(hint === undefined ? {} : { hint }) };
}

export function warning(at: Location, rule: string, message: string, hint?: string): Diagnostic {
  return { ...at, severity: "warning", rule, message, ...(hint === undefined ? {} : { hint }) };
}

/**
 * Characters a terminal obeys instead of showing: C0 controls (newline included: a diagnostic is
 * one line, its hint another), DEL, C1 controls, bidirectional controls and the invisible ones.
 */
const unsafeForTerminal = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;

/**
 * `text` with every character a terminal would obey shown as an escape (`\x1b`, `\u202e`), so a
 * path or value quoted in a message (a `file=` name holding `ESC[2J`, say) cannot clear, recolour
 * or reorder the terminal it is printed to.
 */
export function visible(text: string): string {
  return text.replace(unsafeForTerminal, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** `file:line:col` as editors and terminals understand it; line 0 prints just the file. */
export function formatLocation(at: Location): string {
  if (at.line <= 0) return visible(at.file);
  return `${visible(at.file)}:${at.line}:${Math.max(1, at.column)}`;
}

/**
 * Formats a diagnostic as `literate/loop.md:57:3 rule: message` followed by an indented
 * `hint:` line when there is one. Warnings say so before the rule. Every part is `visible`.
 */
export function formatDiagnostic(d: Diagnostic): string {
  const kind = d.severity === "warning" ? "warning " : "";
  const head = `${formatLocation(d)} ${kind}${d.rule}: ${visible(d.message)}`;
  return d.hint === undefined ? head : `${head}\n  hint: ${visible(d.hint)}`;
}

/** Sorts diagnostics by file, line and column so output is stable. */
export function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  return [...list].sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule),
  );
}

/** True when any diagnostic in the list is an error. */
export function hasErrors(list: readonly Diagnostic[]): boolean {
  return list.some((d) => d.severity === "error");
}

/**
 * A user error that stops a tool, carrying its diagnostics. The CLIs print them and exit 1.
 * Anything else thrown is an internal bug and exits 2.
 */
export class LiterateError extends Error {
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: readonly Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join("\n"));
    this.name = "LiterateError";
    this.diagnostics = diagnostics;
  }
}

/** Exit codes shared by every tool. */
export const ExitCode = { ok: 0, userError: 1, internalError: 2 } as const;
