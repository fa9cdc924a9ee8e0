// Search as you type: the same search service as `evident search`, with
// filters by kind, path and language; results as Evidence cards.
import { api } from "./api.js";
import { show, el, evidenceCard } from "./dom.js";
import { highlight } from "./highlight.js";

const KINDS = ["", "function", "method", "class", "struct", "interface", "module", "variable", "constant", "doc"];

function select(id, options) {
  return el("select", { id }, options.map((o) => el("option", { value: o }, o || `any ${id}`)));
}

export async function searchView(main, _rest, params) {
  const input = el("input", { id: "query", type: "search", autocomplete: "off", placeholder: "Search code and docs" });
  const kind = select("kind", KINDS);
  // The languages this index holds, as `evident status` counts them.
  const status = await api("/api/status").catch(() => ({ files_by_language: [] }));
  const language = select("language", ["", ...status.files_by_language.map(({ lang }) => lang)]);
  const path = el("input", { id: "path", type: "text", placeholder: "path or glob" });
  const notes = el("p", { class: "notes" });
  const results = el("ol", { id: "results", class: "cards" });
  show(main, el("div", { class: "filters" }, input, kind, language, path), notes, results);
  input.value = params.get("q") || "";
  let asked = 0;
  async function run() {
    const mine = ++asked;
    const q = input.value;
    history.replaceState(null, "", q ? `/search?q=${encodeURIComponent(q)}` : "/search");
    const started = performance.now();
    try {
      const answer = await api("/api/search", { q, kind: kind.value, language: language.value, path: path.value });
      if (mine !== asked) return;
      results.replaceChildren(...answer.evidence.map((ev) => evidenceCard(ev, highlight)));
      notes.textContent = q ? `${answer.evidence.length} result(s) in ${Math.round(performance.now() - started)} ms` : "";
      for (const note of answer.notes) notes.append(el("span", { class: "note" }, ` ${note}`));
      results.dataset.query = q;
    } catch (error) {
      if (mine !== asked) return;
      results.replaceChildren(el("li", { class: "error" }, error.message));
    }
  }
  for (const control of [input, path]) control.addEventListener("input", run);
  for (const control of [kind, language]) control.addEventListener("change", run);
  input.focus();
  if (input.value) await run();
}
