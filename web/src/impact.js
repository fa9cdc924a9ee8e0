// The impact picture: what may break if a definition changes. Pan and zoom,
// a depth slider, a node's own callers added on a double click (and taken
// away on the next), edges drawn by confidence, and a click on a node shows
// its Evidence. Exported as PNG and SVG.
import { api } from "./api.js";
import { loadGraph } from "./load-graph.js";
import { show, el, evidenceCard } from "./dom.js";
import { highlight } from "./highlight.js";

/// A node's label: the last two parts of its qualified name (`helpers.clean`).
export function nodeLabel(id) {
  return id.split(/[.:]/).filter(Boolean).slice(-2).join(".");
}

export const STYLE = [
  { selector: "node", style: { label: "data(label)", shape: "round-rectangle", "background-color": "#e8eef7", "border-width": 1, "border-color": "#4a6fa5", "text-valign": "center", "font-family": "monospace", "font-size": 11, width: "label", height: 22, padding: 6 } },
  { selector: "node.target", style: { "border-width": 3, "background-color": "#fde9c8" } },
  { selector: "node.expanded", style: { "border-style": "double", "border-width": 4 } },
  { selector: "edge", style: { width: 1.5, "curve-style": "bezier", "target-arrow-shape": "triangle", "line-color": "#4a6fa5", "target-arrow-color": "#4a6fa5" } },
  { selector: "edge.name_only", style: { "line-style": "dashed" } },
  { selector: "edge.possible", style: { "line-style": "dotted", "line-color": "#999", "target-arrow-color": "#999" } },
];

function download(name, blob) {
  const a = el("a", { href: URL.createObjectURL(blob), download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export async function impactView(main, symbol, params) {
  const path = params.get("path") || "";
  const depth = el("input", { id: "depth", type: "range", min: "1", max: "6", value: params.get("depth") || "3" });
  const depthLabel = el("span", { id: "depth-label" });
  const info = el("p", { id: "impact-summary", class: "notes" });
  const canvas = el("div", { id: "graph", class: "graph" });
  const detail = el("ol", { id: "node-detail", class: "cards" });
  const nodeList = el("ul", { id: "node-list", class: "node-list" });
  const png = el("button", { id: "export-png", type: "button" }, "PNG");
  const svg = el("button", { id: "export-svg", type: "button" }, "SVG");
  show(main, 
    el("h2", {}, `Impact of ${symbol}`),
    el("div", { class: "filters" }, el("label", { for: "depth" }, "depth "), depth, depthLabel, " export ", png, svg),
    info, el("div", { class: "impact-layout" }, canvas, el("nav", {}, el("h3", {}, "Nodes"), nodeList)), detail);
  const evidence = new Map();
  const cytoscape = await loadGraph();
  let cy;

  function add(answer, expandedFrom) {
    const added = [];
    const node = (id, classes) => {
      if (cy.getElementById(id).nonempty()) return;
      const data = { id, label: nodeLabel(id) };
      if (expandedFrom) data.from = expandedFrom;
      added.push({ group: "nodes", data, classes });
    };
    for (const t of answer.targets) node(t.qualified_name, expandedFrom ? "" : "target");
    for (const ev of answer.nodes) {
      const id = ev.qualified_name || ev.name;
      evidence.set(id, ev);
      node(id, "");
    }
    const edge = (source, target, confidence) => {
      const id = `${source}->${target}`;
      if (cy.getElementById(id).nonempty() || added.some((a) => a.data.id === id)) return;
      const data = { id, source, target };
      if (expandedFrom) data.from = expandedFrom;
      added.push({ group: "edges", data, classes: confidence });
    };
    for (const [caller, callee] of answer.edges) { node(caller, ""); node(callee, ""); edge(caller, callee, "resolved"); }
    const target = answer.targets[0]?.qualified_name;
    for (const site of answer.possible) {
      const id = site.qualified_name || site.name;
      evidence.set(id, site);
      node(id, "");
      if (target) edge(id, target, "possible");
    }
    cy.add(added);
    return answer;
  }

  async function load() {
    depthLabel.textContent = ` ${depth.value}`;
    const started = performance.now();
    const answer = await api("/api/impact", { symbol, path, depth: depth.value });
    if (cy) cy.destroy();
    cy = cytoscape({ container: canvas, style: STYLE, wheelSensitivity: 0.3, maxZoom: 1.6 });
    add(answer, null);
    cy.layout({ name: "breadthfirst", directed: true, roots: cy.nodes(".target"), spacingFactor: 1.1 }).run();
    info.textContent = `${cy.nodes().length} node(s), ${cy.edges().length} edge(s); ${answer.omitted} more past the limit; ${answer.possible_total} possible call site(s); drawn in ${Math.round(performance.now() - started)} ms`;
    canvas.dataset.nodes = String(cy.nodes().length);
    cy.on("tap", "node", (event) => {
      const ev = evidence.get(event.target.id());
      detail.replaceChildren(ev ? evidenceCard(ev, highlight) : el("li", {}, event.target.id()));
    });
    cy.on("dbltap", "node", (event) => toggle(event.target.id()));
    listNodes();
  }

  /// A node's own callers, added; or, when they were, taken away.
  async function toggle(id) {
    const node = cy.getElementById(id);
    if (node.hasClass("expanded")) {
      cy.elements().filter((e) => e.data("from") === id).remove();
      node.removeClass("expanded");
    } else {
      add(await api("/api/impact", { symbol: id, depth: 1 }), id);
      node.addClass("expanded");
    }
    cy.layout({ name: "breadthfirst", directed: true, roots: cy.nodes(".target"), spacingFactor: 1.1 }).run();
    canvas.dataset.nodes = String(cy.nodes().length);
    listNodes();
  }

  /// The nodes as a list too: for the keyboard, and to expand one by name.
  function listNodes() {
    nodeList.replaceChildren(...cy.nodes().map((node) => {
      const expanded = node.hasClass("expanded");
      return el("li", {},
        el("button", { type: "button", class: "toggle", "data-node": node.id(), onclick: () => toggle(node.id()) }, expanded ? "collapse" : "expand"),
        " ",
        el("button", { type: "button", class: "show", onclick: () => node.emit("tap") }, node.id()));
    }));
  }
  depth.addEventListener("change", () => {
    history.replaceState(null, "", `${location.pathname}?path=${encodeURIComponent(path)}&depth=${depth.value}`);
    load();
  });
  png.addEventListener("click", async () => download("impact.png", await cy.png({ output: "blob-promise", full: true, bg: "#ffffff" })));
  svg.addEventListener("click", () => download("impact.svg", new Blob([cy.svg({ full: true, bg: "#ffffff" })], { type: "image/svg+xml" })));
  await load();
}
