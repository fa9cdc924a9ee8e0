// Loads /assets/graph.js (cytoscape) once, when a page first draws.
let loading;

export function loadGraph() {
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = "/assets/graph.js";
    script.onload = () => resolve(globalThis.EvidentGraph);
    script.onerror = () => reject(new Error("the graph library did not load"));
    document.head.append(script);
  });
  return loading;
}
