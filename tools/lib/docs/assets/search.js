// The docs site's search, over indexes built at build time. Loaded `async` from the head of every
// page, so it runs as soon as it arrives, while a long chapter may still be arriving: the search
// box (at the top of the body) works before the rest of the page is parsed.
(() => {
  "use strict";
  const start = () => {
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
  };
  if (document.getElementById("search-status") !== null) start();
  else document.addEventListener("DOMContentLoaded", start, { once: true });
})();
