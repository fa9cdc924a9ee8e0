// What the browser tests share: `evident serve` started on a repository and
// its one-time URL read, chromium launched (Debian's, through
// playwright-core), pages that count console errors and requests to any
// host but the server, and screenshots checked not to be blank.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const browserPath = process.env.EVIDENT_CHROMIUM || "/usr/bin/chromium";

/// `evident serve --port 0 ...` on `repo`; resolves to `{ server, url, origin }`.
export async function serve(evident, repo, extra = []) {
  const server = spawn(evident, ["serve", "--repo", repo, "--port", "0", ...extra], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(out);
      if (match) resolve(match[1]);
    });
    server.on("exit", (code) => reject(new Error(`evident serve exited ${code}`)));
  });
  return { server, url, origin: new URL(url).origin };
}

/// A browser and a context that has opened `url` once (its token becomes
/// the context's cookie).
export async function browse(url) {
  const browser = await chromium.launch({ executablePath: browserPath, args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const first = await context.newPage();
  await first.goto(url);
  await first.close();
  return { browser, context };
}

/// Notes in `problems` what a page must never do: log an error, fail, or
/// ask anything of a host but `origin`.
export function watch(page, origin, problems) {
  page.on("console", (message) => { if (message.type() === "error") problems.push(`console: ${message.text()}`); });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("request", (request) => {
    const target = request.url();
    if (!target.startsWith(origin) && !target.startsWith("data:") && !target.startsWith("blob:")) problems.push(`request to ${target}`);
  });
  return page;
}

/// Saves the page's screenshot as `dir/name.png` and checks it is not one colour.
export async function screenshot(page, dir, name) {
  const png = await page.screenshot({ fullPage: false });
  writeFileSync(join(dir, `${name}.png`), png);
  const colours = await page.evaluate(async (data) => {
    const image = new Image();
    image.src = `data:image/png;base64,${data}`;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set();
    for (let i = 0; i < pixels.length; i += 4 * 97) seen.add(`${pixels[i]},${pixels[i + 1]},${pixels[i + 2]}`);
    return seen.size;
  }, png.toString("base64"));
  assert.ok(colours > 8, `${name}: the screenshot is nearly blank (${colours} colours)`);
}
