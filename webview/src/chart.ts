// The message sequence chart: lifelines across, steps down (row 0 is the initial state), arrows
// from the step that sent a message to the step that delivered, lost or dropped it. The chart's
// content is computed in Go (views.Chart); this only maps indexes to pixels, and places labels
// where they overlap nothing (labels.ts). A message's label is its kind ("RREQ"), one per
// broadcast; its full text is in the arrow's tooltip and, for the current step, in the list
// under the chart.

import { clip, h, s } from "./dom";
import { Labels } from "./labels";
import type { Arrow, SeqChart } from "./types.gen";

const MINCOL = 72; // lifeline spacing, at least: four lifelines fit in 340 px, a panel beside the editor in a 1024 px window
const MAXCOL = 220;
const ROW = 32; // step height
const TOP = 34; // lifeline names
const LEFT = 34; // step numbers
const TAIL = 26; // below the last step: messages still in flight end here
const MSG_FONT = 10; // px, of message labels and marks (app.css)
const EVENT_FONT = 10.5; // px, of the event in its box

// A long trace (a random walk of 100,000 steps) is drawn a window of rows at a time, around the
// current step: drawing every row would take the page tens of seconds. Rows "▲ earlier" and
// "▼ later" move the window; a step outside it moves it there.
export const WINDOW = 400; // rows drawn at most
const MARGIN = 40; // a current step this close to the window's edge moves the window

export class ChartView {
  private svg: SVGSVGElement | null = null;
  private rows: SVGElement[] = [];
  private last: SeqChart | null = null;
  private current = 0;
  private width = 0;
  private lo = 0; // the window: steps lo..hi are drawn
  private hi = -1;
  onPick: (step: number) => void = () => {};

  // list is where the current step's messages are spelled out in full.
  constructor(private root: HTMLElement, private list: HTMLElement) {
    // Lifelines spread over the panel's width: draw again when it changes.
    new ResizeObserver(() => {
      const w = this.root.clientWidth;
      if (this.last && Math.abs(w - this.width) > 24) {
        this.render(this.lo);
        this.mark(this.current);
      }
    }).observe(root);
  }

  draw(c: SeqChart) {
    this.last = c;
    this.render(this.windowAround(this.current));
  }

  // windowAround is the first step of a window centred on step.
  private windowAround(step: number): number {
    const n = this.last?.steps.length ?? 0;
    return Math.max(0, Math.min(step - WINDOW / 2, n + 1 - WINDOW));
  }

  private render(lo: number) {
    const c = this.last;
    if (!c) return;
    this.width = this.root.clientWidth;
    const n = c.steps.length;
    this.lo = lo = Math.max(0, Math.min(lo, n + 1 - WINDOW));
    this.hi = Math.min(n, lo + WINDOW - 1);
    const hi = this.hi;
    const above = lo > 0 ? ROW : 0; // the "▲ earlier" row
    const below = hi < n ? ROW : 0;
    const lines = Math.max(1, c.lifelines.length);
    const COL = Math.max(MINCOL, Math.min(MAXCOL, Math.floor((this.root.clientWidth - LEFT - 16) / lines)));
    const width = LEFT + lines * COL + 8;
    const top = TOP + above; // the y of step lo's row
    const height = top + (hi - lo + 1) * ROW + below + TAIL;
    const x = (l: number) => LEFT + l * COL + COL / 2;
    const y = (step: number) => top + (step - lo) * ROW + ROW / 2;
    const svg = s("svg", { class: "chart", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "message sequence chart", "data-lo": lo, "data-hi": hi }) as SVGSVGElement;
    svg.append(defs());

    this.rows = [];
    for (let step = lo; step <= hi; step++) {
      const cs = step > 0 ? c.steps[step - 1] : null;
      const label = cs ? `step ${step}: ${c.lifelines[cs.lifeline]}.${cs.event}` : "initial state";
      const row = s("g", { class: "row", "data-step": step, tabindex: 0, role: "button", "aria-label": label },
        s("rect", { class: "row-bg", x: 0, y: y(step) - ROW / 2, width, height: ROW }),
        s("text", { class: "stepno", x: LEFT - 8, y: y(step) + 4, "text-anchor": "end" }, step),
        s("title", {}, label));
      row.addEventListener("click", () => this.onPick(step));
      row.addEventListener("keydown", (e) => {
        if ((e as KeyboardEvent).key === "Enter") this.onPick(step);
      });
      this.rows.push(row);
      svg.append(row);
    }
    if (above) svg.append(this.mover("earlier", `▲ steps 0–${lo - 1}: show earlier`, TOP, width, lo - WINDOW / 2));
    if (below) svg.append(this.mover("later", `▼ steps ${hi + 1}–${n}: show later`, y(hi) + ROW / 2, width, lo + WINDOW / 2));
    // Everything with text takes its place in labels; message labels go where nothing is.
    const labels = new Labels(getComputedStyle(this.root).fontFamily);
    for (let step = lo; step <= hi; step++) labels.take(labels.box(String(step), MSG_FONT + 1, LEFT - 8, y(step) + 4, "end"));
    c.lifelines.forEach((name, l) => {
      svg.append(s("line", { class: "lifeline", x1: x(l), y1: TOP - 4, x2: x(l), y2: height - 6 }));
      const text = clip(name, Math.max(3, Math.floor(COL / 8)));
      labels.take(labels.box(text, 12, x(l), TOP - 12, "middle"));
      svg.append(s("text", { class: "lifeline-name", x: x(l), y: TOP - 12, "text-anchor": "middle" }, text, text !== name && s("title", {}, name)));
    });
    for (const cs of c.steps.slice(Math.max(0, lo - 1), hi)) {
      const bad = c.violation && cs.step === n;
      const g = s("g", { class: bad ? "event violation" : "event", "data-step": cs.step });
      const text = clip(cs.event, Math.max(6, Math.floor((COL - 16) / 6.5)));
      const w = Math.max(30, labels.width(text, EVENT_FONT) + 12);
      const ex = x(cs.lifeline) - w / 2;
      labels.take({ l: ex, t: y(cs.step) - 9, r: ex + w, b: y(cs.step) + 9 });
      g.append(s("rect", { x: ex, y: y(cs.step) - 9, width: w, height: 18, rx: 4 }));
      g.append(s("text", { x: x(cs.lifeline), y: y(cs.step) + 4, "text-anchor": "middle" }, text));
      g.append(s("title", {}, bad ? `${cs.event}: ${c.violation}` : cs.event));
      svg.append(g);
      // Marks (a duplication, a failure, the model's own notes) go left of the lifeline, one text
      // per lifeline and step ("route ×2").
      const byLine = new Map<number, typeof cs.marks>();
      for (const m of cs.marks ?? []) byLine.set(m.lifeline, [...(byLine.get(m.lifeline) ?? []), m]);
      for (const [line, ms] of byLine) {
        const kinds = [...new Set(ms!.map((m) => m.kind))];
        // A mark reads as its label when Go gave one (a spec event: "RCA"), else as its kind.
        const names = [...new Set(ms!.map((m) => m.label || m.kind))];
        const text = clip(names.map((k) => { const n = ms!.filter((m) => (m.label || m.kind) === k).length; return n > 1 ? `${k} ×${n}` : k; }).join(" "), 14);
        // Left of the lifeline (or its event), else right of it, else as short as it gets.
        const half = line === cs.lifeline ? w / 2 : 0;
        const spots: [string, number, "start" | "end"][] = [[text, x(line) - half - 4, "end"], [text, x(line) + half + 4, "start"], ["•", x(line) - half - 4, "end"]];
        const [t, mx, anchor] = spots.find(([t, mx, a]) => !labels.hits(labels.box(t, MSG_FONT, mx, y(cs.step) + 4, a))) ?? spots[2];
        labels.take(labels.box(t, MSG_FONT, mx, y(cs.step) + 4, anchor));
        svg.append(s("g", { class: `mark ${kinds.join(" ")}` },
          s("text", { x: mx, y: y(cs.step) + 4, "text-anchor": anchor }, t),
          s("title", {}, ms!.map((m) => `${m.kind}: ${m.text ?? ""}`).join("\n"))));
      }
    }
    // Arrows that cross the window; an end outside it is drawn at the window's edge. Their
    // labels come last, where they fit.
    const win = { lo, hi, top: top - 2, bottom: hi < n ? y(hi) + ROW / 2 : height - TAIL / 2 };
    const drawn: Drawn[] = [];
    for (const a of c.arrows) {
      if (a.send <= hi && (a.recv === 0 || a.recv >= lo)) {
        const d = arrow(a, x, y, win);
        svg.append(d.g);
        drawn.push(d);
      }
    }
    labelArrows(drawn, labels, top);
    if (c.violation && hi === n) {
      svg.append(s("text", { class: "violation-text", x: LEFT, y: height - 6 }, clip(c.violation, 90)));
    }
    this.root.replaceChildren(svg);
    this.svg = svg;
    this.svg.setAttribute("data-current", String(this.current));
    for (const r of this.rows) r.classList.toggle("current", Number(r.getAttribute("data-step")) === this.current);
  }

  // mover is a row that moves the window so that it starts at lo, leaving the current step.
  private mover(kind: string, text: string, y: number, width: number, lo: number): SVGElement {
    const g = s("g", { class: `more-steps ${kind}`, tabindex: 0, role: "button", "aria-label": text },
      s("rect", { class: "row-bg", x: 0, y, width, height: ROW }),
      s("text", { x: LEFT, y: y + ROW / 2 + 4 }, text));
    const move = () => {
      this.render(lo);
      this.root.scrollTop = kind === "earlier" ? this.root.scrollHeight : 0;
    };
    g.addEventListener("click", move);
    g.addEventListener("keydown", (e) => {
      if ((e as KeyboardEvent).key === "Enter") move();
    });
    return g;
  }

  // mark highlights the current step and brings it into view, moving the window to it when it is
  // outside or near an edge that has more steps beyond.
  mark(step: number) {
    this.current = step;
    const n = this.last?.steps.length ?? 0;
    if (this.last && (step < this.lo || step > this.hi || (this.lo > 0 && step < this.lo + MARGIN) || (this.hi < n && step > this.hi - MARGIN))) {
      this.render(this.windowAround(step));
    }
    for (const r of this.rows) r.classList.toggle("current", Number(r.getAttribute("data-step")) === step);
    const row = this.rows[step - this.lo];
    if (row) {
      const top = Number(row.querySelector("rect")?.getAttribute("y") ?? 0);
      const box = this.root;
      if (top < box.scrollTop + TOP || top + ROW > box.scrollTop + box.clientHeight) {
        box.scrollTop = Math.max(0, top - box.clientHeight / 2);
      }
    }
    this.svg?.setAttribute("data-current", String(step));
    this.listStep(step);
  }

  // listStep spells out the messages the step sent and received, in full.
  private listStep(step: number) {
    const c = this.last;
    if (!c) return;
    const name = (l: number) => c.lifelines[l] ?? "?";
    const items: HTMLElement[] = [];
    for (const a of c.arrows) {
      if (a.send === step && step > 0) {
        const end = a.kind === "pending" ? "in flight" : a.kind === "dropped" ? "dropped" : `${a.kind} at step ${a.recv}`;
        items.push(h("li", { class: `sent ${a.kind}` }, `${name(a.from)} → ${name(a.to)} `, h("code", {}, a.msg), ` (${a.dup ? "duplicate, " : ""}${end})`));
      }
      if (a.recv === step && step > 0 && a.kind !== "dropped") {
        const what = a.kind === "lost" ? "lost on the way to" : "delivered to";
        items.push(h("li", { class: `recv ${a.kind}` }, `${what} ${name(a.to)} from ${name(a.from)} `, h("code", {}, a.msg), ` (sent at step ${a.send})`));
      }
    }
    this.list.replaceChildren(h("div", { class: "head" }, step === 0 ? "initial state" : `step ${step}: ${items.length ? "messages" : "no messages"}`), h("ul", {}, ...items));
  }
}

// A Drawn arrow: its group (where its label goes) and its line, from (x1, y1) to (x2, y2).
interface Drawn {
  a: Arrow;
  g: SVGElement;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

// labelArrows labels each message (a broadcast once, on whichever of its arrows has room) at the
// first spot along the arrow where the label overlaps nothing. A label with no room is left out:
// the arrow's tooltip and the step's list still say it.
function labelArrows(drawn: Drawn[], labels: Labels, top: number) {
  const groups = new Map<string, Drawn[]>();
  for (const d of drawn) {
    const k = `${d.a.send} ${d.a.from} ${d.a.dup ? 1 : 0} ${d.a.msg}`;
    groups.set(k, [...(groups.get(k) ?? []), d]);
  }
  for (const group of groups.values()) {
    const text = (group[0].a.dup ? "dup " : "") + abbrev(group[0].a.msg);
    placing: for (const t of [0.5, 0.35, 0.65, 0.2, 0.8]) {
      for (const { g, x1, y1, x2, y2 } of group) {
        const mx = x1 + (x2 - x1) * t;
        const my = y1 + (y2 - y1) * t - 3;
        const box = labels.box(text, MSG_FONT, mx, my, "middle");
        if (box.t < top || labels.hits(box)) continue;
        labels.take(box);
        g.append(s("text", { class: "msg", x: mx.toFixed(1), y: my.toFixed(1), "text-anchor": "middle" }, text));
        break placing;
      }
    }
  }
}

// abbrev is a message's kind: the name it starts with ("RREQ" of "RREQ{id 1 ...}"), else its
// first characters.
function abbrev(msg: string): string {
  const m = /^[A-Za-z_][\w.]*/.exec(msg);
  return m && m[0].length >= 2 ? clip(m[0], 12) : clip(msg, 12);
}

// arrow draws one message; win is the window of steps drawn, and the y of its top and bottom
// edges, where an arrow from an earlier or to a later step starts or ends.
function arrow(a: Arrow, x: (l: number) => number, y: (s: number) => number, win: { lo: number; hi: number; top: number; bottom: number }): Drawn {
  const x1 = x(a.from);
  const y1 = a.send < win.lo ? win.top : y(a.send) + (a.send === 0 ? -ROW / 2 + 2 : 5);
  let x2 = x(a.to);
  const beyond = a.recv > win.hi; // delivered, lost or dropped below the window
  let y2 = a.recv > 0 && !beyond ? y(a.recv) - 5 : win.bottom;
  if (a.kind === "dropped") {
    // Refused by the network at the send: a stub toward the receiver.
    x2 = x1 + (x(a.to) - x1) * 0.35;
    y2 = y1 + 6;
  }
  if (x1 === x2 && a.kind !== "dropped") x2 += 0.01; // a self-message still slopes
  const kind = a.kind + (a.dup ? " dup" : "");
  const g = s("g", { class: `arrow ${kind}`, "data-send": a.send, "data-recv": a.recv, "data-from": a.from, "data-to": a.to });
  const marker = beyond ? undefined : a.kind === "delivered" ? (a.dup ? "url(#head-dup)" : "url(#head)") : a.kind === "pending" ? "url(#head-open)" : undefined;
  g.append(s("line", { x1, y1, x2, y2, "marker-end": marker }));
  if ((a.kind === "lost" || a.kind === "dropped") && !beyond) {
    const d = 5;
    g.append(s("path", { class: "cross", d: `M${x2 - d},${y2 - d}L${x2 + d},${y2 + d}M${x2 - d},${y2 + d}L${x2 + d},${y2 - d}` }));
  }
  const what = a.kind === "delivered" ? (a.dup ? "duplicate delivered" : "delivered") : a.kind === "pending" ? "still in flight" : a.kind;
  g.append(s("title", {}, `${a.msg}: sent at step ${a.send}, ${what}${a.recv ? " at step " + a.recv : ""}`));
  return { a, g, x1, y1, x2, y2 };
}

function defs(): SVGElement {
  const head = (id: string, cls: string) =>
    s("marker", { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      s("path", { class: cls, d: "M0,0L10,5L0,10z" }));
  return s("defs", {}, head("head", "head"), head("head-dup", "head dup"), head("head-open", "head open"));
}
