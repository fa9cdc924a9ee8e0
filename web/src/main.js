// evident serve's page: one document, its view chosen by the address
// (/search, /file/PATH#L3-L9, /symbol/NAME, /impact/NAME, /diff, /ask, /status, /map). Links
// inside the page change the address without a reload, so Back works.
import { el } from "./dom.js";
import { searchView } from "./search.js";
import { fileView } from "./file.js";
import { symbolView } from "./symbol.js";
import { impactView } from "./impact.js";
import { statusView } from "./status.js";
import { diffView } from "./diff.js";
import { askView } from "./ask.js";
import { mapView } from "./map.js";

const VIEWS = [
  ["/search", searchView],
  ["/file/", fileView],
  ["/symbol/", symbolView],
  ["/impact/", impactView],
  ["/status", statusView],
  ["/diff", diffView],
  ["/ask", askView],
  ["/map", mapView],
];

export function go(href) {
  history.pushState(null, "", href);
  render();
}

async function render() {
  const main = document.getElementById("view");
  const path = location.pathname === "/" ? "/search" : location.pathname;
  const [prefix, view] = VIEWS.find(([p]) => path.startsWith(p)) || VIEWS[0];
  const rest = decodeURIComponent(path.slice(prefix.length));
  try {
    await view(main, rest, new URLSearchParams(location.search), go);
  } catch (error) {
    main.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

document.addEventListener("click", (event) => {
  const anchor = event.target.closest("a[data-route]");
  if (!anchor || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  go(anchor.getAttribute("href"));
});
window.addEventListener("popstate", render);
render();
