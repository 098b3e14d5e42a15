// The browser tests' harness: builds cmcdap and the trace database, runs `cmcdap serve`, and
// drives the system Chromium through playwright-core (never a downloaded browser).

import { chromium } from "playwright-core";
import { execFileSync, execSync, spawn } from "node:child_process";
import { createServer, request } from "node:http";
import { connect } from "node:net";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");

// The flags that keep Chromium quiet on a machine without a network.
export const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.floor(s.length / 2)] * 10) / 10 : NaN;
}

export class Views {
  outDir = join(here, "out");
  repoDir = repo;
  servers = [];
  pages = [];

  out(name) {
    return join(this.outDir, name);
  }

  async start() {
    mkdirSync(this.outDir, { recursive: true });
    this.bin = process.env.CMCDAP;
    if (!this.bin) {
      this.bin = this.out("cmcdap");
      execFileSync("go", ["build", "-o", this.bin, "./cmd/cmcdap"], { cwd: repo, stdio: "inherit" });
    }
    this.db = this.out("views.db");
    for (const f of [this.db, this.db + "-wal", this.db + "-shm"]) rmSync(f, { force: true });
    this.ids = JSON.parse(execFileSync("go", ["run", "./test/views/gen", "-db", this.db], { cwd: repo, encoding: "utf8" }));
    const main = await this.serve({ cwd: repo, pkg: "./test/views/model" });
    this.origin = main.origin;
    this.token = main.token;
    this.main = main;
    const exe = process.env.CHROMIUM || execSync("command -v chromium", { encoding: "utf8" }).trim();
    this.profile = mkdtempSync(join(tmpdir(), "cmc-views-chromium-"));
    this.browser = await chromium.launchPersistentContext(this.profile, {
      executablePath: exe, headless: true, args: chromiumArgs, viewport: { width: 1400, height: 900 },
    });
  }

  // serve starts `cmcdap serve` on the test database and returns its origin and token.
  serve({ cwd, pkg }) {
    const args = ["serve", "-db", this.db];
    if (pkg) args.push("-pkg", pkg);
    const proc = spawn(this.bin, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    this.servers.push(proc);
    let log = "";
    proc.stderr.on("data", (d) => { log += d; });
    return new Promise((ok, fail) => {
      let out = "";
      const timer = setTimeout(() => fail(new Error("cmcdap serve printed no URL: " + out + log)), 30_000);
      proc.stdout.on("data", (d) => {
        out += d;
        const m = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          ok({ origin: m[1], token: m[2], proc, log: () => log });
        }
      });
      proc.on("exit", (code) => fail(new Error(`cmcdap serve exited ${code}: ${out}${log}`)));
    });
  }

  // pathProxy serves a views server under /proxy/PORT/ on another port, as code-server's path
  // proxy does: the prefix is stripped, the Host header passes through unchanged, websocket
  // upgrades are piped; a request outside the prefix is a 404 and is listed in strays.
  async pathProxy(server) {
    const target = new URL(server.origin);
    const prefix = `/proxy/${target.port}`;
    const strays = [];
    const inside = (url) => url === prefix || url.startsWith(prefix + "/");
    const proxy = createServer((req, res) => {
      if (!inside(req.url)) {
        strays.push(req.url);
        res.writeHead(404).end("outside the proxy's path");
        return;
      }
      const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url.slice(prefix.length) || "/", headers: req.headers },
        (r) => { res.writeHead(r.statusCode, r.headers); r.pipe(res); });
      up.on("error", (e) => res.destroy(e));
      req.pipe(up);
    });
    proxy.on("upgrade", (req, socket, head) => {
      if (!inside(req.url)) {
        strays.push(req.url);
        socket.end("HTTP/1.1 404 Not Found\r\n\r\n");
        return;
      }
      const up = connect(Number(target.port), target.hostname, () => {
        const lines = [`${req.method} ${req.url.slice(prefix.length)} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        up.write(lines.join("\r\n") + "\r\n\r\n");
        up.write(head);
        up.pipe(socket).pipe(up);
      });
      up.on("error", () => socket.destroy());
      socket.on("error", () => up.destroy());
    });
    await new Promise((ok) => proxy.listen(0, "127.0.0.1", ok));
    this.proxies ??= [];
    this.proxies.push(proxy);
    return { origin: `http://127.0.0.1:${proxy.address().port}${prefix}`, token: server.token, strays };
  }

  // open loads a path of a server in a new page, with the token.
  async open(path, server = this.main, { prefetch = true } = {}) {
    const page = await this.browser.newPage();
    this.pages.push(page);
    if (!prefetch) await page.addInitScript(() => { window.__cmcPrefetch = false; });
    page.on("pageerror", (e) => console.error("page error:", e.message));
    page.on("console", (m) => { if (m.type() === "error") console.error("console:", m.text()); });
    const sep = path.includes("?") ? "&" : "?";
    await page.goto(`${server.origin}${path}${sep}token=${server.token}`);
    return page;
  }

  // rendered waits for the first full render of a step: heap graph, diff and chart.
  async rendered(page) {
    await page.waitForFunction(() => (window.__cmcRenders ?? 0) > 0, null, { timeout: 120_000 });
    await page.waitForSelector("table.diff tbody tr");
    await page.waitForSelector("svg.chart g.row");
  }

  // traces lists the stored traces, as the server tells the page.
  async traces() {
    const page = await this.open("/");
    await page.waitForSelector("table.traces tbody tr");
    const rows = await page.locator("table.traces tbody tr").evaluateAll((trs) =>
      trs.map((tr) => ({ id: Number(tr.dataset.trace), steps: Number(tr.querySelector("td.num").textContent) })));
    await page.close();
    return rows;
  }

  // setInput sets a number field as a user's edit would end (a change event), without focusing
  // it: a focused field's change on blur would redraw the graph under a later click.
  async setInput(page, selector, value, change = true) {
    await page.$eval(selector, (el, [val, ch]) => {
      el.value = val;
      if (ch) el.dispatchEvent(new Event("change"));
    }, [value, change]);
  }

  // chartOverlaps lists the pairs of texts of the sequence chart (step numbers, lifeline names,
  // events, marks, message labels) whose boxes on the page intersect, and counts the message
  // labels.
  async chartOverlaps(page) {
    return page.evaluate(() => {
      const texts = [...document.querySelectorAll("svg.chart text")].map((e) => {
        const r = e.getBoundingClientRect();
        return { what: `${e.textContent} (${e.closest("g")?.getAttribute("class") ?? ""} ${e.getAttribute("class") ?? ""})`.replace(/ +\)/, ")"), l: r.left, t: r.top, r: r.right, b: r.bottom };
      });
      const overlaps = [];
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          const [a, b] = [texts[i], texts[j]];
          if (a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b) overlaps.push(`${a.what} / ${b.what}`);
        }
      }
      return { overlaps, labels: [...document.querySelectorAll("svg.chart text.msg")].map((e) => e.textContent) };
    });
  }

  async diffRows(page) {
    await page.waitForSelector("table.diff tbody tr");
    return page.locator("table.diff tbody tr").evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
  }

  // show calls Server.Show over HTTP and waits for the page to draw that step; it returns the
  // page's timings: from the push arriving, and from Show in Go, to the heap SVG in the page.
  // The page's render counter is undefined until its first heap render (a page that has drawn
  // nothing yet, as the panel's before its first Show): count that as 0, since undefined > n
  // never holds.
  async show(page, trace, step, server = this.main) {
    const before = await page.evaluate(() => window.__cmcRenders ?? 0);
    const r = await fetch(`${server.origin}/api/show?trace=${trace}&step=${step}`, { method: "POST", headers: { "X-CMC-Token": server.token } });
    if (r.status !== 204) throw new Error(`show: ${r.status}`);
    await page.waitForFunction(([n, s]) => window.__cmcRenders > n && window.__cmcState.step === s, [before, step], { timeout: 60_000 });
    return page.evaluate(() => ({ render: window.__cmcLastRenderMs, showToDom: window.__cmcShowToDomMs, heap: window.__cmcHeapTimings }));
  }

  // closePages closes the pages a test opened: an open page follows every Show and would load
  // the machine while the next test measures.
  async closePages() {
    await Promise.all(this.pages.splice(0).map((p) => p.close()));
  }

  async stop() {
    await this.browser?.close();
    for (const p of this.proxies ?? []) p.close();
    for (const p of this.servers) p.kill("SIGINT");
    await Promise.all(this.servers.map((p) => p.exitCode !== null ? null : new Promise((r) => p.on("exit", r))));
    if (this.profile) rmSync(this.profile, { recursive: true, force: true });
  }
}
