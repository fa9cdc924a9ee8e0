// The first page of evident serve: the index's status and search as you
// type. Every text from the repository is set with textContent, never as HTML.
"use strict";

async function api(path) {
  const response = await fetch(path, { credentials: "same-origin" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function tool(name, args) {
  return api(`/api/tool/${name}?args=${encodeURIComponent(JSON.stringify(args))}`);
}

async function showStatus() {
  const line = document.getElementById("status");
  try {
    const s = await api("/api/status");
    const files = s.files_by_language.reduce((n, [, count]) => n + count, 0);
    line.textContent = `${s.root}: ${files} files, ${s.definitions} definitions` +
      (s.stale ? " (stale)" : "");
  } catch (error) {
    line.textContent = `no index: ${error.message}`;
  }
}

let asked = 0;
async function search(query) {
  const mine = ++asked;
  const list = document.getElementById("results");
  if (!query.trim()) {
    list.replaceChildren();
    return;
  }
  try {
    const out = await tool("search_code", { query, limit: 20 });
    if (mine !== asked) return;
    list.replaceChildren(...out.evidence.map((ev) => {
      const item = document.createElement("li");
      const head = document.createElement("div");
      head.textContent = `${ev.path}:${ev.start_line}-${ev.end_line} ${ev.kind} ${ev.name}`;
      const snippet = document.createElement("pre");
      snippet.textContent = ev.snippet;
      item.append(head, snippet);
      return item;
    }));
  } catch (error) {
    if (mine !== asked) return;
    const item = document.createElement("li");
    item.textContent = error.message;
    list.replaceChildren(item);
  }
}

document.getElementById("query").addEventListener("input", (e) => search(e.target.value));
showStatus();
