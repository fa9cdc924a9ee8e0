// What a change touched: working tree against HEAD, or ?base=REV against
// HEAD. The hunks, the definitions they touch with how far each reaches,
// and the picture of what may break.
import { api } from "./api.js";
import { loadGraph } from "./load-graph.js";
import { show, el, evidenceCard, link } from "./dom.js";
import { highlight } from "./highlight.js";
import { STYLE, nodeLabel } from "./impact.js";

export async function diffView(main, _rest, params) {
  const base = params.get("base") || "";
  const report = await api("/api/diff", { base });
  const baseInput = el("input", { id: "base", type: "text", placeholder: "base revision (empty: the working tree)", value: base });
  const compare = el("button", { type: "button", id: "compare" }, "compare");
  const picture = el("div", { id: "diff-graph", class: "graph small" });
  show(main,
    el("h2", {}, `Diff: ${report.compared}`),
    el("div", { class: "filters" }, baseInput, compare),
    el("p", { id: "risk", class: "summary" }, report.risk),
    el("h3", {}, `Touched definitions (${report.touched.length})`),
    el("ol", { class: "cards", id: "touched" }, report.touched.map((t) => {
      const card = evidenceCard(t.evidence, highlight);
      card.querySelector(".card-head").append(
        el("span", { class: `change ${t.change}` }, ` ${t.change}`),
        ` · ${t.direct_callers} caller(s), ${t.affected} affected in ${t.affected_files} file(s), ${t.possible_callers} possible `,
        link(`/impact/${encodeURIComponent(t.evidence.qualified_name || t.evidence.name)}?path=${encodeURIComponent(t.evidence.path)}`, "impact"));
      return card;
    })),
    el("h3", {}, "What may break"),
    picture,
    el("h3", {}, `Hunks (${report.hunks.length})`),
    el("ol", { class: "cards", id: "hunks" }, report.hunks.map((h) => evidenceCard(h, highlight))),
    report.binary.length ? el("p", { class: "notes" }, `binary: ${report.binary.join(", ")}`) : null,
  );
  compare.addEventListener("click", () => {
    const value = baseInput.value.trim();
    history.pushState(null, "", value ? `/diff?base=${encodeURIComponent(value)}` : "/diff");
    // The page's router draws the new address (and says what went wrong).
    window.dispatchEvent(new PopStateEvent("popstate"));
  });
  const elements = [];
  const seen = new Set();
  const node = (id, classes) => {
    if (seen.has(id)) return;
    seen.add(id);
    elements.push({ group: "nodes", data: { id, label: nodeLabel(id) }, classes });
  };
  for (const t of report.touched) {
    const target = t.evidence.qualified_name || t.evidence.name;
    node(target, "target");
    for (const ev of t.affected_definitions) {
      // The affected definition, then its chain back to the touched one.
      const chain = [ev.qualified_name || ev.name, ...(ev.via || [])]
        .filter((id, i, all) => i === 0 || id !== all[i - 1]);
      chain.forEach((id) => node(id, ""));
      for (let i = 0; i + 1 < chain.length; i += 1) {
        const id = `${chain[i]}->${chain[i + 1]}`;
        if (!seen.has(id)) {
          seen.add(id);
          elements.push({ group: "edges", data: { id, source: chain[i], target: chain[i + 1] } });
        }
      }
    }
  }
  picture.dataset.nodes = String(elements.filter((e) => e.group === "nodes").length);
  if (elements.length) {
    const cytoscape = await loadGraph();
    const cy = cytoscape({ container: picture, style: STYLE, elements, maxZoom: 1.6 });
    cy.layout({ name: "breadthfirst", directed: true, roots: cy.nodes(".target") }).run();
  } else {
    picture.replaceChildren(el("p", { class: "notes" }, "nothing reaches the touched definitions"));
  }
}
