/**
 * A code block as HTML: highlighted tokens with cross-reference overlays, line anchors and
 * marks on the lines a problem points at. Pure: tokens and overlays in, an HTML string out.
 */
import { escapeHtml } from "./html.ts";

/** One highlighted token of a line: its text, its start column in the line, its style. */
export interface CodeToken {
  readonly content: string;
  /** 0-based column in its line. */
  readonly column: number;
  readonly color?: string;
  /** Its colour when the reader's system is dark. */
  readonly dark?: string;
  /** Shiki's font style bits: 1 italic, 2 bold, 4 underline. */
  readonly fontStyle?: number;
}

/** A span of a line that names a symbol: a link to its definition, or the definition itself. */
export interface CodeOverlay {
  /** 0-based column where the identifier starts. */
  readonly column: number;
  readonly length: number;
  /** The page-local hover id (the key into the page's hover table), when there is hover text. */
  readonly hover?: number;
  /** Where the identifier's definition is, as a link from this page. */
  readonly href?: string;
  /** True for the identifier a definition declares. */
  readonly isDefinition: boolean;
}

/** Everything one code block renders from. */
export interface CodeView {
  /** The `id` of the block; each line gets `${id}-L${n}` (1-based within the block). */
  readonly id: string;
  readonly lang: string;
  /** Tokens per line; a line with no tokens renders empty. */
  readonly lines: readonly (readonly CodeToken[])[];
  /** Overlays per line (0-based line index), sorted by column, not overlapping. */
  readonly overlays: ReadonlyMap<number, readonly CodeOverlay[]>;
  /** Problem marks per line: the messages shown when the line is pointed at. */
  readonly marks: ReadonlyMap<number, readonly string[]>;
  /** What the block is called when it takes focus (default: its language). */
  readonly label?: string;
}

function styleOf(token: CodeToken): string {
  const parts: string[] = [];
  if (token.color !== undefined) parts.push(`color:${token.color}`);
  if (token.dark !== undefined) parts.push(`--d:${token.dark}`);
  const f = token.fontStyle ?? 0;
  if (f & 1) parts.push("font-style:italic");
  if (f & 2) parts.push("font-weight:bold");
  if (f & 4) parts.push("text-decoration:underline");
  return parts.length === 0 ? "" : ` style="${parts.join(";")}"`;
}

function openOverlay(o: CodeOverlay): string {
  const hover = o.hover === undefined ? "" : ` data-h="${o.hover}"`;
  if (o.href !== undefined && !o.isDefinition) return `<a class="ref" href="${escapeHtml(o.href)}"${hover}>`;
  // A name with a hover takes focus, so the keyboard reaches its type as the pointer does.
  return `<span class="${o.isDefinition ? "def" : "sym"}"${hover}${o.hover === undefined ? "" : ' tabindex="0"'}>`;
}

function closeOverlay(o: CodeOverlay): string {
  return o.href !== undefined && !o.isDefinition ? "</a>" : "</span>";
}

/** Renders one line's tokens, wrapping the overlaid columns: each token is cut where an overlay starts or ends. */
function renderLine(tokens: readonly CodeToken[], overlays: readonly CodeOverlay[]): string {
  let out = "";
  let open: CodeOverlay | undefined;
  for (const token of tokens) {
    const end = token.column + token.content.length;
    const cuts = new Set([token.column, end]);
    for (const o of overlays) for (const at of [o.column, o.column + o.length]) if (at > token.column && at < end) cuts.add(at);
    const bounds = [...cuts].sort((a, b) => a - b);
    for (let k = 0; k + 1 < bounds.length; k++) {
      const at = bounds[k] ?? 0;
      const o = overlays.find((overlay) => overlay.column <= at && at < overlay.column + overlay.length);
      if (o !== open) {
        if (open !== undefined) out += closeOverlay(open);
        if (o !== undefined) out += openOverlay(o);
        open = o;
      }
      out += `<span${styleOf(token)}>${escapeHtml(token.content.slice(at - token.column, (bounds[k + 1] ?? end) - token.column))}</span>`;
    }
  }
  if (open !== undefined) out += closeOverlay(open);
  return out;
}

/** Renders a whole block as `<pre><code>`, one `<span class="line">` per line. */
export function renderCode(view: CodeView): string {
  const lines = view.lines.map((tokens, i) => {
    const marks = view.marks.get(i);
    const rendered = renderLine(tokens, view.overlays.get(i) ?? []);
    const markAttrs = marks === undefined ? "" : ` data-problem="${escapeHtml(marks.join("\n"))}"`;
    return `<span class="line${marks === undefined ? "" : " problem-line"}" id="${view.id}-L${i + 1}"${markAttrs}>${rendered}</span>`;
  });
  // Focusable, so a block wider than the screen scrolls from the keyboard; named for that focus.
  return `<pre class="code" data-lang="${escapeHtml(view.lang)}" tabindex="0" aria-label="${escapeHtml(view.label ?? (view.lang === "" ? "code" : `${view.lang} code`))}"><code>${lines.join("\n")}</code></pre>`;
}

/** Splits plain text into lines of one unstyled token each (for languages the highlighter lacks). */
export function plainTokens(code: string): CodeToken[][] {
  return code.split("\n").map((line) => (line === "" ? [] : [{ content: line, column: 0 }]));
}
