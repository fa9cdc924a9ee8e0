// The map page of `evident serve` on a real repository: pytest 8.3.3's
// sdist from PyPI (688 files; scripts/provision-map-corpus.sh fetches it).
// The map of its packages is drawn with the nodes and edges the server
// sent, its cycles and most-called definitions listed; a click on a
// package zooms into its files, a click on a file opens its page and a
// double click its definitions, a click on a definition opens its symbol
// page; no console error, no request elsewhere, no blank screenshot.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve, browse, watch, screenshot, browserPath } from "./browser.mjs";

const repoRoot = new URL("../../", import.meta.url).pathname;
const evident = process.env.EVIDENT_BIN || join(repoRoot, "target/debug/evident");
const corpus = process.env.EVIDENT_MAP_CORPUS;
const shots = process.env.EVIDENT_UPDATE_SCREENSHOTS === "1"
  ? join(repoRoot, "docs/screenshots")
  : mkdtempSync(join(tmpdir(), "evident-map-screenshots-"));

let dir, served, session;
const problems = [];

before(async () => {
  assert.ok(corpus && existsSync(corpus), "EVIDENT_MAP_CORPUS is not set to a directory (scripts/provision-map-corpus.sh prints it)");
  assert.ok(existsSync(browserPath), `no browser at ${browserPath}`);
  dir = mkdtempSync(join(tmpdir(), "evident-map-"));
  const repo = join(dir, "pytest");
  cpSync(corpus, repo, { recursive: true });
  execFileSync(evident, ["index", "--no-embed", "--quiet", repo], { cwd: repo });
  served = await serve(evident, repo);
  session = await browse(served.url);
});

after(async () => {
  await session?.browser.close();
  served?.server.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (process.env.EVIDENT_UPDATE_SCREENSHOTS !== "1") rmSync(shots, { recursive: true, force: true });
});

/// Clicks (or double-clicks) the node whose key is `key` where the picture shows it.
async function clickNode(page, key, clicks = 1) {
  const point = await page.evaluate((wanted) => {
    const container = document.getElementById("map");
    const cy = container._cyreg.cy;
    const node = cy.nodes().filter((n) => n.data("key") === wanted)[0];
    cy.fit(node, 200);
    const box = container.getBoundingClientRect();
    const at = node.renderedPosition();
    return { x: box.left + at.x, y: box.top + at.y };
  }, key);
  if (clicks === 2) await page.mouse.dblclick(point.x, point.y);
  else await page.mouse.click(point.x, point.y);
}

async function drawn(page, level) {
  await page.waitForSelector(`#map[data-level="${level}"] canvas`);
  return Number(await page.getAttribute("#map", "data-nodes"));
}

test("the map: packages, their files, a file's definitions, a symbol page", async () => {
  const page = watch(await session.context.newPage(), served.origin, problems);
  const answer = async (query) => page.evaluate(async (q) => (await fetch(`/api/map?${q}`)).json(), query);

  await page.goto(`${served.origin}/map`);
  const packages = await drawn(page, "package");
  const map = await answer("level=package");
  assert.equal(packages, Math.min(map.nodes.length, 400));
  assert.ok(map.nodes.length >= 10 && map.edges.length >= 10, `${map.nodes.length} nodes, ${map.edges.length} edges`);
  const edges = Number(await page.getAttribute("#map", "data-edges"));
  assert.ok(edges >= 10, `${edges} edges drawn`);
  assert.equal(await page.locator("#map-hot li").count(), map.hot.length);
  assert.equal(await page.locator("#map-cycles li").count(), Math.max(map.cycles.length, 1));
  await screenshot(page, shots, "map");

  // The package with the most definitions: pytest's own sources.
  const biggest = [...map.nodes].sort((a, b) => b.definitions - a.definitions)[0].id;
  await clickNode(page, biggest);
  await page.waitForURL(/level=file/);
  const files = await drawn(page, "file");
  const fileMap = await answer(`level=file&path=${encodeURIComponent(biggest)}`);
  assert.equal(files, Math.min(fileMap.nodes.length, 400));
  assert.ok(fileMap.nodes.every((n) => n.id.startsWith(`${biggest}/`)));
  assert.match(await page.textContent("#map-path"), new RegExp(biggest.split("/").pop()));

  // A click on a file opens its page; Back, and a double click zooms into
  // its definitions.
  const file = [...fileMap.nodes].sort((a, b) => b.definitions - a.definitions)[0].id;
  await clickNode(page, file);
  await page.waitForURL(/\/file\//);
  await page.waitForSelector("#file .row");
  assert.equal(decodeURIComponent(new URL(page.url()).pathname.slice("/file/".length)), file);
  await page.goBack();
  await drawn(page, "file");
  await clickNode(page, file, 2);
  await page.waitForURL(/level=definition/);
  const definitions = await drawn(page, "definition");
  assert.ok(definitions >= 2, `${definitions} definitions drawn`);
  const defMap = await answer(`level=definition&path=${encodeURIComponent(file)}`);
  const inside = defMap.nodes.find((n) => !n.outside && n.kind !== "module");
  await clickNode(page, inside.id);
  await page.waitForURL(/\/symbol\//);
  await page.waitForSelector("h2");
  assert.equal(decodeURIComponent(new URL(page.url()).pathname.slice("/symbol/".length)), inside.id);
  assert.deepEqual(problems.splice(0), []);
  await page.close();
});
