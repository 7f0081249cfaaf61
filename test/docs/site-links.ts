/**
 * The built site's internal links and loads, checked without a browser: every page's HTML is
 * parsed (parse5, the WHATWG parser, so an id or an attribute is read as a browser reads it), and
 * every link and `#anchor` that stays inside the site must land on a file the site has and, for
 * an anchor, on an element of that page with that id (or an `<a name>`). What a page loads
 * (scripts, style sheets, icons, images) must be a file of the site too, never one from outside.
 *
 * Pure: the caller reads the site (`siteLinkProblems` takes its pages' HTML and its file list).
 * The docs site's browser tests run it on every page; what needs a browser (console errors,
 * script-made links, layout) stays there.
 */
import { parse, type DefaultTreeAdapterTypes } from "parse5";

/** What links and loads are read from a page: `<a href>`, `<area href>`, and each element that makes the browser fetch a file. */
const loadAttributes: Readonly<Record<string, string>> = { script: "src", link: "href", img: "src", source: "src", iframe: "src", video: "src", audio: "src" };

/** One page as the link check reads it: the ids a link can land on, its links, and the files it loads. */
export interface PageLinks {
  /** Every `id`, and the `name` of every `<a name>`, outside `<template>` contents (which a browser does not search either). */
  readonly ids: ReadonlySet<string>;
  /** The `href` of every `<a>` and `<area>`, as written. */
  readonly links: readonly string[];
  /** The address of every script, style sheet, icon, image or frame the page loads, as written. */
  readonly loads: readonly string[];
  /** The page's `<base href>`, when it has one: links resolve against it. */
  readonly base?: string;
}

/** Reads a page's ids, links and loads from its HTML. */
export function pageLinks(html: string): PageLinks {
  const ids = new Set<string>();
  const links: string[] = [];
  const loads: string[] = [];
  let base: string | undefined;
  const visit = (node: DefaultTreeAdapterTypes.ParentNode): void => {
    for (const child of node.childNodes) {
      if (!("tagName" in child)) continue;
      const attribute = (name: string): string | undefined => child.attrs.find((a) => a.name === name && a.prefix === undefined)?.value;
      const id = attribute("id");
      if (id !== undefined && id !== "") ids.add(id);
      const tag = child.tagName;
      if (tag === "a") {
        const name = attribute("name");
        if (name !== undefined && name !== "") ids.add(name);
      }
      if (tag === "a" || tag === "area") {
        const href = attribute("href");
        if (href !== undefined) links.push(href);
      }
      if (tag === "base") base ??= attribute("href");
      const loadAttribute = loadAttributes[tag];
      const load = loadAttribute === undefined ? undefined : attribute(loadAttribute);
      if (load !== undefined && load !== "") loads.push(load);
      visit(child);
    }
  };
  visit(parse(html));
  return { ids, links, loads, ...(base === undefined ? {} : { base }) };
}

/** The origin the site's paths are resolved against: any other origin is outside the site. */
const siteOrigin = "http://site.invalid";

/** A site path (`chapters/loop.html`) as a URL of the site. */
const siteUrl = (path: string): URL => new URL(path, `${siteOrigin}/`);

/**
 * The site path an address on `page` names (a folder stands for its `index.html`), with the
 * anchor it asks for (decoded; `""` for none); `undefined` for an address outside the site or
 * one that is not a page's (`mailto:`, `javascript:`).
 */
export function siteTarget(page: string, address: string, base?: string): { path: string; anchor: string } | undefined {
  let url: URL;
  try {
    url = new URL(address, base === undefined ? siteUrl(page) : new URL(base, siteUrl(page)));
  } catch {
    return { path: address, anchor: "" };
  }
  if (url.origin !== siteOrigin) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname).replace(/^\//, "");
  } catch {
    path = url.pathname.replace(/^\//, "");
  }
  if (path === "" || path.endsWith("/")) path += "index.html";
  let anchor = url.hash.slice(1);
  try {
    anchor = decodeURIComponent(anchor);
  } catch {
    // An anchor that is not a valid encoding is looked up as written.
  }
  return { path, anchor };
}

/**
 * Every broken internal link, broken anchor, missing load and load from outside the site of the
 * pages, one line each: `FROM: broken link TO`, `FROM: broken anchor TO#ID`, `FROM: loads missing
 * TO`, `FROM: loads \`URL\` from outside the site`. `pages` maps each HTML page's site path to its
 * links (`pageLinks`); `files` holds every file of the site, pages included. An anchor is looked
 * up on its target page; on a file that is not a page, any anchor is broken.
 */
export function siteLinkProblems(pages: ReadonlyMap<string, PageLinks>, files: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const [from, page] of pages) {
    for (const link of page.links) {
      const target = siteTarget(from, link, page.base);
      if (target === undefined) continue;
      if (!files.has(target.path)) problems.push(`${from}: broken link ${link}`);
      else if (target.anchor !== "" && !pages.get(target.path)?.ids.has(target.anchor)) problems.push(`${from}: broken anchor ${target.path}#${target.anchor}`);
    }
    for (const load of page.loads) {
      if (load.startsWith("data:")) continue;
      const target = siteTarget(from, load, page.base);
      if (target === undefined) problems.push(`${from}: loads \`${load}\` from outside the site`);
      else if (!files.has(target.path)) problems.push(`${from}: loads missing ${target.path}`);
    }
  }
  return problems;
}
