// The graph library, in a bundle of its own (most of the page's weight):
// only the impact and diff pages load it, through `loadGraph`.
import cytoscape from "cytoscape";
import cytoscapeSvg from "cytoscape-svg";

cytoscape.use(cytoscapeSvg);
globalThis.EvidentGraph = cytoscape;
