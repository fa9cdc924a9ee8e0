// Building the page from data: elements with text, never markup.

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/// Replaces what `parent` shows; a missing part (null) is left out.
export function show(parent, ...children) {
  parent.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));
}

/// A link inside the page: followed without a reload, kept in the history.
export function link(href, ...children) {
  return el("a", { href, "data-route": "" }, ...children);
}

export function fileHref(path, start, end) {
  const lines = start ? `#L${start}${end && end !== start ? `-L${end}` : ""}` : "";
  return `/file/${path.split("/").map(encodeURIComponent).join("/")}${lines}`;
}

/// An Evidence record as a card: where, what, and its lines highlighted.
export function evidenceCard(ev, highlight) {
  const where = `${ev.path}:${ev.start_line}-${ev.end_line}`;
  const title = el("div", { class: "card-head" },
    link(fileHref(ev.path, ev.start_line, ev.end_line), where), " ",
    el("span", { class: "kind" }, ev.kind), " ",
    ev.qualified_name ? link(`/symbol/${encodeURIComponent(ev.qualified_name)}`, ev.name) : ev.name,
    ev.confidence ? el("span", { class: `confidence ${ev.confidence}` }, ev.confidence) : null);
  const code = el("pre", { class: "snippet" });
  highlight(code, ev.snippet || "", ev.path);
  return el("li", { class: "card" }, title, code);
}
