// Syntax highlighting by Prism's tokenizer: each token becomes a span whose
// text is set as text, so nothing from a file is ever read as markup.
import "./prism-manual.js";
import Prism from "prismjs";
import "./prism-global.js";
import "prismjs/components/prism-clike.js";
import "prismjs/components/prism-markup.js";
import "prismjs/components/prism-javascript.js";
import "prismjs/components/prism-typescript.js";
import "prismjs/components/prism-python.js";
import "prismjs/components/prism-rust.js";
import "prismjs/components/prism-go.js";
import "prismjs/components/prism-c.js";
import "prismjs/components/prism-cpp.js";
import "prismjs/components/prism-java.js";
import "prismjs/components/prism-csharp.js";
import "prismjs/components/prism-ruby.js";
import "prismjs/components/prism-markup-templating.js";
import "prismjs/components/prism-php.js";
import "prismjs/components/prism-bash.js";
import "prismjs/components/prism-lua.js";
import "prismjs/components/prism-kotlin.js";
import "prismjs/components/prism-scala.js";
import "prismjs/components/prism-swift.js";
import "prismjs/components/prism-markdown.js";

const BY_EXTENSION = {
  py: "python", js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript",
  ts: "typescript", tsx: "typescript", rs: "rust", go: "go", c: "c", h: "c",
  cc: "cpp", cpp: "cpp", cxx: "cpp", hpp: "cpp", hh: "cpp", java: "java", cs: "csharp",
  rb: "ruby", php: "php", sh: "bash", bash: "bash", lua: "lua", kt: "kotlin", kts: "kotlin",
  scala: "scala", swift: "swift", md: "markdown",
};

export function languageOf(path) {
  const extension = path.includes(".") ? path.split(".").pop().toLowerCase() : "";
  return BY_EXTENSION[extension];
}

function append(parent, token) {
  if (typeof token === "string") {
    parent.append(document.createTextNode(token));
    return;
  }
  const span = document.createElement("span");
  span.className = `tok-${token.type}`;
  for (const part of Array.isArray(token.content) ? token.content : [token.content]) {
    append(span, part);
  }
  parent.append(span);
}

/// Fills `element` with `text`, highlighted as the language of `path`.
export function highlight(element, text, path) {
  element.replaceChildren();
  const grammar = Prism.languages[languageOf(path)];
  if (!grammar) {
    element.textContent = text;
    return;
  }
  for (const token of Prism.tokenize(text, grammar)) append(element, token);
}
