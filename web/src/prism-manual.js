// Prism highlights nothing by itself on load: the page asks it.
globalThis.Prism = { manual: true };
