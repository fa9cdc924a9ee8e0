// Search as you type: the same search service as `evident search`, with
// filters by kind, path and language; results as Evidence cards. Each
// keystroke gets BM25's first few at once, and a pause in typing the
// hybrid ranking (the query embedded, the vectors scanned).
import { api } from "./api.js";
import { show, el, evidenceCard } from "./dom.js";
import { highlight } from "./highlight.js";

const KINDS = ["", "function", "method", "class", "struct", "interface", "module", "variable", "constant", "doc"];

function select(id, options) {
  return el("select", { id }, options.map((o) => el("option", { value: o }, o || `any ${id}`)));
}

/// How long typing must pause before the hybrid search (words and meaning)
/// replaces the BM25 results each keystroke gets.
const PAUSE_MS = 250;
/// BM25 results while typing: few cards draw fast.
const TYPING_LIMIT = 10;

export async function searchView(main, _rest, params) {
  const input = el("input", { id: "query", type: "search", autocomplete: "off", placeholder: "Search code and docs" });
  const kind = select("kind", KINDS);
  const language = select("language", [""]);
  const path = el("input", { id: "path", type: "text", placeholder: "path or glob" });
  const notes = el("p", { class: "notes" });
  const results = el("ol", { id: "results", class: "cards" });
  show(main, el("div", { class: "filters" }, input, kind, language, path), notes, results);
  // The languages this index holds, as `evident status` counts them; the
  // search box does not wait for them.
  api("/api/status").then((status) => {
    for (const { lang } of status.files_by_language) language.append(el("option", { value: lang }, lang));
  }).catch(() => {});
  input.value = params.get("q") || "";
  let inFlight = null;
  let pause = null;

  /// One search; a newer one aborts it, so only the latest draws.
  async function ask(mode, limit) {
    inFlight?.abort();
    const mine = new AbortController();
    inFlight = mine;
    const q = input.value;
    const started = performance.now();
    try {
      const answer = await api("/api/search", { q, kind: kind.value, language: language.value, path: path.value, mode, limit },
        { signal: mine.signal });
      if (mine.signal.aborted) return;
      results.replaceChildren(...answer.evidence.map((ev) => evidenceCard(ev, highlight)));
      const how = mode === "bm25" ? "words" : "words and meaning";
      notes.textContent = q ? `${answer.evidence.length} result(s) by ${how} in ${Math.round(performance.now() - started)} ms` : "";
      for (const note of answer.notes) notes.append(el("span", { class: "note" }, ` ${note}`));
      results.dataset.mode = mode;
      results.dataset.query = q;
    } catch (error) {
      if (mine.signal.aborted) return;
      results.replaceChildren(el("li", { class: "error" }, error.message));
    }
  }

  function run() {
    const q = input.value;
    history.replaceState(null, "", q ? `/search?q=${encodeURIComponent(q)}` : "/search");
    clearTimeout(pause);
    if (!q.trim()) {
      inFlight?.abort();
      results.replaceChildren();
      notes.textContent = "";
      results.dataset.query = q;
      return;
    }
    ask("bm25", TYPING_LIMIT);
    pause = setTimeout(() => ask("hybrid", undefined), PAUSE_MS);
  }
  for (const control of [input, path]) control.addEventListener("input", run);
  for (const control of [kind, language]) control.addEventListener("change", run);
  input.focus();
  if (input.value) {
    await ask("hybrid", undefined);
    history.replaceState(null, "", `/search?q=${encodeURIComponent(input.value)}`);
  }
}
