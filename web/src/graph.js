// The graph library, in a bundle of its own (most of the page's weight):
// only the impact, diff and map pages load it, through `loadGraph`.
import cytoscape from "cytoscape";
import cytoscapeSvg from "cytoscape-svg";
import fcose from "cytoscape-fcose";

cytoscape.use(cytoscapeSvg);
cytoscape.use(fcose);
globalThis.EvidentGraph = cytoscape;
