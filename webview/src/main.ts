// The views page: connects to cmcdap's websocket, follows the step it is told to show (the
// debugger's stop, or the address standalone), and asks the server for the chart, heap graph and
// diff of that step. Hooks for tests and timing are on window: __cmcState, __cmcLastRenderMs
// (from a show arriving to the heap SVG in the page), __cmcShowToDomMs (from Server.Show in Go to
// the SVG, by the wall clock), __cmcRenders and __cmcCspViolations.

import { ChartView } from "./chart";
import { StepContext } from "./context";
import { DiffPanel } from "./diff";
import { clip, h } from "./dom";
import { HeapPanel, viz } from "./heap";
import { traceList } from "./list";
import { showCompare } from "./compare";
import { go, href, parse, parseCompare, root, type Place } from "./route";
import { Rpc } from "./rpc";
import type { Push, StepView, TraceView } from "./types.gen";

declare global {
  interface Window {
    __cmcState?: { trace: number; step: number; mode: string; status: string };
    __cmcLastRenderMs?: number;
    __cmcShowToDomMs?: number;
    __cmcRenders?: number;
    __cmcPrefetch?: boolean; // false: no layouts ahead (to measure cold ones)
    __cmcHeapTimings?: { fetch: number; draw: number; dotBytes: number; shown: number };
    __cmcCspViolations?: string[];
  }
}

window.__cmcCspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cmcCspViolations!.push(`${e.violatedDirective}: ${e.blockedURI}`);
});

// The VS Code panel (vscode-extension, docs/vscode.md) gives the views server's URL, token
// included, in a JSON script #cmc-config or on <body data-cmc-url data-cmc-token>, and again in
// cmc/config messages; it takes cmc/ready and cmc/gotoStep messages.
interface VSCodeAPI {
  postMessage(m: unknown): void;
}
declare function acquireVsCodeApi(): VSCodeAPI;
const vscode: VSCodeAPI | null = typeof acquireVsCodeApi === "function" ? acquireVsCodeApi() : null;

// wsURL turns the views server's page URL into its websocket's, in the same directory (a
// proxy's path kept).
function wsURL(url: string, token: string): string {
  try {
    const u = new URL(url);
    const tok = token || u.searchParams.get("token") || "";
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    u.pathname = u.pathname.replace(/[^/]*$/, "") + "ws";
    u.search = tok ? "?token=" + encodeURIComponent(tok) : "";
    u.hash = "";
    return u.toString();
  } catch {
    return "";
  }
}

// config finds the websocket: the panel's, else this server's. Embedded pages route by the
// fragment.
function config(): { ws: string; embedded: boolean } {
  let url = "";
  let token = "";
  const el = document.getElementById("cmc-config");
  if (el?.textContent) {
    try {
      const c = JSON.parse(el.textContent) as { url?: string; token?: string };
      url = c.url ?? "";
      token = c.token ?? "";
    } catch {
      // fall through to the body's attributes
    }
  }
  url ||= document.body.dataset.cmcUrl ?? "";
  token ||= document.body.dataset.cmcToken ?? "";
  if (url) return { ws: wsURL(url, token), embedded: true };
  if (vscode || (location.protocol !== "http:" && location.protocol !== "https:")) return { ws: "", embedded: true };
  // The websocket is next to the page, under the same root (a proxy's path included); the
  // token is the cookie the page's visit set.
  const u = new URL("ws", root);
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  return { ws: u.toString(), embedded: false };
}

class App {
  private rpc: Rpc;
  private mode = "standalone";
  private status = "connecting";
  private place: Place | null = null;
  private trace: TraceView | null = null;
  private gen = 0;
  private rendered = false; // the current place is drawn
  private main = h("main", { class: "views" });
  private header = h("header", { class: "bar" });
  private stepLine = h("div", { class: "step" });
  private chartBox = h("section", { class: "panel chart-panel" });
  private heapBox = h("section", { class: "panel heap-panel" });
  private diffBox = h("section", { class: "panel diff-panel" });
  private chartScroll = h("div", { class: "chart-scroll" });
  private chartList = h("div", { class: "chart-list", "aria-label": "the current step's messages" });
  private chart = new ChartView(this.chartScroll, this.chartList);
  private contextBox = h("div", { class: "step-context" });
  private context = new StepContext(this.contextBox);
  private heap: HeapPanel;
  private diff: DiffPanel;

  constructor(root: HTMLElement, ws: string, private embedded: boolean) {
    this.rpc = new Rpc(ws);
    this.heap = new HeapPanel(this.heapBox);
    this.diff = new DiffPanel(this.diffBox);
    this.chartBox.append(h("div", { class: "toolbar" }, h("span", { class: "title" }, "Messages")), this.chartScroll, this.chartList, this.contextBox);
    this.heap.onChange = () => this.refreshHeap();
    this.diff.onChange = () => this.refreshDiff();
    this.chart.onPick = (step) => this.pick(step);
    root.append(this.header, this.main);
    this.rpc.onStatus = (s) => {
      this.status = s;
      this.publish();
      this.drawHeader();
    };
    this.rpc.onPush = (p) => this.push(p);
    window.addEventListener("popstate", () => this.route());
    window.addEventListener("hashchange", () => this.route());
    let connected = ws;
    window.addEventListener("message", (e) => {
      const d = e.data as { type?: string; url?: string; token?: string; step?: number; a?: number; b?: number };
      if (d?.type === "cmc/config" && d.url) {
        const next = wsURL(d.url, d.token ?? "");
        if (next && next !== connected) {
          connected = next;
          this.rpc.reconnect(next);
        }
      }
      if (d?.type === "cmc/step" && typeof d.step === "number" && this.place) this.show({ trace: this.place.trace, step: d.step });
      if (d?.type === "cmc/compare" && typeof d.a === "number" && typeof d.b === "number") {
        history.replaceState(null, "", `#/compare/${d.a}/${d.b}`);
        this.compare({ a: d.a, b: d.b });
      }
    });
    document.addEventListener("keydown", (e) => {
      if (!this.place || (e.target as Element).closest("input, select")) return;
      if (e.key === "ArrowDown" || e.key === "j") this.pick(this.place.step + 1);
      if (e.key === "ArrowUp" || e.key === "k") this.pick(this.place.step - 1);
    });
    if (ws) this.rpc.connect();
    else this.rpc.onStatus("waiting for the debugger");
    vscode?.postMessage({ type: "cmc/ready" });
    this.route();
  }

  private push(p: Push) {
    if (p.push === "hello") {
      this.mode = p.mode ?? "standalone";
      this.publish();
      return;
    }
    if (p.push === "show" && p.trace !== undefined) {
      if (parseCompare(location)) return; // a comparison stays until the user leaves it
      if (this.rendered && this.place?.trace === p.trace && this.place.step === p.step) return; // already there
      if (!this.embedded) go({ trace: p.trace, step: p.step }, true);
      this.show({ trace: p.trace, step: p.step }, p.sent);
    }
  }

  private route() {
    const pair = parseCompare(location);
    if (pair) {
      this.compare(pair);
      return;
    }
    const p = parse(location);
    if (p && this.place && p.trace === this.place.trace && p.step === this.place.step) return; // our own move
    if (p) this.show(p);
    else if (!this.embedded) this.list();
  }

  // compare shows two traces side by side (compare.ts) until the user closes it, and then the
  // step shown before.
  private compare(pair: { a: number; b: number }) {
    const back = this.place;
    this.place = null;
    this.trace = null;
    this.gen++;
    this.drawHeader();
    const close = () => {
      if (this.embedded) history.replaceState(null, "", location.pathname + location.search);
      if (back) this.navigate(back);
      else if (this.embedded) this.main.replaceChildren();
      else this.list();
    };
    showCompare(this.main, this.rpc, pair, close).catch((e) => this.main.replaceChildren(h("p", { class: "error" }, `compare ${pair.a} and ${pair.b}: ${e}`)));
  }

  private async list() {
    this.place = null;
    this.trace = null;
    this.drawHeader();
    this.main.classList.remove("compare");
    this.main.replaceChildren(h("p", { class: "loading" }, "loading traces…"));
    try {
      const ts = await this.rpc.call("traces", {});
      this.main.replaceChildren(traceList(ts, (id, step) => this.navigate({ trace: id, step })));
    } catch (e) {
      this.main.replaceChildren(h("p", { class: "error" }, String(e)));
    }
  }

  // pick is a click on a step: the debugger moves there (and then shows it), or the page does.
  private async pick(step: number) {
    if (!this.place || !this.trace || step < 0 || step > this.trace.steps) return;
    const place = { trace: this.place.trace, step };
    try {
      const r = await this.rpc.call("goto", place);
      // Without a debugger behind the server: in VS Code ask the panel's, else move here.
      if (r.navigate && vscode) vscode.postMessage({ type: "cmc/gotoStep", step });
      else if (r.navigate) this.navigate(place);
    } catch (e) {
      this.navigate(place);
    }
  }

  private navigate(p: Place) {
    go(p);
    this.show(p);
  }

  private async show(p: Place, sent?: number) {
    const t0 = performance.now();
    const gen = ++this.gen;
    this.rendered = false;
    const newTrace = this.place?.trace !== p.trace || !this.trace;
    this.place = p;
    this.publish();
    if (newTrace) {
      this.main.classList.remove("compare");
      this.heap.reset();
      this.main.replaceChildren(this.chartBox, this.heapBox, this.diffBox);
      try {
        const tv = await this.rpc.call("trace", { trace: p.trace });
        if (gen !== this.gen) return;
        this.trace = tv;
        this.chart.draw(tv.chart);
      } catch (e) {
        this.main.replaceChildren(h("p", { class: "error" }, `trace ${p.trace}: ${e}`));
        this.trace = null;
        return;
      }
    }
    this.chart.mark(p.step);
    this.drawHeader();
    const step = this.rpc.call("step", p).then((v) => gen === this.gen && this.drawStep(v), () => {});
    await Promise.all([this.refreshHeap(gen, t0, sent, true), this.refreshDiff(gen), step]);
    if (gen === this.gen) {
      this.rendered = true;
      this.prefetch(gen);
    }
  }

  // prefetch lays out the heap of the next and the previous step while the page is idle, so a
  // debugger stepping through the trace finds them ready. Anything newer stops it.
  private async prefetch(gen: number) {
    const p = this.place;
    const t = this.trace;
    if (!p || !t || window.__cmcPrefetch === false) return;
    for (const step of [p.step + 1, p.step - 1]) {
      if (step < 0 || step > t.steps) continue;
      await new Promise((r) => setTimeout(r, 30)); // let waiting input through first
      if (gen !== this.gen) return;
      try {
        const v = await this.rpc.call("heap", { trace: p.trace, step, graph: this.heap.opts });
        if (gen !== this.gen) return;
        await this.heap.prepare(v);
      } catch {
        return;
      }
    }
  }

  // Replies may come back in any order (the server serves requests at once): only the latest
  // request of each panel is drawn.
  private heapSeq = 0;
  private diffSeq = 0;

  // focus: a new step, whose changes the graph scrolls to.
  private async refreshHeap(gen = this.gen, t0 = performance.now(), sent?: number, focus = false) {
    const p = this.place;
    if (!p) return;
    const seq = ++this.heapSeq;
    try {
      const v = await this.rpc.call("heap", { ...p, graph: this.heap.opts });
      if (gen !== this.gen || seq !== this.heapSeq) return;
      const t1 = performance.now();
      await this.heap.render(v, focus);
      const t2 = performance.now();
      window.__cmcLastRenderMs = t2 - t0;
      window.__cmcHeapTimings = { fetch: t1 - t0, draw: t2 - t1, dotBytes: v.dot.length, shown: v.shown };
      if (sent) window.__cmcShowToDomMs = performance.timeOrigin + performance.now() - sent;
      window.__cmcRenders = (window.__cmcRenders ?? 0) + 1;
    } catch (e) {
      if (gen === this.gen && seq === this.heapSeq) this.heap.error(String(e));
    }
  }

  private async refreshDiff(gen = this.gen) {
    const p = this.place;
    if (!p) return;
    const seq = ++this.diffSeq;
    try {
      const v = await this.rpc.call("diff", { ...p, diff: this.diff.filter });
      if (gen === this.gen && seq === this.diffSeq) this.diff.render(v);
    } catch (e) {
      if (gen === this.gen && seq === this.diffSeq) this.diff.error(String(e));
    }
  }

  private drawHeader() {
    const t = this.trace;
    const p = this.place;
    const home = h("a", { class: "home", href: this.embedded ? "#" : href(null) }, "cmc");
    if (!this.embedded) {
      home.addEventListener("click", (e) => {
        e.preventDefault();
        go(null);
        this.list();
      });
    }
    const parts: (Node | string)[] = [home];
    if (t && p) {
      const prev = h("button", { type: "button", class: "prev", title: "previous step (↑)", disabled: p.step <= 0 }, "◀");
      const next = h("button", { type: "button", class: "next", title: "next step (↓)", disabled: p.step >= t.steps }, "▶");
      prev.addEventListener("click", () => this.pick(p.step - 1));
      next.addEventListener("click", () => this.pick(p.step + 1));
      const params = Object.entries(t.params ?? {}).map(([k, v]) => `${k}=${v}`).join(" ");
      parts.push(h("span", { class: "trace" }, `trace ${t.id} · ${t.model}${params ? " " + params : ""}`));
      if (t.violation) parts.push(h("span", { class: "violation", title: t.violation.message }, clip(`${t.violation.kind}: ${t.violation.message}`, 80)));
      parts.push(h("span", { class: "nav" }, prev, h("span", { class: "pos" }, `step ${p.step} of ${t.steps}`), next));
      parts.push(this.stepLine);
    }
    parts.push(h("span", { class: "conn " + (this.status === "connected" ? "ok" : "bad") }, this.mode === "debug" ? `debugger · ${this.status}` : this.status));
    this.header.replaceChildren(...parts);
  }

  private drawStep(v: StepView) {
    this.context.render(v);
    if (v.step === 0) {
      this.stepLine.textContent = "initial state";
      return;
    }
    const choices = v.choices.map((c) => `${c.value}/${c.n}`).join(" ");
    // In the VS Code panel: ask what the step could have done instead (the extension's What If).
    const whatIf = vscode ? h("button", { type: "button", class: "what-if", title: "What if this step went differently? (another Choose value or event)" }, "what if…") : "";
    if (whatIf) whatIf.addEventListener("click", () => vscode?.postMessage({ type: "cmc/whatIf", step: v.step }));
    this.stepLine.replaceChildren(
      h("b", {}, `${v.proc}.${v.event}`),
      v.site ? h("span", { class: "site" }, " " + shortSite(v.site)) : "",
      choices ? h("span", { class: "choices", title: v.choices.map((c) => `${c.value} of ${c.n}${c.label ? ": " + c.label : ""} at ${shortSite(c.site)}`).join("\n") }, ` choose ${choices}`) : "",
      whatIf);
  }

  private publish() {
    window.__cmcState = { trace: this.place?.trace ?? 0, step: this.place?.step ?? -1, mode: this.mode, status: this.status };
  }
}

function shortSite(site: string): string {
  const i = site.lastIndexOf("/");
  return i >= 0 ? site.slice(i + 1) : site;
}

function boot() {
  const root = document.getElementById("app") ?? document.body;
  const c = config();
  viz(); // compile Graphviz while the first data arrives
  new App(root, c.ws, c.embedded);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
