// One definition: where and what it is, its doc, resolved callers and
// "possible" ones kept apart, what it calls, and who imports its module.
import { api, tool } from "./api.js";
import { show, el, evidenceCard, link } from "./dom.js";
import { highlight } from "./highlight.js";

function section(title, items, empty) {
  return el("section", {},
    el("h3", {}, `${title} (${items.length})`),
    items.length ? el("ol", { class: "cards" }, items.map((ev) => evidenceCard(ev, highlight))) : el("p", { class: "notes" }, empty));
}

export async function symbolView(main, name, params) {
  const path = params.get("path") || undefined;
  const found = await tool("find_symbol", path ? { name, path } : { name });
  if (found.evidence.length === 0) {
    show(main, el("p", { class: "error" }, found.summary));
    return;
  }
  const definition = found.evidence[0];
  const symbol = definition.qualified_name || definition.name;
  const [callers, callees, importers] = await Promise.all([
    tool("get_callers", { symbol, path: definition.path }).catch((e) => ({ evidence: [], summary: e.message })),
    api("/api/callees", { symbol, path: definition.path }).catch(() => ({ evidence: [] })),
    tool("find_importers", { module: definition.path }).catch(() => ({ evidence: [] })),
  ]);
  const resolved = callers.evidence.filter((ev) => ev.confidence !== "possible");
  const possible = callers.evidence.filter((ev) => ev.confidence === "possible");
  show(main, 
    el("h2", {}, symbol, " ", el("span", { class: "kind" }, definition.kind), " ",
      link(`/impact/${encodeURIComponent(symbol)}?path=${encodeURIComponent(definition.path)}`, "impact picture")),
    found.evidence.length > 1 ? el("p", { class: "notes" }, `${found.evidence.length} definitions have this name; the first is shown`) : null,
    el("ol", { class: "cards" }, evidenceCard(definition, highlight)),
    el("p", { class: "summary" }, callers.summary || ""),
    section("Callers", resolved, "no resolved call reaches it"),
    section("Possible callers (unresolved calls with its name)", possible, "none"),
    section("Calls", callees.evidence, "it calls nothing that was resolved"),
    section("Importers of its module", importers.evidence, "nothing imports its module"),
  );
}
