/**
 * A chapter's Markdown as HTML: unified (remark-parse, GFM, front matter) → remark-rehype →
 * heading ids and anchors → HTML. Fenced code is handed to the caller, which knows the block
 * behind it. Front matter is dropped, as is raw HTML in the prose. Pure.
 */
import type { Element, ElementContent, Root as HastRoot } from "hast";
import { toString as hastToString } from "hast-util-to-string";
import type { Code, Root as MdastRoot } from "mdast";
import rehypeAutolinkHeadings from "rehype-autolink-headings";
import rehypeSlug from "rehype-slug";
import rehypeStringify from "rehype-stringify";
import remarkFrontmatter from "remark-frontmatter";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import remarkRehype from "remark-rehype";
import { unified } from "unified";
import { visit } from "unist-util-visit";

/** A heading of a chapter, with its anchor. */
export interface ChapterHeading {
  readonly depth: number;
  readonly id: string;
  readonly text: string;
}

/** The prose under one heading (code excluded), for search. */
export interface ChapterSection {
  readonly id: string;
  readonly heading: string;
  readonly text: string;
}

/** A rendered chapter body. */
export interface RenderedChapter {
  readonly html: string;
  readonly headings: readonly ChapterHeading[];
  readonly sections: readonly ChapterSection[];
}

/** How a chapter is rendered. */
export interface ChapterOptions {
  /** The HTML for a fenced code node (with its 1-based fence line), or `undefined` for a plain block. */
  readonly renderCode: (node: Code, fenceLine: number) => string | undefined;
  /** Rewrites a link's `href` (e.g. `loop.md` → `loop.html`); returns it unchanged when it has nothing to say. */
  readonly rewriteHref: (href: string) => string;
  /**
   * Parsed Markdown by text: parsing is most of a chapter's rendering, and the syntax tree of an
   * unchanged document is the same, so the build keeps them in its cache. Trees are not mutated.
   */
  readonly parsed?: { get(markdown: string): MdastRoot | undefined; set(markdown: string, tree: MdastRoot): void };
}

/** Renders one chapter. */
export function renderChapter(markdown: string, options: ChapterOptions): RenderedChapter {
  const headings: ChapterHeading[] = [];
  const sections: ChapterSection[] = [];
  const collect = () => (tree: HastRoot): void => {
    visit(tree, "element", (node: Element) => {
      if (node.tagName === "a" && typeof node.properties["href"] === "string") node.properties["href"] = options.rewriteHref(node.properties["href"]);
    });
    let current: { id: string; heading: string; parts: string[] } = { id: "", heading: "", parts: [] };
    const flush = (): void => {
      const text = current.parts.join(" ").replace(/\s+/g, " ").trim();
      if (text !== "") sections.push({ id: current.id, heading: current.heading, text });
    };
    for (const node of tree.children) {
      if (node.type !== "element") continue;
      const depth = /^h([1-6])$/.exec(node.tagName)?.[1];
      if (depth !== undefined) {
        const id = typeof node.properties["id"] === "string" ? node.properties["id"] : "";
        const text = hastToString({ ...node, children: node.children.filter((c) => !(c.type === "element" && c.tagName === "a")) }).trim();
        headings.push({ depth: Number(depth), id, text });
        flush();
        current = { id, heading: text, parts: [] };
      } else {
        current.parts.push(hastToString(node));
      }
    }
    flush();
  };
  const processor = unified()
    .use(remarkParse)
    .use(remarkFrontmatter, ["yaml"])
    .use(remarkGfm)
    .use(remarkRehype, {
      handlers: {
        code: (_state, node: Code): ElementContent | undefined => {
          const html = options.renderCode(node, node.position?.start.line ?? 0);
          if (html !== undefined) return { type: "raw", value: html };
          return { type: "element", tagName: "pre", properties: {}, children: [{ type: "element", tagName: "code", properties: {}, children: [{ type: "text", value: node.value }] }] };
        },
      },
    })
    .use(rehypeSlug)
    .use(rehypeAutolinkHeadings, { behavior: "append", properties: { className: ["anchor"], ariaHidden: "true", tabIndex: -1 }, content: { type: "text", value: "#" } })
    .use(collect)
    .use(rehypeStringify, { allowDangerousHtml: true });
  let tree = options.parsed?.get(markdown);
  if (tree === undefined) {
    tree = processor.parse(markdown);
    options.parsed?.set(markdown, tree);
  }
  // remark-rehype builds a new tree and reads the syntax tree only, so a cached tree is shared as is.
  const hast = processor.runSync(tree);
  const html = String(processor.stringify(hast));
  return { html, headings, sections };
}
