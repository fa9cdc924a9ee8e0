// A whole file, highlighted, with line anchors (#L17-L22) and its outline
// beside it. Clicking an identifier asks `def` and goes to the definition;
// Back returns.
import { api } from "./api.js";
import { show, el, fileHref, link } from "./dom.js";
import { highlight } from "./highlight.js";

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*/g;
const encoder = new TextEncoder();

/// The highlighted text cut into lines: each line a list of [classes, text].
function lines(code) {
  const out = [[]];
  (function walk(node, classes) {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) {
        const parts = child.textContent.split("\n");
        parts.forEach((part, i) => {
          if (i > 0) out.push([]);
          if (part) out[out.length - 1].push([classes, part]);
        });
      } else {
        walk(child, `${classes} ${child.className}`.trim());
      }
    }
  })(code, "");
  return out;
}

/// One line's segments, identifiers made clickable with their 1-based byte column.
function lineElement(segments, number, onIdentifier) {
  const line = el("span", { class: "code-line" });
  for (const [classes, text] of segments) {
    const span = el("span", { class: classes });
    let last = 0;
    for (const match of text.matchAll(IDENTIFIER)) {
      span.append(text.slice(last, match.index));
      const column = encoder.encode(line.textContent + span.textContent).length + 1;
      const word = el("span", { class: "ident", "data-line": number, "data-col": column }, match[0]);
      word.addEventListener("click", () => onIdentifier(number, column, word));
      span.append(word);
      last = match.index + match[0].length;
    }
    span.append(text.slice(last));
    line.append(span);
  }
  return line;
}

function selectedLines() {
  const match = /^#L(\d+)(?:-L(\d+))?$/.exec(location.hash);
  if (!match) return null;
  const start = Number(match[1]);
  return [start, Number(match[2] || start)];
}

export async function fileView(main, path, _params, go) {
  const [file, outline] = await Promise.all([
    api("/api/file", { path }),
    api("/api/outline", { path }).catch(() => ({ evidence: [] })),
  ]);
  const code = document.createElement("code");
  highlight(code, file.lines.join("\n"), file.path);
  const message = el("p", { id: "def-message", class: "notes" });
  async function onIdentifier(line, col, word) {
    message.textContent = `looking up ${word.textContent}…`;
    try {
      const answer = await api("/api/def", { path: file.path, line, col });
      const found = answer.evidence;
      if (found.length === 0) {
        message.textContent = `no definition of ${word.textContent} in the index`;
      } else if (found.length === 1) {
        go(fileHref(found[0].path, found[0].start_line, found[0].end_line));
      } else {
        message.replaceChildren(`${found.length} definitions of ${word.textContent}: `,
          ...found.map((ev) => el("span", {}, link(fileHref(ev.path, ev.start_line, ev.end_line), `${ev.path}:${ev.start_line}`), " ")));
      }
    } catch (error) {
      message.textContent = error.message;
    }
  }
  const selected = selectedLines();
  const rows = lines(code).map((segments, i) => {
    const number = i + 1;
    const inside = selected && number >= selected[0] && number <= selected[1];
    return el("div", { class: inside ? "row selected" : "row", id: `L${number}` },
      el("a", { class: "gutter", href: `#L${number}` }, String(number)),
      lineElement(segments, number, onIdentifier));
  });
  const outlineList = el("ul", { class: "outline" }, outline.evidence.map((ev) =>
    el("li", { class: `depth-${ev.depth || 0}` },
      el("span", { class: "kind" }, ev.kind), " ",
      link(fileHref(file.path, ev.start_line, ev.end_line), ev.name))));
  show(main, 
    el("h2", { class: "file-path" }, file.path, " ", link(`/search?q=${encodeURIComponent(file.path.split("/").pop())}`, "search")),
    message,
    el("div", { class: "file-layout" },
      el("pre", { class: "file", id: "file" }, rows),
      el("nav", { class: "outline-box" }, el("h3", {}, "Outline"), outlineList)),
    file.cut ? el("p", { class: "notes" }, "the file is cut: the first lines only") : null,
  );
  if (selected) document.getElementById(`L${selected[0]}`)?.scrollIntoView({ block: "center" });
}
