// The docs site's only script: the chapter menu on narrow screens, search over an index built at
// build time, hovers (types from the one TypeScript program), copy buttons on code, and mermaid
// diagrams, loaded last. Pages read fine without it.
(() => {
  "use strict";
  const root = document.body.dataset.root || "";

  // Search first: it is what a reader reaches for while the page is still arriving. The titles'
  // index (preloaded by the page's head) answers first; the full index (prose too, with snippets)
  // is fetched on first use and replaces it, re-running the query, once it has arrived.
  const form = document.querySelector("form.search");
  const input = document.getElementById("search-input");
  const list = document.getElementById("search-results");
  const status = document.getElementById("search-status");
  const loadScript = (src) =>
    new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = src;
      s.async = false;
      s.onload = () => resolve();
      s.onerror = () => reject(new Error(`could not load ${src}`));
      document.head.appendChild(s);
    });
  if (form !== null && input !== null && list !== null && status !== null) {
    form.hidden = false;
    let engine = null;
    let full = null;
    // Requested side by side; `async = false` keeps their order of execution.
    const library = loadScript(root + "assets/minisearch.js");
    const titles = Promise.all([library, loadScript(root + "assets/search-titles.js")]).then(() => {
      if (engine === null) engine = window.MiniSearch.loadJSON(window.__searchTitles, window.__searchTitleOptions);
    });
    titles.catch((err) => console.warn(err));
    const load = () => {
      if (full === null) {
        full = Promise.all([library, loadScript(root + "assets/search-index.js")]).then(() => {
          engine = window.MiniSearch.loadJSON(window.__searchIndex, window.__searchOptions);
          if (input.value.trim() !== "") render(search(input.value));
        });
        full.catch((err) => console.warn(err));
      }
      return Promise.race([titles, full]);
    };
    // Titles first: a hit whose title holds the words outranks one that only mentions them.
    const weight = { chapter: 4, definition: 3, section: 2, api: 1.5, error: 1 };
    const kinds = { chapter: "ch", section: "§", definition: "def", api: "api", error: "err" };
    const search = (query) => {
      const q = query.trim();
      if (engine === null || q === "") return [];
      const lower = q.toLowerCase();
      const hits = engine.search(q, {
        prefix: true,
        fuzzy: 0.2,
        boost: { title: 4 },
        boostDocument: (_id, _term, stored) => (weight[stored.kind] || 1) * (stored.title.toLowerCase() === lower ? 10 : 1),
      });
      const inTitle = (hit) => Object.values(hit.match).some((fields) => fields.includes("title"));
      return hits
        .map((hit, i) => ({ hit, i, title: inTitle(hit) }))
        .sort((a, b) => (a.title === b.title ? a.i - b.i : a.title ? -1 : 1))
        .slice(0, 12)
        .map((x) => x.hit);
    };
    const open = (yes) => {
      list.hidden = !yes;
    };
    const render = (hits) => {
      list.replaceChildren(
        ...hits.map((hit) => {
          const li = document.createElement("li");
          const a = document.createElement("a");
          a.href = root + hit.href;
          const kind = document.createElement("span");
          kind.className = `kind ${hit.kind}`;
          kind.textContent = kinds[hit.kind] || hit.kind;
          const title = document.createElement("span");
          title.className = "title";
          title.textContent = hit.title;
          const where = document.createElement("span");
          where.className = "where";
          where.textContent = hit.chapter === hit.title ? "" : hit.chapter;
          a.append(kind, title, where);
          if (hit.snippet) {
            const snippet = document.createElement("span");
            snippet.className = "snippet";
            snippet.textContent = hit.snippet;
            a.append(snippet);
          }
          li.appendChild(a);
          return li;
        }),
      );
      const q = input.value.trim();
      if (hits.length === 0 && q !== "") {
        const li = document.createElement("li");
        li.className = "none";
        li.textContent = "No match";
        list.appendChild(li);
      }
      open(q !== "");
      status.textContent = q === "" ? "" : hits.length === 0 ? "No result" : `${hits.length} result${hits.length === 1 ? "" : "s"}; arrow down to reach them`;
    };
    const links = () => [...list.querySelectorAll("a")];
    input.addEventListener("focus", () => {
      load().catch((err) => console.warn(err));
    });
    input.addEventListener("input", () => {
      load().then(() => render(search(input.value)));
    });
    // The keyboard: arrows move between the input and the hits, Escape closes and comes back.
    form.addEventListener("keydown", (e) => {
      const all = links();
      const at = all.indexOf(document.activeElement);
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        if (all.length === 0) return;
        e.preventDefault();
        open(true);
        // From the input (-1) down to the first hit, from the first hit up to the input, around at the ends.
        const next = e.key === "ArrowDown" ? (at + 1 === all.length ? -1 : at + 1) : at === -1 ? all.length - 1 : at - 1;
        if (next === -1) input.focus();
        else all[next].focus();
      } else if (e.key === "Escape") {
        if (list.hidden && input.value === "") return;
        e.preventDefault();
        open(false);
        input.focus();
      }
    });
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const first = list.querySelector("a");
      if (first !== null) window.location.href = first.href;
    });
    // The list closes when focus or the pointer goes elsewhere.
    form.addEventListener("focusout", (e) => {
      if (!(e.relatedTarget instanceof Node && form.contains(e.relatedTarget))) open(false);
    });
    input.addEventListener("click", () => {
      if (input.value.trim() !== "") open(true);
    });
    document.addEventListener("click", (e) => {
      if (e.target instanceof Node && !form.contains(e.target)) open(false);
    });
  }

  // The chapter menu of a narrow screen: the header's "Chapters" opens and closes the sidebar
  // (without the script it is a link to it, which the style sheet shows when targeted).
  const menu = document.querySelector("header.top a.menu");
  const sidebar = document.getElementById("sidebar");
  if (menu !== null && sidebar !== null) {
    menu.setAttribute("role", "button");
    menu.setAttribute("aria-expanded", "false");
    menu.addEventListener("click", (e) => {
      e.preventDefault();
      const opened = sidebar.classList.toggle("open");
      menu.setAttribute("aria-expanded", String(opened));
      if (opened) sidebar.querySelector("a")?.focus();
    });
    menu.addEventListener("keydown", (e) => {
      if (e.key === " ") {
        e.preventDefault();
        menu.click();
      }
    });
  }

  // Hovers: every identifier with `data-h` shows its quick info from the page's hover table, on
  // pointer or focus. The tip stays while the pointer moves onto it (to read or select it), and
  // Escape dismisses it.
  const data = document.getElementById("hover-data");
  if (data !== null) {
    const hovers = JSON.parse(data.textContent || "{}");
    const tip = document.createElement("div");
    tip.className = "hover-tip";
    tip.setAttribute("role", "tooltip");
    tip.id = "hover-tip";
    tip.hidden = true;
    document.body.appendChild(tip);
    let shown = null;
    let hiding = 0;
    const show = (el) => {
      const text = hovers[el.dataset.h];
      if (text === undefined) return;
      clearTimeout(hiding);
      if (shown !== null && shown !== el) shown.removeAttribute("aria-describedby");
      shown = el;
      tip.textContent = text;
      tip.hidden = false;
      const r = el.getBoundingClientRect();
      const left = Math.min(r.left + window.scrollX, window.scrollX + document.documentElement.clientWidth - tip.offsetWidth - 8);
      tip.style.left = `${Math.max(4, left)}px`;
      tip.style.top = `${r.bottom + window.scrollY + 2}px`;
      el.setAttribute("aria-describedby", "hover-tip");
    };
    const hide = () => {
      clearTimeout(hiding);
      if (shown !== null) shown.removeAttribute("aria-describedby");
      shown = null;
      tip.hidden = true;
    };
    const hideSoon = () => {
      clearTimeout(hiding);
      hiding = setTimeout(hide, 300);
    };
    const hovered = (target) => (target instanceof Element ? target.closest("[data-h]") : null);
    document.addEventListener("mouseover", (e) => {
      if (e.target instanceof Node && tip.contains(e.target)) {
        clearTimeout(hiding);
        return;
      }
      const el = hovered(e.target);
      if (el !== null && el !== shown) show(el);
      else if (el !== null) clearTimeout(hiding);
    });
    document.addEventListener("mouseout", (e) => {
      const from = e.target instanceof Node && tip.contains(e.target) ? tip : hovered(e.target);
      if (from === null) return;
      const to = e.relatedTarget;
      if (to instanceof Node && (from.contains(to) || tip.contains(to) || (shown !== null && shown.contains(to)))) return;
      hideSoon();
    });
    document.addEventListener("focusin", (e) => {
      const el = hovered(e.target);
      if (el !== null) show(el);
    });
    document.addEventListener("focusout", (e) => {
      if (hovered(e.target) === shown) hide();
    });
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && shown !== null) hide();
    });
  }

  // Copy buttons: one in the head of every code block (the code without a source page's line numbers).
  for (const figure of document.querySelectorAll("figure.block, article.source")) {
    const pre = figure.querySelector("pre.code");
    const head = figure.querySelector(".block-head");
    if (pre === null) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", `Copy the code${figure.id ? ` of ${figure.querySelector(".label")?.textContent || "this block"}` : ""}`);
    button.addEventListener("click", () => {
      const copy = pre.cloneNode(true);
      for (const gutter of copy.querySelectorAll(".gutter")) gutter.remove();
      const text = copy.textContent || "";
      const done = (ok) => {
        button.textContent = ok ? "Copied" : "Copy failed";
        setTimeout(() => {
          button.textContent = "Copy";
        }, 1500);
      };
      if (navigator.clipboard !== undefined) navigator.clipboard.writeText(text).then(() => done(true), () => done(false));
      else done(false);
    });
    if (head !== null) head.appendChild(button);
    else pre.before(button);
  }

  // Wide tables scroll inside themselves; one that does takes focus, so the keyboard scrolls it too.
  const focusScrolling = () => {
    for (const table of document.querySelectorAll("main table")) {
      if (table.scrollWidth > table.clientWidth) table.tabIndex = 0;
      else table.removeAttribute("tabindex");
    }
  };
  focusScrolling();
  window.addEventListener("resize", focusScrolling);

  // Diagrams, last and only where there are any: the renderer (megabytes) is fetched after the
  // page has loaded, so search, hovers and reading never wait for it. Each `pre.mermaid` becomes an
  // SVG with a text alternative; a diagram that fails is an error shown in its place. When every
  // diagram is settled, <html data-diagrams="done"> tells tests (and anyone waiting) the page is final.
  const diagrams = [...document.querySelectorAll("pre.mermaid")];
  const script = document.body.dataset.diagramScript;
  const settle = (state) => {
    document.documentElement.dataset.diagrams = state;
  };
  if (diagrams.length === 0 || script === undefined) {
    settle("done");
    return;
  }
  const draw = () => {
    // The neutral theme in both modes: diagrams sit on a white panel (mermaid's dark theme draws labels at 4.4:1).
    window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral" });
    const drawOne = (node) =>
      window.mermaid
        .run({ nodes: [node] })
        .then(() => {
          const svg = node.querySelector("svg");
          if (svg === null) return;
          const labels = [...svg.querySelectorAll("text, .nodeLabel, .edgeLabel, foreignObject")].map((t) => (t.textContent || "").trim()).filter((t) => t !== "");
          svg.setAttribute("role", "img");
          svg.setAttribute("aria-label", `Diagram: ${[...new Set(labels)].join(", ").slice(0, 400)} (its text follows)`);
        })
        .catch((err) => {
          const message = err instanceof Error ? err.message : String(err);
          console.error(`mermaid: ${message}`);
          const shown = document.createElement("pre");
          shown.className = "diagram-error";
          shown.setAttribute("role", "alert");
          shown.textContent = `This diagram could not be drawn: ${message}`;
          node.replaceWith(shown);
        });
    // One at a time: mermaid's renderer is not safe to run concurrently.
    return diagrams.reduce((chain, node) => chain.then(() => drawOne(node)), Promise.resolve());
  };
  const start = () => {
    loadScript(script)
      .then(draw, () => {
        console.error("mermaid: the diagram library did not load");
        settle("failed");
        return undefined;
      })
      .finally(() => {
        if (document.documentElement.dataset.diagrams !== "failed") settle("done");
      });
  };
  if (document.readyState === "complete") setTimeout(start, 0);
  else window.addEventListener("load", () => setTimeout(start, 0), { once: true });
})();
