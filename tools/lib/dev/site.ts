/**
 * The docs site of `npm run dev`: built from the dev session's report (badges from the stamps
 * and this session's verdicts, see `devReport`), served on 127.0.0.1, and pushed to open
 * browsers. Each HTML page is served with a small script that listens to server-sent events on
 * `/__dev/events`; after a rebuild the server names the chapter pages that changed, and a
 * browser showing one of them reloads it. When the documents do not tangle, the event carries
 * the errors and the page shows them in a banner over the last good page.
 *
 * The site is written to `.cache/dev/site`, apart from `site/`: its badges are dev's, not
 * verify's. Builds run in one long-lived child, `npm run docs -- --worker` (without the API
 * reference): a build holds the CPU for seconds at a time, and in this process it would hold up
 * the next save's verdict. The child reads nothing the session already holds: each request
 * carries the documents' texts and the judge's report over the IPC channel. Builds run one at a
 * time beside the cycles; saves during a build cause one more.
 */
import { mkdirSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { formatDiagnostic } from "../core/diagnostics.ts";
import { launcher, type CycleReport } from "./session.ts";
import type { VerifyReport } from "../commands/verify.ts";
import type { WorkerReply, WorkerRequest } from "../docs/command.ts";
import { chapterPath } from "../docs/html.ts";
import { contentTypes, serveStatic } from "../docs/static.ts";

/** Where the live-update script is served, and where it listens. */
export const livePaths = { script: "/__dev/live.js", events: "/__dev/events" } as const;

/**
 * The script every page gets in dev mode: on an `update` event naming this page (or naming no
 * page: everything changed) it reloads; on a `problem` event it shows the lines in a banner.
 */
const liveScript = `(() => {
  const here = location.pathname.replace(/^\\//, "") || "index.html";
  const events = new EventSource(${JSON.stringify(livePaths.events)});
  events.addEventListener("update", (e) => {
    const pages = JSON.parse(e.data).pages;
    if (pages.length === 0 || pages.includes(here)) location.reload();
  });
  events.addEventListener("problem", (e) => {
    const lines = JSON.parse(e.data).lines;
    let banner = document.getElementById("dev-problem");
    if (lines.length === 0) return banner?.remove();
    if (banner === null) {
      banner = document.createElement("pre");
      banner.id = "dev-problem";
      banner.style.cssText = "position:fixed;top:0;left:0;right:0;margin:0;padding:1rem;background:#fff5f5;border-bottom:2px solid #cf222e;white-space:pre-wrap;z-index:9999";
      document.body.prepend(banner);
    }
    banner.textContent = lines.join("\\n");
  });
})();
`;

/** An HTML page with the live-update script added before `</body>` (or at its end). */
export function withLiveScript(html: string): string {
  const tag = `<script src="${livePaths.script}"></script>`;
  const at = html.lastIndexOf("</body>");
  return at < 0 ? `${html}${tag}` : `${html.slice(0, at)}${tag}${html.slice(at)}`;
}

/** How long the docs stay quiet after a quick build before the worker resolves every cross-reference again. */
const settleMs = 5000;

/**
 * The docs builder of a dev session: one long-lived `node tools/run.cjs docs --worker` child on
 * the dev report, asked to build once per rebuild. A child, so that a build never holds up a
 * save's verdict in this process; long-lived, so that each build starts from the last one's
 * TypeScript program and highlighter (`DocsMemory`) instead of a cold process (a new process per
 * build spent 7–8 s of its 9 s rebuilding the program for the cross-references). A worker that
 * dies is started again on the next build.
 */
class DocsWorker {
  #child: ChildProcess | undefined;
  #next = 0;
  readonly #waiting = new Map<number, (reply: Built) => void>();

  readonly #args: readonly string[];
  readonly #root: string;

  constructor(root: string, site: string) {
    this.#root = root;
    this.#args = [launcher, "docs", "--worker", "--root", root, "--out", site, "--no-api"];
  }

  /** Builds the site of `documents` with `report` once; resolves to the build's exit code (`null` if the worker died), output and rendered pages. */
  build(exact: boolean, documents: ReadonlyMap<string, string>, report: VerifyReport): Promise<Built> {
    const child = this.#start();
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      child.send({ id, exact, documents: [...documents], report } satisfies WorkerRequest);
    });
  }

  /** Has the worker compute the cross-references of `documents` now, ahead of the next build. */
  prepare(documents: ReadonlyMap<string, string>): void {
    try {
      this.#start().send({ id: this.#next++, prepare: true, documents: [...documents] } satisfies WorkerRequest);
    } catch {
      // A worker exiting right now: the build that follows starts a new one, unprepared.
    }
  }

  #start(): ChildProcess {
    if (this.#child !== undefined) return this.#child;
    const child = spawn(process.execPath, this.#args, { cwd: this.#root, stdio: ["ignore", "pipe", "pipe", "ipc"] });
    let output = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.on("message", (reply: WorkerReply) => {
      this.#waiting.get(reply.id)?.({ code: reply.code, output: reply.output, rendered: reply.rendered ?? [] });
      this.#waiting.delete(reply.id);
    });
    const gone = (): void => {
      if (this.#child === child) this.#child = undefined;
      for (const [, resolve] of this.#waiting) resolve({ code: null, output: output === "" ? "the docs worker exited" : output, rendered: [] });
      this.#waiting.clear();
    };
    child.on("error", gone);
    child.on("exit", gone);
    this.#child = child;
    return child;
  }

  /** Stops the worker; a build in progress resolves with `null`. */
  close(): void {
    this.#child?.kill();
  }
}

/** What a build of the docs worker came to: its exit code (`null`: the worker died), output and the pages it rendered anew. */
type Built = { readonly code: number | null; readonly output: string; readonly rendered: readonly string[] };

/** A running dev docs server. */
export interface DevDocs {
  readonly url: string;
  /** Rebuilds the site from a cycle's report (in the background) and tells browsers what changed. */
  readonly update: (cycle: CycleReport) => void;
  /** Called on a save with the documents as the session read them, before its verdicts: the worker starts on what the next build needs. */
  readonly prepare: (documents: ReadonlyMap<string, string>) => void;
  /** Resolves when no build is running or queued. */
  readonly idle: () => Promise<void>;
  readonly close: () => Promise<void>;
}

/** Serves `.cache/dev/site` on 127.0.0.1:`port` (0: a free port). */
export async function startDevDocs(options: { readonly root: string; readonly port: number; readonly log: (line: string) => void }): Promise<DevDocs> {
  const { root, log } = options;
  const site = join(root, ".cache", "dev", "site");
  mkdirSync(site, { recursive: true });
  const listeners = new Set<ServerResponse>();
  const send = (event: string, data: unknown): void => {
    for (const response of listeners) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const route = (path: string, request: IncomingMessage, response: ServerResponse): boolean => {
    if (path === livePaths.events) {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
      response.write(": dev\n\n");
      listeners.add(response);
      request.on("close", () => listeners.delete(response));
      return true;
    }
    if (path !== livePaths.script) return false;
    response.writeHead(200, { "content-type": contentTypes[".js"] ?? "", "cache-control": "no-store" }).end(liveScript);
    return true;
  };
  const { server, url } = await serveStatic(site, options.port, { route, page: withLiveScript, notFound: (path) => `not found: ${path} (the first build may still be running)` });

  let building: Promise<void> | undefined;
  const worker = new DocsWorker(root, site);
  let closing = false;
  // The first build resolves every identifier; each save's build only those of the changed
  // files (the page within seconds), and once the saves pause for `settleMs` one exact build
  // follows, pushing the pages it changed.
  type Queued = { readonly report: NonNullable<CycleReport["report"]>; readonly documents: ReadonlyMap<string, string>; readonly pages: Set<string> | undefined; readonly exact: boolean };
  let queued: Queued | undefined;
  let settle: { timer: NodeJS.Timeout; report: Queued["report"]; documents: Queued["documents"] } | undefined;
  let exactDone = false;
  let buildFailed = false;
  /** (Re)starts the wait for a pause in the saves, after which the exact build of `report` runs. */
  const armSettle = (report: Queued["report"], documents: Queued["documents"]): void => {
    if (settle !== undefined) clearTimeout(settle.timer);
    const timer = setTimeout(() => {
      settle = undefined;
      if (closing || queued !== undefined) return;
      queued = { report, documents, pages: undefined, exact: true };
      kick();
    }, settleMs);
    settle = { timer, report, documents };
  };
  const build = async (): Promise<void> => {
    while (queued !== undefined) {
      const { report, documents, pages, exact } = queued;
      queued = undefined;
      try {
        const started = performance.now();
        const { code, output, rendered } = await worker.build(exact || !exactDone, documents, report);
        if (closing) return;
        // Exit 1 is a site built with problems (the book's, which the verdicts already show); anything else is no site.
        if (code !== 0 && code !== 1) throw new Error(output.trim().split("\n").slice(-5).join("\n"));
        // The build's own summary says where the time went (and what came from the cache).
        const summary = /^docs: (?:OK|FAIL)[^(]*\((.*)\)$/m.exec(output)?.[1];
        const ms = Math.round(performance.now() - started);
        if (exact) {
          const changed = rendered.filter((page) => page.endsWith(".html")).sort();
          log(`dev: docs checked in ${ms} ms, every cross-reference resolved again: ${changed.length} page(s) changed`);
          if (changed.length > 0) send("update", { pages: changed });
        } else {
          log(`dev: docs updated in ${ms} ms${summary === undefined ? "" : ` (${summary})`}`);
          send("update", { pages: pages === undefined ? [] : [...pages].sort() });
          if (exactDone) armSettle(report, documents);
        }
        exactDone = true;
        if (buildFailed) send("problem", { lines: [] });
        buildFailed = false;
      } catch (caught) {
        const why = `dev: the docs did not build: ${caught instanceof Error ? caught.message : String(caught)}`;
        log(why);
        // Open pages show it over the last good page until a build succeeds.
        send("problem", { lines: why.split("\n") });
        buildFailed = true;
      }
    }
  };
  const kick = (): void => {
    if (building !== undefined) return;
    building = build().finally(() => {
      building = undefined;
      if (queued !== undefined) kick();
    });
  };
  return {
    url,
    update: (cycle) => {
      if (cycle.tangleErrors !== undefined) {
        send("problem", { lines: cycle.tangleErrors.map(formatDiagnostic) });
        return;
      }
      if (cycle.report === undefined || cycle.texts === undefined) {
        send("problem", { lines: [] });
        return;
      }
      // The first report (no document named) rebuilds everything; later ones add their chapters.
      const all = cycle.documents.length === 0 || (queued !== undefined && queued.pages === undefined && !queued.exact);
      if (settle !== undefined) clearTimeout(settle.timer);
      settle = undefined;
      queued = { report: cycle.report, documents: cycle.texts, pages: all ? undefined : new Set([...(queued?.exact === true ? [] : (queued?.pages ?? [])), ...cycle.documents.map(chapterPath)]), exact: false };
      kick();
    },
    prepare: (documents) => {
      // A save postpones the exact build: its own quick build comes first.
      if (settle !== undefined) armSettle(settle.report, settle.documents);
      if (!closing) worker.prepare(documents);
    },
    idle: async () => {
      while (building !== undefined) await building;
    },
    close: async () => {
      closing = true;
      queued = undefined;
      if (settle !== undefined) clearTimeout(settle.timer);
      worker.close();
      for (const response of listeners) response.end();
      listeners.clear();
      await building;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
