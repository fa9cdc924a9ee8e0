// evident serve in the browser, on Django: the speed figures of issues 21 and 40,
// each beside the server's own time for the same request (the baseline: what
// the browser adds is the difference).
//
// Usage: node bench/web.mjs --evident BIN [--repo DIR] [--runs N]
//   BIN   a release build of evident (cargo build --release -p evident)
//   DIR   an indexed Django 5.2.8 tree (default bench/.work/django-5.2.8,
//         which python3 bench/index.py fetches from PyPI and indexes)
// Needs web/'s packages (scripts/npm-web) and Debian's chromium
// (scripts/provision-browser.sh).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const root = new URL("../", import.meta.url).pathname;
const { chromium } = createRequire(join(root, "web/package.json"))("playwright-core");
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const evident = arg("--evident", join(root, "target/release/evident"));
const repo = arg("--repo", join(root, "bench/.work/django-5.2.8"));
const runs = Number(arg("--runs", "5"));
const QUERIES = ["get_object_or_404", "queryset filter", "password hashing", "cached_property",
  "render_to_string", "middleware", "csrf token", "migration autodetector", "select_related", "signal receiver"];
const IMPACT_CANDIDATES = ["django.utils.encoding.force_str", "django.urls.base.reverse",
  "django.utils.translation.gettext", "django.db.models.query.QuerySet.filter"];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];

if (!existsSync(join(repo, ".evident/index.db"))) {
  console.error(`no index at ${repo}: run python3 bench/index.py first`);
  process.exit(2);
}
const server = spawn(evident, ["serve", "--repo", repo, "--port", "0", "--refresh-wait", "60000"], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve) => server.stdout.on("data", (c) => {
  const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(String(c));
  if (m) resolve(m[1]);
}));
const origin = new URL(url).origin;
const browser = await chromium.launch({ executablePath: process.env.EVIDENT_CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const warm = await context.newPage();
await warm.goto(url);
// The start-up refresh runs first: wait for it, so no figure pays for it.
await warm.evaluate(() => fetch("/api/status").then((r) => r.json()));
await warm.close();
console.log(`evident serve on ${repo}; ${runs} runs each; chromium headless, 2 cores`);

// 1. First page load: navigation start to the search box on screen.
const loads = [];
const serverLoads = [];
for (let i = 0; i < runs; i += 1) {
  const page = await context.newPage();
  const started = Date.now();
  await page.goto(`${origin}/search`);
  await page.waitForSelector("#query");
  loads.push(Date.now() - started);
  serverLoads.push(await page.evaluate(() => {
    const [nav] = performance.getEntriesByType("navigation");
    return nav.responseEnd - nav.requestStart;
  }));
  await page.close();
}
console.log(`first page load            median ${median(loads)} ms, p90 ${p90(loads)} ms (the page's own response: ${median(serverLoads).toFixed(1)} ms)   goal <= 300 ms`);

// 2. A keystroke to results on screen: the input event to the first cards
// (BM25's few, asked at once), and to the hybrid ones (asked when typing
// pauses for 250 ms), measured in the page; beside them, the same searches
// fetched alone.
const page = await context.newPage();
await page.goto(`${origin}/search`);
await page.waitForSelector("#query");
const typed = [];
const typedHybrid = [];
const fetched = { bm25: [], hybrid: [] };
for (let round = 0; round < runs; round += 1) {
  for (const query of QUERIES) {
    await page.fill("#query", "");
    await page.waitForFunction(() => document.getElementById("results").children.length === 0);
    const [first, hybrid] = await page.evaluate(async (q) => {
      const input = document.getElementById("query");
      const results = document.getElementById("results");
      // The first results are BM25's, unless they took longer than the
      // pause and the hybrid request replaced them before they came.
      const seen = (mode) => new Promise((resolve) => {
        const watch = new MutationObserver(() => {
          if (results.dataset.query === q && (mode === null || results.dataset.mode === mode)) { watch.disconnect(); resolve(performance.now()); }
        });
        watch.observe(results, { attributes: true, childList: true });
      });
      const both = [seen(null), seen("hybrid")];
      const started = performance.now();
      input.value = q;
      input.dispatchEvent(new Event("input"));
      return (await Promise.all(both)).map((t) => t - started);
    }, query);
    typed.push(first);
    typedHybrid.push(hybrid);
    for (const [mode, limit] of [["bm25", 10], ["hybrid", 30]]) {
      fetched[mode].push(await page.evaluate(async ([q, m, n]) => {
        const started = performance.now();
        await (await fetch(`/api/search?q=${encodeURIComponent(q)}&mode=${m}&limit=${n}`)).json();
        return performance.now() - started;
      }, [query, mode, limit]));
    }
  }
}
console.log(`keystroke to results       median ${median(typed).toFixed(1)} ms, p90 ${p90(typed).toFixed(1)} ms over ${typed.length} (BM25, 10 results; the request alone: median ${median(fetched.bm25).toFixed(1)} ms)   goal <= 50 ms`);
console.log(`keystroke to hybrid results median ${median(typedHybrid).toFixed(1)} ms, p90 ${p90(typedHybrid).toFixed(1)} ms (after the 250 ms pause; the hybrid request alone: median ${median(fetched.hybrid).toFixed(1)} ms)`);

// 3. An impact picture of about 200 nodes: navigation to the picture laid
// out and drawn; beside it, the impact request alone.
let chosen = null;
for (const symbol of IMPACT_CANDIDATES) {
  const answer = await page.evaluate(async (s) => (await fetch(`/api/impact?symbol=${encodeURIComponent(s)}&depth=3&limit=200`)).json(), symbol);
  if (answer.nodes && answer.nodes.length >= 150) { chosen = symbol; break; }
}
/// A picture page, `runs` times: navigation to its nodes drawn in the
/// element `#id`, and the API request it makes, fetched alone.
async function timePicture(address, id, request) {
  const drawn = [];
  const requested = [];
  let nodes = 0;
  for (let i = 0; i < runs; i += 1) {
    const view = await context.newPage();
    const started = Date.now();
    await view.goto(`${origin}${address}`);
    await view.waitForFunction((el) => Number(document.getElementById(el)?.dataset.nodes) > 0, id, { timeout: 60000 });
    drawn.push(Date.now() - started);
    nodes = Number(await view.getAttribute(`#${id}`, "data-nodes"));
    requested.push(await view.evaluate(async (r) => {
      const t = performance.now();
      await (await fetch(r)).json();
      return performance.now() - t;
    }, request));
    await view.close();
  }
  return { nodes, drawn: median(drawn), p90: p90(drawn), request: median(requested).toFixed(1) };
}
if (!chosen) {
  console.log("impact picture             no candidate reaches 150 nodes at depth 3");
} else {
  const t = await timePicture(`/impact/${encodeURIComponent(chosen)}?depth=3`, "graph",
    `/api/impact?symbol=${encodeURIComponent(chosen)}&depth=3&limit=200`);
  console.log(`impact picture (${t.nodes} nodes, ${chosen})  median ${t.drawn} ms, p90 ${t.p90} ms (the impact request alone: median ${t.request} ms)   goal <= 1000 ms`);
}
// 4. The map: navigation to the packages (cut to two directory parts)
// laid out and drawn; beside it, the map request alone.
const map = await timePicture("/map?level=package&depth=2", "map", "/api/map?level=package&depth=2");
console.log(`map of packages (${map.nodes} nodes, depth 2)  median ${map.drawn} ms, p90 ${map.p90} ms (the map request alone: median ${map.request} ms)`);
await browser.close();
server.kill();
