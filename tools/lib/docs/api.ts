/**
 * The API reference: typedoc over the public entry, linked both ways with the chapters.
 *
 * The entry is `generated/index.ts` when it exists (the public API), otherwise every tangled
 * `generated/*.ts` file. Each reflection's "Defined in" link is pointed at the block that
 * defines it, and each block learns the API page of what it exports. Typedoc's validation
 * (undocumented exports, broken `{@link}`s) is collected; for the public entry it fails the build.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type ts from "typescript";
import { Application, Logger, LogLevel, ReflectionKind, RendererEvent, type ProjectReflection, type Reflection } from "typedoc";
import type { TangleResult } from "../core/tangle.ts";
import { chapterPath, blockAnchor } from "./html.ts";

/** Where the API pages go, below the site root. */
export const apiFolder = "api";

/** What the API build produced. */
export interface ApiResult {
  readonly entryPoints: readonly string[];
  /** Whether validation warnings fail the build. */
  readonly strict: boolean;
  /** Typedoc's validation warnings and errors, each with the block it is about when that is known. */
  readonly problems: readonly ApiProblem[];
  /** Global block index → site path of the API page of what it defines. */
  readonly pages: ReadonlyMap<number, string>;
  readonly milliseconds: number;
}

/** One of typedoc's warnings. */
export interface ApiProblem {
  readonly message: string;
  /** Global index of the block that defines the reflection the message names. */
  readonly block?: number;
}

/**
 * What must carry a doc comment: the exports themselves (typedoc's kinds for them). Members of
 * exported interfaces and classes are not required, so an export is one doc comment away from valid.
 */
const requiredToBeDocumented = ["Enum", "Variable", "Function", "Class", "Interface", "TypeAlias", "Namespace"] as const;

/** The default entry points: the public index, else every tangled file under `generated/`. */
function defaultEntryPoints(root: string, tangle: TangleResult): string[] {
  if (tangle.targets.some((t) => t.path === "generated/index.ts") || statSync(join(root, "generated/index.ts"), { throwIfNoEntry: false })?.isFile() === true) return ["generated/index.ts"];
  return tangle.targets
    .map((t) => t.path)
    .filter((p) => /^generated\/[^/]+\.(c|m)?ts$/.test(p) && !p.endsWith(".d.ts"))
    .sort();
}

/** A typedoc logger that keeps warnings and errors instead of printing them. */
class CollectingLogger extends Logger {
  readonly messages: string[] = [];
  override log(message: string, level: LogLevel): void {
    if (level >= LogLevel.Warn) this.messages.push(message);
  }
}

const linkScheme = "literate-block:";

/**
 * Builds the API pages into `${site}/api`, from `entryPoints` (project-relative; default:
 * `generated/index.ts` if it exists, else every tangled `generated/*.ts`).
 */
export async function buildApi(root: string, site: string, entryPointsAsked: readonly string[] | undefined, tangle: TangleResult, program?: ts.Program): Promise<ApiResult> {
  const started = performance.now();
  const entryPoints = entryPointsAsked === undefined ? defaultEntryPoints(root, tangle) : [...entryPointsAsked];
  // Validation warnings fail the build when the entry is the public `generated/index.ts`.
  const strict = entryPoints.includes("generated/index.ts");
  if (entryPoints.length === 0) return { entryPoints, strict, problems: [], pages: new Map(), milliseconds: performance.now() - started };

  const app = await Application.bootstrapWithPlugins({
    entryPoints: entryPoints.map((p) => join(root, p)),
    tsconfig: join(root, "tsconfig.json"),
    name: "Passepartout API",
    readme: "none",
    excludePrivate: true,
    excludeInternal: true,
    disableGit: true,
    sourceLinkTemplate: `${linkScheme}{path}#{line}`,
    skipErrorChecking: true,
    validation: { notDocumented: true, notExported: true, invalidLink: true },
    requiredToBeDocumented: [...requiredToBeDocumented],
    treatValidationWarningsAsErrors: strict,
    githubPages: false,
    hideGenerator: true,
    // Back to the chapters from every API page (rewritten relative to each page, like source links).
    navigationLinks: { "← Chapters": `${linkScheme}index.html`, "Index of definitions": `${linkScheme}index.html#definitions` },
    favicon: fileURLToPath(new URL("assets/favicon.svg", import.meta.url)),
    logLevel: "Warn",
  });
  const logger = new CollectingLogger();
  app.logger = logger;
  // Reuse the cross-references' program when it holds the entry points: no second parse and bind.
  const reused = program === undefined ? [] : entryPoints.flatMap((p) => {
    const sourceFile = program.getSourceFile(join(root, p));
    return sourceFile === undefined ? [] : [{ displayName: basename(p, extname(p)), program, sourceFile }];
  });
  const project = reused.length === entryPoints.length ? app.converter.convert(reused) : await app.convert();
  if (project === undefined) return { entryPoints, strict, problems: [...logger.messages, "typedoc could not convert the entry points"].map((message) => ({ message })), pages: new Map(), milliseconds: performance.now() - started };
  app.validate(project);

  const targets = new Map(tangle.targets.map((t) => [t.path, t]));
  const sourcesOf = (reflection: Reflection): { url?: string; fullFileName: string; line: number }[] | undefined => (reflection as { sources?: { url?: string; fullFileName: string; line: number }[] }).sources;
  const blockOf = (reflection: Reflection): number | undefined => {
    for (const source of sourcesOf(reflection) ?? []) {
      const target = targets.get(relative(root, source.fullFileName).split(sep).join("/"));
      const block = target?.lineBlock[source.line - 1] ?? -1;
      if (block >= 0) return block;
    }
    return undefined;
  };
  // Messages start with the reflection's full name (`Signal.type (Property), defined in …`).
  const byName = new Map<string, number>();
  for (const reflection of project.getReflectionsByKind(ReflectionKind.All)) {
    const sources = sourcesOf(reflection);
    if (sources === undefined) continue;
    const block = blockOf(reflection);
    if (block !== undefined && !byName.has(reflection.getFullName())) byName.set(reflection.getFullName(), block);
    const found = block === undefined ? undefined : tangle.blocks[block];
    for (const source of sources) {
      if (found === undefined) delete source.url;
      else source.url = `${linkScheme}${chapterPath(found.doc)}#${blockAnchor(found.index)}`;
    }
  }

  const out = join(site, apiFolder);
  // The router that placed every page exists only while rendering: ask it at the end event.
  let pages = new Map<number, string>();
  app.renderer.on(RendererEvent.END, () => {
    pages = pagesOfBlocks(app, project, blockOf);
  });
  await app.generateDocs(project, out);
  rewriteChapterLinks(out);
  const problems = logger.messages.map((message): ApiProblem => {
    const name = /^(\S+) \(/.exec(message)?.[1] ?? /^(\S+), defined in/.exec(message)?.[1] ?? /^The comment for (\S+) /.exec(message)?.[1];
    // A name typedoc did not document has no reflection: find its declaration in the file it names.
    const file = /, defined in (?:[^/\s]+\/)?(\S+?\.ts)\b/.exec(message)?.[1];
    const block = name === undefined ? undefined : (byName.get(name) ?? declaringBlock(targets.get(file ?? ""), name.split(".").pop() ?? name));
    return block === undefined ? { message } : { message, block };
  });
  return { entryPoints, strict, problems, pages, milliseconds: performance.now() - started };
}

/** For each block that defines a reflection with a page of its own, that page (first one wins). */
function pagesOfBlocks(app: Application, project: ProjectReflection, blockOf: (r: Reflection) => number | undefined): Map<number, string> {
  const pages = new Map<number, string>();
  const router = app.renderer.router;
  if (router === undefined) return pages;
  for (const reflection of project.getReflectionsByKind(ReflectionKind.All)) {
    if (!router.hasUrl(reflection)) continue;
    const block = blockOf(reflection);
    if (block === undefined || pages.has(block)) continue;
    pages.set(block, `${apiFolder}/${router.getFullUrl(reflection)}`);
  }
  return pages;
}

/**
 * What typedoc's default theme gets wrong for axe-core that its page can be mended for, page by
 * page: a permalink inside each section's `<summary>` (a link inside a button: axe's serious
 * `nested-interactive`) is dropped (the heading keeps its id), and its navigation landmarks get
 * names. What is left is typedoc's and moderate: no `<main>` landmark, content outside landmarks.
 */
function accessibleTypedocPage(html: string): string {
  return html
    .replace(/<summary\b[^>]*>[\s\S]*?<\/summary>/g, (summary) => summary.replace(/<a [^>]*class="tsd-anchor-icon"[^>]*>[\s\S]*?<\/a>/g, ""))
    .replace('<nav id="tsd-sidebar-links" class="tsd-navigation">', '<nav id="tsd-sidebar-links" class="tsd-navigation" aria-label="Back to the chapters">')
    .replace(/<nav class="tsd-navigation">/g, '<nav class="tsd-navigation" aria-label="API contents">');
}

/** Turns the `literate-block:` source links typedoc wrote into paths relative to each page, and mends each page's accessibility (`accessibleTypedocPage`). */
function rewriteChapterLinks(out: string): void {
  for (const entry of readdirSync(out, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".html")) continue;
    const path = join(entry.parentPath, entry.name);
    const depth = relative(out, entry.parentPath).split(sep).filter((part) => part !== "").length;
    const text = accessibleTypedocPage(readFileSync(path, "utf8"));
    // "Defined in" names the chapter and block, not the generated line it was tangled to.
    const named = text.replace(/(<a href="literate-block:chapters\/([^"#]+)\.html#block-(\d+)"[^>]*>)[^<]*(<\/a>)/g, (_m, open: string, chapter: string, block: string, close: string) => `${open}literate/${chapter}.md, block ${Number(block) + 1}${close}`);
    writeFileSync(path, named.split(linkScheme).join("../".repeat(depth + 1)));
  }
}

/** The block of `target` whose line declares `name` (`interface name`, `function name`, …). */
function declaringBlock(target: TangleResult["targets"][number] | undefined, name: string): number | undefined {
  if (target === undefined) return undefined;
  const declaration = new RegExp(`\\b(?:interface|type|class|function|const|let|var|enum)\\s+${name.replace(/[^\w$]/g, "")}\\b`);
  const line = target.content.split("\n").findIndex((text, i) => (target.lineBlock[i] ?? -1) >= 0 && declaration.test(text));
  return line < 0 ? undefined : target.lineBlock[line];
}
