// The docs site's script, after the page is parsed: the chapter menu on narrow screens, hovers
// (types from the one TypeScript program), copy buttons on code, and mermaid diagrams, loaded
// last. Search is search.js, which runs as soon as it arrives. Pages read fine without either.
(() => {
  "use strict";
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
    const library = document.createElement("script");
    library.src = script;
    library.onload = () => void Promise.resolve().then(draw).finally(() => settle("done"));
    library.onerror = () => {
      console.error("mermaid: the diagram library did not load");
      settle("failed");
    };
    document.head.appendChild(library);
  };
  if (document.readyState === "complete") setTimeout(start, 0);
  else window.addEventListener("load", () => setTimeout(start, 0), { once: true });
})();
