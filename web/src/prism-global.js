// Prism's language files extend the global Prism.
import Prism from "prismjs";
globalThis.Prism = Prism;
