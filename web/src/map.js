// The map of the repository: packages (directories) or files as nodes,
// sized by their definitions and grouped by their parent directory, the
// imports and calls between them as edges weighted by their counts, laid
// out by fcose (force-directed, clusters kept together). Dependency cycles
// are red; nodes holding the most-called definitions have a thick orange
// border. A click on a package zooms into its files; a click on a file
// opens its page, a double click zooms into its definitions; a click on a
// definition opens its symbol page. The lists beside the picture do the
// same for the keyboard.
import { api } from "./api.js";
import { loadGraph } from "./load-graph.js";
import { show, el, link, fileHref } from "./dom.js";

/// The most nodes drawn: a force layout of thousands is slow and unreadable.
const MAX_NODES = 400;

const STYLE = [
  { selector: "node", style: { label: "data(label)", shape: "round-rectangle", "background-color": "#e8eef7", "border-width": 1, "border-color": "#4a6fa5", "text-valign": "center", "text-halign": "center", "text-wrap": "wrap", "font-family": "monospace", "font-size": "data(font)", "min-zoomed-font-size": 5, width: "data(size)", height: "data(size)" } },
  { selector: "node:parent", style: { "background-color": "#f6f8fb", "border-color": "#c5ccd8", "border-style": "dashed", "text-valign": "top", "font-size": 26, color: "#5b6475" } },
  { selector: "node.hot", style: { "border-width": 4, "border-color": "#e08a00" } },
  { selector: "node.cycle", style: { "border-color": "#c00000", "background-color": "#fbe3e3" } },
  { selector: "node.hot.cycle", style: { "border-color": "#c00000", "border-width": 4 } },
  { selector: "node.outside", style: { "background-color": "#eeeeee", "border-style": "dotted" } },
  { selector: "node:selected", style: { "overlay-opacity": 0.15 } },
  { selector: "edge", style: { width: "data(width)", "curve-style": "bezier", "target-arrow-shape": "triangle", "line-color": "#8aa0c2", "target-arrow-color": "#8aa0c2", opacity: 0.8 } },
  { selector: "edge.cycle", style: { "line-color": "#c00000", "target-arrow-color": "#c00000" } },
];

const LEVELS = ["package", "file", "definition"];

function lastPart(id) {
  const parts = id.split("/");
  return parts[parts.length - 1] || id;
}

function nodeLabel(level, node) {
  if (level === "definition") return node.id.split(/[.:]/).filter(Boolean).slice(-2).join(".");
  const count = level === "package" ? `${node.files} files, ${node.definitions} defs` : `${node.definitions} defs`;
  return `${level === "package" ? node.id : lastPart(node.id)}\n${count}`;
}

/// The directory a node is grouped in (a compound node), if any: a
/// package's top directory when other packages share it (`django` holds
/// `django` and `django/db`), a file's directory.
function groupOf(level, node, sharing) {
  if (level === "definition") return node.outside ? "elsewhere" : null;
  const parts = node.id.split("/");
  if (level === "package") return sharing.get(parts[0]) > 1 ? parts[0] : null;
  return parts.length > 1 ? parts.slice(0, -1).join("/") : ".";
}

/// Where a click on a node leads: a file's or a definition's own page; a
/// package has none, so its files.
function pageHref(level, node) {
  return level === "file" ? fileHref(node.id) : zoomHref(level, node);
}

/// One level down: a package's files, a file's definitions.
function zoomHref(level, node) {
  if (level === "package") return `/map?level=file&path=${encodeURIComponent(node.id === "." ? "" : node.id)}`;
  if (level === "file") return `/map?level=definition&path=${encodeURIComponent(node.id)}`;
  return `/symbol/${encodeURIComponent(node.id)}`;
}

function elements(map) {
  const nodes = [...map.nodes].sort((a, b) => b.definitions - a.definitions || b.called - a.called).slice(0, MAX_NODES);
  const kept = new Set(nodes.map((n) => n.id));
  const sharing = new Map();
  for (const node of nodes) {
    const top = node.id.split("/")[0];
    sharing.set(top, (sharing.get(top) || 0) + 1);
  }
  const groups = new Set();
  const out = [];
  for (const node of nodes) {
    const group = groupOf(map.level, node, sharing);
    const classes = [node.in_cycle ? "cycle" : "", node.hot ? "hot" : "", node.outside ? "outside" : ""].join(" ").trim();
    // Log-scaled: a package of 3,000 definitions stays beside one of 10.
    const size = Math.round(34 + 22 * Math.log10(1 + node.definitions + (map.level === "definition" ? node.called : 0)));
    // Larger nodes, larger labels: read first when the whole map is in view.
    const data = { id: `n:${node.id}`, key: node.id, label: nodeLabel(map.level, node), size, font: Math.round(size / 5) };
    if (group !== null) {
      groups.add(group);
      data.parent = `g:${group}`;
    }
    out.push({ group: "nodes", data, classes });
  }
  for (const group of groups) out.push({ group: "nodes", data: { id: `g:${group}`, label: group } });
  for (const edge of map.edges) {
    if (!kept.has(edge.from) || !kept.has(edge.to)) continue;
    const weight = edge.imports + edge.calls;
    out.push({
      group: "edges",
      data: { id: `e:${edge.from}->${edge.to}`, source: `n:${edge.from}`, target: `n:${edge.to}`, width: 1 + Math.log10(weight) * 1.5, weight },
      classes: edge.in_cycle ? "cycle" : "",
    });
  }
  return { out, left: map.nodes.length - nodes.length };
}

/// Up the tree: the repository, then each directory of the path.
function breadcrumbs(level, path) {
  const crumbs = [link("/map?level=package", "repository")];
  const parts = path ? path.split("/") : [];
  parts.forEach((part, i) => {
    const sub = parts.slice(0, i + 1).join("/");
    const last = i === parts.length - 1;
    const href = last && level === "definition" ? fileHref(sub) : `/map?level=file&path=${encodeURIComponent(sub)}`;
    crumbs.push(" / ", link(href, part));
  });
  return el("p", { id: "map-path", class: "notes" }, ...crumbs);
}

export async function mapView(main, _rest, params, go) {
  const level = LEVELS.includes(params.get("level")) ? params.get("level") : "package";
  const path = params.get("path") || "";
  const depth = params.get("depth") || "";
  const levelPick = el("select", { id: "map-level" }, ...LEVELS.map((l) => {
    const option = el("option", { value: l }, l);
    if (l === level) option.setAttribute("selected", "");
    return option;
  }));
  const depthPick = el("input", { id: "map-depth", type: "number", min: "1", max: "12", value: depth, placeholder: "all" });
  const info = el("p", { id: "map-summary", class: "notes" });
  const canvas = el("div", { id: "map", class: "graph" });
  const detail = el("div", { id: "map-detail", class: "map-detail" });
  const cycles = el("ul", { id: "map-cycles", class: "node-list" });
  const hot = el("ol", { id: "map-hot", class: "node-list" });
  const nodeList = el("ul", { id: "map-nodes", class: "node-list" });
  show(main,
    el("h2", {}, "Map"),
    el("div", { class: "filters" }, el("label", { for: "map-level" }, "level "), levelPick,
      el("label", { for: "map-depth" }, " package depth "), depthPick),
    breadcrumbs(level, path), info,
    el("div", { class: "impact-layout" }, canvas,
      el("nav", {}, detail, el("h3", {}, "Cycles"), cycles, el("h3", {}, "Most called"), hot, el("h3", {}, "Nodes"), nodeList)));
  const reload = (changes) => {
    const next = new URLSearchParams({ level, path, depth, ...changes });
    for (const [k, v] of [...next]) if (!v) next.delete(k);
    go(`/map?${next}`);
  };
  levelPick.addEventListener("change", () => reload({ level: levelPick.value, path: levelPick.value === "package" ? "" : path }));
  depthPick.addEventListener("change", () => reload({ depth: depthPick.value }));

  const started = performance.now();
  const [map, cytoscape] = await Promise.all([api("/api/map", { level, path, depth }), loadGraph()]);
  const byKey = new Map(map.nodes.map((n) => [n.id, n]));
  const { out, left } = elements(map);
  const cy = cytoscape({ container: canvas, style: STYLE, elements: out, wheelSensitivity: 0.3, maxZoom: 2.5 });
  cy.layout({ name: "fcose", quality: "default", randomize: true, animate: false, nodeDimensionsIncludeLabels: true, idealEdgeLength: 70, nodeRepulsion: 6000, packComponents: true }).run();
  const drawn = cy.nodes().filter((n) => !n.isParent()).length;
  info.textContent = `${map.nodes.length} ${level} node(s), ${map.edges.length} dependencies, ${map.cycles.length} cycle(s)`
    + `${left ? `; the ${MAX_NODES} largest drawn` : ""}; laid out in ${Math.round(performance.now() - started)} ms`;
  canvas.dataset.nodes = String(drawn);
  canvas.dataset.edges = String(cy.edges().length);
  canvas.dataset.level = level;

  // A file's click waits a moment: it may be the first of a double click.
  let pending = null;
  const follow = (key, href) => {
    const node = byKey.get(key);
    if (node) go(href(level, node));
  };
  const describe = (key) => {
    const node = byKey.get(key);
    if (!node) return;
    const where = node.path ? link(fileHref(node.path, node.line), `${node.path}:${node.line}`) : null;
    const openFile = level === "file" ? link(fileHref(node.id), "open the file") : null;
    show(detail, el("h3", {}, node.id),
      el("p", { class: "notes" }, level === "definition"
        ? `${node.kind}; ${node.called} call(s) in${node.outside ? "; outside this file" : ""}`
        : `${node.files} file(s), ${node.definitions} definition(s), ${node.lines} lines; ${node.called} call(s) in from elsewhere`),
      node.in_cycle ? el("p", { class: "error" }, "in a dependency cycle") : null,
      el("p", {}, link(zoomHref(level, node), level === "definition" ? "open its symbol page" : "zoom in"), " ", openFile, " ", where));
  };
  cy.on("tap", "node", (event) => {
    const key = event.target.data("key");
    if (key === undefined) return; // a directory's box
    describe(key);
    clearTimeout(pending);
    if (level === "file") pending = setTimeout(() => follow(key, pageHref), 350);
    else follow(key, pageHref);
  });
  cy.on("dbltap", "node", (event) => {
    const key = event.target.data("key");
    if (key === undefined || level !== "file") return;
    clearTimeout(pending);
    follow(key, zoomHref);
  });
  cy.on("mouseover", "node", (event) => { const key = event.target.data("key"); if (key !== undefined) describe(key); });

  show(cycles, map.cycles.length ? map.cycles.map((c) => el("li", {}, `${c.length}: ${c.join(", ")}`)) : [el("li", {}, "none")]);
  show(hot, map.hot.map((h) => el("li", {}, link(`/symbol/${encodeURIComponent(h.qualified_name)}`, h.qualified_name), ` ${h.callers} call site(s)`)));
  const listed = [...map.nodes].sort((a, b) => b.definitions - a.definitions).slice(0, MAX_NODES);
  show(nodeList, listed.map((n) => el("li", { "data-node": n.id }, link(pageHref(level, n), n.id),
    level === "file" ? [" ", link(zoomHref(level, n), "definitions")] : null,
    n.in_cycle ? el("span", { class: "error" }, " cycle") : null, n.hot ? " ★" : "")));
}
