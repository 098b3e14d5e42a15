// The heap graph panel: the DOT text comes from Go (views.DOT); Graphviz compiled to WebAssembly
// (@viz-js/viz) lays it out here. Clicking a "+k more" node expands it. A new step opens on what
// it changed: the graph scrolls to the changed fields of the object Go chose (it marks their
// cells), at the zoom the user chose (100% unless changed: 10 pt text, 13 px on screen).

import { instance, type Viz } from "@viz-js/viz";
import { clear, debounce, h } from "./dom";
import type { GraphOptions, HeapView } from "./types.gen";

let vizPromise: Promise<Viz> | null = null;

// viz starts compiling Graphviz once, early: it takes a while the first time.
export function viz(): Promise<Viz> {
  vizPromise ??= instance();
  return vizPromise;
}

export class HeapPanel {
  readonly opts: GraphOptions = { root: "", filter: "", maxDepth: 0, maxNodes: 0, expand: [] };
  private rootSel = h("select", { class: "root", "aria-label": "process" });
  private filter = h("input", { type: "search", class: "filter", placeholder: "filter by path", "aria-label": "filter objects by path" });
  private depth = h("input", { type: "number", class: "depth", min: -1, max: 99, value: 8, title: "depth before objects fold (-1: no limit)", "aria-label": "depth" });
  private nodes = h("input", { type: "number", class: "nodes", min: -1, max: 5000, value: 150, title: "objects before the rest fold (-1: no limit)", "aria-label": "max objects" });
  private status = h("span", { class: "status" });
  private note = h("div", { class: "note", hidden: true });
  private graph = h("div", { class: "graph" });
  // Layouts of recent graphs, by DOT text: stepping back and forth reuses them.
  private laidOut = new Map<string, SVGSVGElement>();
  private zoom = 1;
  private fit = false;
  private zoomLabel = h("span", { class: "zoom" }, "100%");
  onChange: () => void = () => {};

  constructor(root: HTMLElement) {
    const changed = () => {
      this.opts.root = this.rootSel.value;
      this.opts.filter = this.filter.value;
      this.opts.maxDepth = Number(this.depth.value) || 0;
      this.opts.maxNodes = Number(this.nodes.value) || 0;
      this.onChange();
    };
    this.rootSel.addEventListener("change", changed);
    this.depth.addEventListener("change", changed);
    this.nodes.addEventListener("change", changed);
    this.filter.addEventListener("input", debounce(changed, 150));
    const collapse = h("button", { type: "button", title: "fold what was expanded" }, "fold");
    collapse.addEventListener("click", () => {
      this.opts.expand = [];
      this.onChange();
    });
    this.graph.addEventListener("click", (e) => {
      const node = (e.target as Element).closest("g.node");
      const m = node && /^more-(\d+)$/.exec(node.id);
      if (m) {
        this.opts.expand = [...(this.opts.expand ?? []), Number(m[1])];
        this.onChange();
      }
    });
    const zoomBy = (f: number, fit = false) => () => {
      this.fit = fit;
      this.zoom = f === 0 ? 1 : Math.min(4, Math.max(0.1, this.zoom * f));
      this.scale();
    };
    const btn = (label: string, title: string, f: () => void) => {
      const b = h("button", { type: "button", title }, label);
      b.addEventListener("click", f);
      return b;
    };
    root.append(
      h("div", { class: "toolbar" }, h("span", { class: "title" }, "Heap"), this.rootSel, this.filter,
        h("label", {}, "depth ", this.depth), h("label", {}, "max ", this.nodes), collapse,
        h("span", { class: "zoombox" }, btn("−", "zoom out", zoomBy(1 / 1.25)), this.zoomLabel, btn("+", "zoom in", zoomBy(1.25)),
          btn("1:1", "actual size", zoomBy(0)), btn("fit", "fit the panel", zoomBy(1, true))),
        this.status),
      this.note, this.graph);
  }

  // reset forgets expansions, for a new trace.
  reset() {
    this.opts.expand = [];
  }

  // render draws a heap view and returns when its SVG is in the page; focus (a new step) scrolls
  // to what the step changed.
  async render(v: HeapView, focus = false) {
    this.setRoots(v.roots);
    this.status.textContent = `${v.shown} of ${v.objects} objects` + (v.folded ? `, ${v.folded} folded` : "") + (v.changed ? `, ${v.changed} changed` : "");
    this.note.hidden = !v.note;
    this.note.textContent = v.note ?? "";
    if (v.shown === 0) {
      clear(this.graph);
      return;
    }
    const svg = await this.layout(v.dot);
    // The same drawing again (options that changed nothing) stays put: a click in progress on
    // it must land.
    if (this.graph.firstChild !== svg) this.graph.replaceChildren(svg);
    this.scale();
    if (focus) this.showChanged(svg, v.focus);
  }

  // showChanged scrolls the graph to the changed fields of the object Go chose (v.focus), or
  // with none, of every object: centred when they fit the panel, else from their top left.
  private showChanged(svg: SVGSVGElement, focus?: number) {
    const node = focus ? svg.querySelector(`g.node#obj-${focus}`) : null;
    let marked = (node ?? svg).querySelectorAll("g.field.changed");
    if (marked.length === 0) marked = svg.querySelectorAll("g.node.changed");
    if (marked.length === 0) return;
    const box = this.graph.getBoundingClientRect();
    let [l, t, r, b] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const el of marked) {
      const e = el.getBoundingClientRect();
      [l, t, r, b] = [Math.min(l, e.left), Math.min(t, e.top), Math.max(r, e.right), Math.max(b, e.bottom)];
    }
    // The object's name too (its first line), when it fits with them.
    const head = node?.querySelector("text")?.getBoundingClientRect();
    if (head && b - Math.min(t, head.top) <= this.graph.clientHeight - 16) t = Math.min(t, head.top - 4);
    // In the graph's scrolled content.
    const x = l - box.left + this.graph.scrollLeft;
    const y = t - box.top + this.graph.scrollTop;
    const [w, hgt, cw, ch] = [r - l, b - t, this.graph.clientWidth, this.graph.clientHeight];
    this.graph.scrollLeft = Math.max(0, w <= cw ? x - (cw - w) / 2 : x - 8);
    this.graph.scrollTop = Math.max(0, hgt <= ch ? y - (ch - hgt) / 2 : y - 8);
  }

  // scale sizes the SVG by the zoom (or to fit the panel) with width and height attributes: the
  // CSP allows no style attributes.
  private scale() {
    const svg = this.graph.querySelector<SVGSVGElement>("svg.heap");
    if (!svg) return;
    const w = Number(svg.dataset.w) * 4 / 3; // points to CSS pixels
    const hgt = Number(svg.dataset.h) * 4 / 3;
    if (this.fit) {
      const room = this.graph.clientWidth - 16;
      const roomH = this.graph.clientHeight - 16;
      this.zoom = Math.min(1, room / w, roomH / hgt);
    }
    svg.setAttribute("width", String(Math.round(w * this.zoom)));
    svg.setAttribute("height", String(Math.round(hgt * this.zoom)));
    this.zoomLabel.textContent = `${Math.round(this.zoom * 100)}%`;
  }

  // prepare lays out a graph the page may show next (the step after), so showing it is quick.
  async prepare(v: HeapView) {
    if (v.shown > 0) await this.layout(v.dot);
  }

  // layout returns the drawing of a DOT text, from the cache of recent ones or from Graphviz.
  private async layout(dot: string): Promise<SVGSVGElement> {
    let svg = this.laidOut.get(dot);
    if (svg) {
      this.laidOut.delete(dot); // to the back of the queue: most recently used
    } else {
      svg = (await viz()).renderSVGElement(dot);
      svg.classList.add("heap");
      // Go gives the cells of changed fields ids chg-…; Graphviz wraps each in a group a_chg-….
      for (const g of svg.querySelectorAll('g[id^="a_chg-"]')) g.classList.add("field", "changed");
      // Graphviz sizes the drawing in points; keep that size to scale from.
      const vb = svg.viewBox.baseVal;
      svg.dataset.w = String(vb.width);
      svg.dataset.h = String(vb.height);
    }
    this.laidOut.set(dot, svg);
    if (this.laidOut.size > 16) this.laidOut.delete(this.laidOut.keys().next().value!);
    return svg;
  }

  error(msg: string) {
    this.note.hidden = false;
    this.note.textContent = msg;
    clear(this.graph);
  }

  private setRoots(roots: string[]) {
    const want = ["", ...roots];
    const have = [...this.rootSel.options].map((o) => o.value);
    if (want.join("\0") === have.join("\0")) return;
    const cur = this.rootSel.value;
    this.rootSel.replaceChildren(...want.map((r) => h("option", { value: r }, r === "" ? "whole system" : r)));
    this.rootSel.value = want.includes(cur) ? cur : "";
  }
}
