// Builds the page evident serve embeds: src/main.js and what it imports,
// and src/graph.js (the graph library), each bundled and minified by esbuild, and src/index.html and src/app.css as
// they are, into crates/evident-serve/assets/. With --check, builds in
// memory and fails when the committed assets differ (CI runs that).
import { readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const assets = new URL("../crates/evident-serve/assets/", import.meta.url);
const check = process.argv.includes("--check");

// The page, and the graph library apart (only the impact and diff pages load it).
async function bundle(entry) {
  const built = await build({
    entryPoints: [new URL(entry, import.meta.url).pathname],
    bundle: true,
    minify: true,
    format: "iife",
    target: ["chrome120", "firefox120", "safari17"],
    legalComments: "eof",
    write: false,
    logLevel: "warning",
  });
  return built.outputFiles[0].text;
}
const outputs = {
  "app.js": await bundle("src/main.js"),
  "graph.js": await bundle("src/graph.js"),
  "index.html": readFileSync(new URL("src/index.html", import.meta.url), "utf8"),
  "app.css": readFileSync(new URL("src/app.css", import.meta.url), "utf8"),
};
let stale = [];
for (const [name, text] of Object.entries(outputs)) {
  const target = new URL(name, assets);
  if (check) {
    let committed = "";
    try { committed = readFileSync(target, "utf8"); } catch { /* missing */ }
    if (committed !== text) stale.push(name);
  } else {
    writeFileSync(target, text);
  }
}
if (stale.length) {
  console.error(`crates/evident-serve/assets/ does not match web/src (${stale.join(", ")}): run scripts/build-web`);
  process.exit(1);
}
console.error(check ? "the embedded assets match web/src" : "built crates/evident-serve/assets/");
