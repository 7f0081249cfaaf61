// The docs site's only script: hovers (types from the one TypeScript program), search over an
// index built at build time, and mermaid diagrams. Pages read fine without it.
(() => {
  "use strict";
  const root = document.body.dataset.root || "";

  // Hovers: every identifier with `data-h` shows its quick info from the page's hover table.
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
    const show = (el) => {
      const text = hovers[el.dataset.h];
      if (text === undefined) return;
      shown = el;
      tip.textContent = text;
      tip.hidden = false;
      const r = el.getBoundingClientRect();
      const left = Math.min(r.left + window.scrollX, window.scrollX + document.documentElement.clientWidth - tip.offsetWidth - 8);
      tip.style.left = `${Math.max(4, left)}px`;
      tip.style.top = `${r.bottom + window.scrollY + 4}px`;
      el.setAttribute("aria-describedby", "hover-tip");
    };
    const hide = () => {
      if (shown !== null) shown.removeAttribute("aria-describedby");
      shown = null;
      tip.hidden = true;
    };
    document.addEventListener("mouseover", (e) => {
      const el = e.target instanceof Element ? e.target.closest("[data-h]") : null;
      if (el !== null && el !== shown) show(el);
    });
    document.addEventListener("mouseout", (e) => {
      const el = e.target instanceof Element ? e.target.closest("[data-h]") : null;
      if (el !== null && !(e.relatedTarget instanceof Node && el.contains(e.relatedTarget))) hide();
    });
    document.addEventListener("focusin", (e) => {
      const el = e.target instanceof Element ? e.target.closest("[data-h]") : null;
      if (el !== null) show(el);
    });
    document.addEventListener("focusout", hide);
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape") hide();
    });
  }

  // Diagrams: mermaid turns each `pre.mermaid` into an SVG.
  // A diagram that fails is an error, shown where the diagram would be. When every diagram is
  // settled, <html data-diagrams="done"> tells tests (and anyone waiting) that the page is final.
  const diagrams = [...document.querySelectorAll("pre.mermaid")];
  if (diagrams.length > 0 && typeof window.mermaid === "undefined") {
    console.error("mermaid: the diagram library did not load");
    document.documentElement.dataset.diagrams = "failed";
  } else if (diagrams.length > 0) {
    window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral" });
    const drawOne = (node) =>
      window.mermaid.run({ nodes: [node] }).catch((err) => {
        const message = err instanceof Error ? err.message : String(err);
        console.error(`mermaid: ${message}`);
        const shown = document.createElement("pre");
        shown.className = "diagram-error";
        shown.setAttribute("role", "alert");
        shown.textContent = `This diagram could not be drawn: ${message}`;
        node.replaceWith(shown);
      });
    // One at a time: mermaid's renderer is not safe to run concurrently.
    diagrams
      .reduce((chain, node) => chain.then(() => drawOne(node)), Promise.resolve())
      .finally(() => {
        document.documentElement.dataset.diagrams = "done";
      });
  } else {
    document.documentElement.dataset.diagrams = "done";
  }

  // Search: load MiniSearch and the index on first use.
  const form = document.querySelector("form.search");
  const input = document.getElementById("search-input");
  const list = document.getElementById("search-results");
  if (form === null || input === null || list === null) return;
  form.hidden = false;
  let engine = null;
  let loading = null;
  const loadScript = (src) =>
    new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = root + src;
      s.onload = () => resolve();
      s.onerror = () => reject(new Error(`could not load ${src}`));
      document.head.appendChild(s);
    });
  const load = () => {
    if (loading === null) {
      loading = loadScript("assets/minisearch.js")
        .then(() => loadScript("assets/search-index.js"))
        .then(() => {
          engine = window.MiniSearch.loadJSON(window.__searchIndex, window.__searchOptions);
        });
    }
    return loading;
  };
  const weight = { definition: 3, heading: 1.5, prose: 1 };
  const search = (query) => {
    const q = query.trim();
    if (engine === null || q === "") return [];
    const lower = q.toLowerCase();
    const hits = engine.search(q, {
      prefix: true,
      fuzzy: 0.2,
      boost: { title: 3 },
      boostDocument: (_id, _term, stored) => (weight[stored.kind] || 1) * (stored.title.toLowerCase() === lower ? 10 : 1),
    });
    return hits.slice(0, 12);
  };
  const render = (hits) => {
    list.replaceChildren(
      ...hits.map((hit) => {
        const li = document.createElement("li");
        const a = document.createElement("a");
        a.href = root + hit.href;
        const kind = document.createElement("span");
        kind.className = `kind ${hit.kind}`;
        kind.textContent = hit.kind === "definition" ? "def" : hit.kind === "heading" ? "§" : "¶";
        const title = document.createElement("span");
        title.className = "title";
        title.textContent = hit.title;
        const where = document.createElement("span");
        where.className = "where";
        where.textContent = hit.chapter;
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
    list.hidden = hits.length === 0 && input.value.trim() === "";
    if (hits.length === 0 && input.value.trim() !== "") {
      const li = document.createElement("li");
      li.className = "none";
      li.textContent = "No match";
      list.appendChild(li);
    }
  };
  input.addEventListener("focus", () => {
    load().catch((err) => console.warn(err));
  });
  input.addEventListener("input", () => {
    load().then(() => render(search(input.value)));
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const first = list.querySelector("a");
    if (first !== null) window.location.href = first.href;
  });
  document.addEventListener("click", (e) => {
    if (e.target instanceof Node && !form.contains(e.target)) list.hidden = true;
  });
})();
