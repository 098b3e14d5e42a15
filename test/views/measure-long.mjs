// Measures the views on a long stored trace, outside the tests (the trace takes a minute to make):
// the first render of a step, then four steps with the keyboard, from the page's own timings.
//
//	go run ./cmd/cmcdap check -db /tmp/long.db -model AODV -set requests=-1 -set faults=-1 \
//	    -set seq=1000000 -set rreq=1000000 -set forget=true -search random -steps 100000 -keep ./examples/aodv
//	go build -o /tmp/cmcdap ./cmd/cmcdap
//	cd test/views && CMCDAP=/tmp/cmcdap node measure-long.mjs /tmp/long.db 1 50000   # DB, trace id, step
//
// docs/performance.md ("views") has the figures.

import { chromium } from "playwright-core";
import { execSync, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromiumArgs } from "./harness.mjs";

const [db, trace, step] = process.argv.slice(2);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const server = spawn(process.env.CMCDAP ?? "cmcdap", ["serve", "-db", resolve(db), "-pkg", "./examples/aodv"], { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
let out = "";
const [, origin, token] = await new Promise((ok) => server.stdout.on("data", (d) => {
  const m = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)/.exec((out += d));
  if (m) ok(m);
}));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || execSync("command -v chromium", { encoding: "utf8" }).trim(), args: chromiumArgs });
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const t0 = Date.now();
  await page.goto(`${origin}/trace/${trace}?step=${step}&token=${token}`);
  await page.waitForFunction(() => (window.__cmcRenders ?? 0) > 0, null, { timeout: 300_000 });
  console.log(`first render of step ${step}: ${Date.now() - t0} ms; ${await page.locator("svg.chart g.row").count()} chart rows drawn`);
  for (let i = 0; i < 4; i++) {
    const n = await page.evaluate(() => window.__cmcRenders);
    const t = Date.now();
    await page.keyboard.press("ArrowDown");
    await page.waitForFunction((k) => window.__cmcRenders > k, n, { timeout: 60_000 });
    console.log(`next step: ${Date.now() - t} ms`, JSON.stringify(await page.evaluate(() => window.__cmcHeapTimings)));
  }
} finally {
  await browser.close();
  server.kill();
}
