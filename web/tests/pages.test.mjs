// evident serve in a real browser (Debian's chromium, driven by
// playwright-core): each page gone through as a user would, on a copy of
// the fixture repository. Every page must leave no console error, ask
// nothing of any host but the server, and look like something: its
// screenshot is not blank. Screenshots go to a temporary folder; with
// EVIDENT_UPDATE_SCREENSHOTS=1 they replace docs/screenshots/ (the
// README's), which a plain test run never touches.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve, browse, watch, screenshot as checkedScreenshot, browserPath } from "./browser.mjs";

const repoRoot = new URL("../../", import.meta.url).pathname;
const evident = process.env.EVIDENT_BIN || join(repoRoot, "target/debug/evident");
const shots = process.env.EVIDENT_UPDATE_SCREENSHOTS === "1"
  ? join(repoRoot, "docs/screenshots")
  : mkdtempSync(join(tmpdir(), "evident-screenshots-"));

let dir, repo, server, url, origin, browser, context;
const problems = [];

function run(args, cwd) {
  return execFileSync(evident, args, { cwd, env: { ...process.env, NO_COLOR: "1" }, encoding: "utf8" });
}

before(async () => {
  assert.ok(existsSync(evident), `no evident binary at ${evident} (cargo build first, or set EVIDENT_BIN)`);
  assert.ok(existsSync(browserPath), `no browser at ${browserPath} (scripts/provision-browser.sh installs Debian's chromium)`);
  dir = mkdtempSync(join(tmpdir(), "evident-web-"));
  repo = join(dir, "repo");
  cpSync(join(repoRoot, "crates/evident-index/tests/fixtures/repo"), repo, { recursive: true });
  const git = (...args) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "fixture");
  run(["index", "--no-embed", "--quiet", repo], repo);
  ({ server, url, origin } = await serve(evident, repo));
  ({ browser, context } = await browse(url));
});

after(async () => {
  await browser?.close();
  server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (process.env.EVIDENT_UPDATE_SCREENSHOTS !== "1") rmSync(shots, { recursive: true, force: true });
});

/// A page that counts console errors and requests to anything but the server.
async function open(path) {
  const page = watch(await context.newPage(), origin, problems);
  await page.goto(path === "/" ? url : `${origin}${path}`);
  return page;
}

/// Saves the screenshot and checks it is not one colour.
function screenshot(page, name) {
  return checkedScreenshot(page, shots, name);
}

function noProblems() {
  assert.deepEqual(problems.splice(0), []);
}

test("search: typing shows Evidence cards, and a result opens the file", async () => {
  const page = await open("/");
  await page.waitForSelector("#query");
  assert.equal(new URL(page.url()).search, "", "the token left the address");
  await page.fill("#query", "clean");
  // BM25's few at once, then, when typing pauses, the hybrid ranking.
  await page.waitForSelector('#results[data-mode="bm25"][data-query="clean"] .card');
  await page.waitForSelector('#results[data-mode="hybrid"][data-query="clean"] .card');
  const first = await page.textContent("#results .card .card-head");
  assert.match(first, /clean/);
  await screenshot(page, "search");
  // The language filter offers the languages this index holds, and the
  // search applies it: no Python file answers for Rust.
  await page.waitForSelector('#language option[value="python"]', { state: "attached" });
  const languages = await page.locator("#language option").allTextContents();
  assert.ok(languages.includes("python") && languages.includes("rust"), languages.join(","));
  assert.ok(!languages.includes("swift"), languages.join(","));
  await page.selectOption("#language", "rust");
  await page.waitForFunction(() => ![...document.querySelectorAll("#results .card .card-head")].some((h) => /\.py\b/.test(h.textContent)));
  await page.selectOption("#language", "");
  await page.waitForFunction(() => document.getElementById("results").dataset.mode === "hybrid"
    && [...document.querySelectorAll("#results .card .card-head")].some((h) => /\.py\b/.test(h.textContent)));
  await page.click("#results .card .card-head a");
  await page.waitForSelector("#file .row");
  assert.match(page.url(), /\/file\//);
  noProblems();
  await page.close();
});

test("file view: line anchors, the outline, and an identifier leads to its definition and back", async () => {
  const page = await open("/file/app/main.py#L9-L12");
  await page.waitForSelector("#file .row.selected");
  assert.equal(await page.locator("#file .row.selected").count(), 4);
  assert.ok(await page.locator(".outline li").count() >= 1);
  await screenshot(page, "file");
  const clean = page.locator("#L12 .ident", { hasText: /^clean$/ });
  await clean.click();
  await page.waitForURL(/\/file\/app\/helpers\.py#L1/);
  await page.waitForSelector("#file .row.selected");
  await page.goBack();
  await page.waitForURL(/\/file\/app\/main\.py/);
  await page.waitForSelector("#L12");
  noProblems();
  await page.close();
});

test("symbol page: the definition, resolved callers apart from possible ones", async () => {
  const page = await open("/symbol/app.helpers.clean");
  await page.waitForSelector("section h3");
  const text = await page.textContent("#view");
  assert.match(text, /Callers \(1\)/);
  assert.match(text, /app\.main\.main/);
  assert.match(text, /Possible callers/);
  await screenshot(page, "symbol");
  noProblems();
  await page.close();
});

test("impact picture: drawn, a node expanded and collapsed, its Evidence shown", async () => {
  const page = await open("/impact/app.helpers.clean");
  await page.waitForSelector("#graph canvas");
  const before = Number(await page.getAttribute("#graph", "data-nodes"));
  assert.ok(before >= 2, `${before} nodes`);
  await page.click("#node-list button.show >> text=app.main.main");
  await page.waitForSelector("#node-detail .card");
  await page.click('#node-list button.toggle[data-node="app.main.main"]');
  await page.waitForSelector('#node-list button.toggle[data-node="app.main.main"] >> text=collapse');
  await screenshot(page, "impact");
  // Exports: an SVG document and a PNG image of the picture.
  const [svgFile] = await Promise.all([page.waitForEvent("download"), page.click("#export-svg")]);
  const svgText = readFileSync(await svgFile.path(), "utf8");
  assert.match(svgText, /<svg[\s\S]*<\/svg>/);
  const [pngFile] = await Promise.all([page.waitForEvent("download"), page.click("#export-png")]);
  const png = readFileSync(await pngFile.path());
  assert.equal(png.subarray(1, 4).toString(), "PNG");
  await page.click('#node-list button.toggle[data-node="app.main.main"]');
  await page.waitForSelector('#node-list button.toggle[data-node="app.main.main"] >> text=expand');
  assert.equal(Number(await page.getAttribute("#graph", "data-nodes")), before);
  noProblems();
  await page.close();
});

test("status: freshness and counts per language", async () => {
  const page = await open("/status");
  await page.waitForSelector("#freshness");
  assert.match(await page.textContent("#freshness"), /fresh/);
  assert.match(await page.textContent("table.counts"), /python/);
  await screenshot(page, "status");
  noProblems();
  await page.close();
});

test("diff: an edited file's hunks, the definition it touches, and what may break", async () => {
  const helpers = join(repo, "app/helpers.py");
  writeFileSync(helpers, readFileSync(helpers, "utf8").replace("def clean(", "def clean(  ") + "\n# edited\n");
  run(["index", "--no-embed", "--quiet", repo], repo);
  const page = await open("/diff");
  await page.waitForSelector("#hunks .card");
  assert.match(await page.textContent("#view"), /working tree vs HEAD/);
  assert.match(await page.textContent("#touched"), /app\/helpers\.py:1-2 function clean modified · 1 caller/);
  assert.ok(Number(await page.getAttribute("#diff-graph", "data-nodes")) >= 2);
  await screenshot(page, "diff");
  await page.fill("#base", "--output=/tmp/x");
  await page.click("#compare");
  await page.waitForSelector("#view .error");
  assert.match(await page.textContent("#view .error"), /is not a revision evident accepts/);
  // The refusal itself is the one error the browser logs (a 422 answer).
  const refused = problems.splice(0);
  assert.deepEqual(refused.map((p) => p.includes("status of 422")), [true]);
  await page.close();
});

test("ask: the live steps, then the answer with citations that open the cited lines", async () => {
  const fake = spawn(join(repoRoot, "target/debug/examples/fake_model"), [
    "say:clean is defined at app/helpers.py:1-2 and called from app/main.py:12.",
  ], { stdio: ["ignore", "pipe", "inherit"] });
  const base = await new Promise((resolve) => fake.stdout.once("data", (chunk) => resolve(String(chunk).trim())));
  const asking = spawn(evident, ["serve", "--repo", repo, "--port", "0", "--provider", "openai",
    "--base-url", `${base}/v1`, "--model", "fake"], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const askUrl = await new Promise((resolve) => asking.stdout.on("data", (chunk) => {
      const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(String(chunk));
      if (match) resolve(match[1]);
    }));
    const askContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await askContext.newPage();
    page.on("console", (message) => { if (message.type() === "error") problems.push(`console: ${message.text()}`); });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    await page.goto(askUrl);
    await page.goto(`${new URL(askUrl).origin}/ask`);
    // The wording settles the intent, so evident looks the definition up
  // itself before the model's one answer.
  await page.fill("#question", "Where is clean defined?");
    await page.click("#ask");
    await page.waitForSelector("#citations li");
    const steps = await page.textContent("#steps");
    assert.match(steps, /find_symbol/);
    assert.match(await page.textContent(".answer-text"), /app\/helpers\.py:1-2/);
    await screenshot(page, "ask");
    await page.click("#citations a >> text=app/helpers.py:1-2");
    await page.waitForURL(/\/file\/app\/helpers\.py#L1-L2/);
    await page.waitForSelector("#file .row.selected");
    noProblems();
    await askContext.close();
  } finally {
    asking.kill();
    fake.kill();
  }
});

test("ask without a model says how to configure one", async () => {
  const page = await open("/ask");
  await page.waitForSelector("#no-model");
  assert.match(await page.textContent("#no-model"), /--model NAME/);
  noProblems();
  await page.close();
});

test("file text is shown as text, never run as markup", async () => {
  writeFileSync(join(repo, "markup.py"), "def shown():\n    return \"<img src=x onerror=alert(1)><script>alert(2)</script>\"\n");
  run(["index", "--no-embed", "--quiet", repo], repo);
  const page = await open("/file/markup.py");
  let dialogs = 0;
  page.on("dialog", async (dialog) => { dialogs += 1; await dialog.dismiss(); });
  await page.waitForSelector("#L2");
  assert.match(await page.textContent("#L2"), /<script>alert\(2\)<\/script>/);
  assert.equal(await page.locator("#file img, #file script").count(), 0);
  assert.equal(dialogs, 0);
  noProblems();
  await page.close();
});
