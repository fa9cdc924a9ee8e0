// The index: freshness, files per language, what was skipped and why.
import { api } from "./api.js";
import { show, el } from "./dom.js";

export async function statusView(main) {
  const s = await api("/api/status");
  const when = s.indexed_at ? new Date(s.indexed_at * 1000).toLocaleString() : "never";
  const stale = s.stale.modified.length + s.stale.added.length + s.stale.deleted.length > 0;
  show(main, 
    el("h2", {}, "Index"),
    el("p", { id: "freshness" }, `${s.root}: indexed ${when}${stale ? " — stale: files changed since" : " — fresh"}${s.complete ? "" : " (the last run was interrupted)"}`),
    el("table", { class: "counts" },
      el("tr", {}, el("th", {}, "language"), el("th", {}, "files")),
      s.files_by_language.map(({ lang: language, files }) => el("tr", {}, el("td", {}, language), el("td", {}, files)))),
    el("p", {}, `${s.definitions} definitions, ${s.calls} calls (${s.resolved_calls} resolved), ${s.syntax_errors} file(s) with syntax errors`),
    el("h3", {}, `Skipped (${s.skipped.length})`),
    el("ul", {}, s.skipped.map((k) => el("li", {}, `${k.path}: ${k.reason}`))),
  );
}
