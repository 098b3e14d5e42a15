// Two traces side by side: what a user asks after a re-check from a bookmark (before and after a
// fix) or a what-if branch. Their sequence charts stand in two columns, a row per step in both,
// with the step where they part marked; under them each pair of steps from there, and how the
// state after it differs from the left trace's to the right one's. The comparison is computed in
// Go (service.Compare, the "compare" op); a click on a step in either chart marks it in both.

import { ChartView } from "./chart";
import { clip, h } from "./dom";
import type { Rpc } from "./rpc";
import type { Change, Step, StepPair, TraceView } from "./types.gen";

export interface Pair {
  a: number;
  b: number;
}

// showCompare fills main with the comparison of traces p.a and p.b; its close button calls close.
export async function showCompare(main: HTMLElement, rpc: Rpc, p: Pair, close: () => void): Promise<void> {
  main.classList.add("compare");
  main.replaceChildren(h("p", { class: "loading" }, `comparing traces ${p.a} and ${p.b}…`));
  const [c, ta, tb] = await Promise.all([rpc.call("compare", p), rpc.call("trace", { trace: p.a }), rpc.call("trace", { trace: p.b })]);
  const part = c.same + 1; // the first step that differs (0: the initial states already do)
  const summary = c.same < 0
    ? "their initial states differ"
    : part > Math.max(ta.steps, tb.steps)
      ? `they take the same ${c.same} steps`
      : `the same first ${c.same} steps; they part at step ${part}`;
  const cols = h("div", { class: "compare-cols" });
  const pairs = h("section", { class: "panel compare-pairs", "aria-label": "the steps from where the traces part" });
  const back = h("button", { type: "button", class: "close", title: "back to the trace" }, "close");
  back.addEventListener("click", close);
  main.replaceChildren(h("p", { class: "compare-summary" }, h("span", {}, `trace ${p.a} and trace ${p.b}: ${summary}`), back), cols, pairs);
  const charts = [column(cols, ta, c.a.violation), column(cols, tb, c.b.violation)];
  const rows = new Map<number, HTMLElement>();
  const select = (step: number) => {
    for (const v of charts) v.mark(step);
    for (const [n, r] of rows) r.classList.toggle("current", n === step);
    rows.get(step)?.scrollIntoView({ block: "nearest" });
  };
  for (const v of charts) v.onPick = select;
  // Rows are as tall in both charts: scroll them together, so a step faces its pair.
  const scrolls = [...cols.querySelectorAll<HTMLElement>(".chart-scroll")];
  for (const sc of scrolls) {
    sc.addEventListener("scroll", () => {
      for (const o of scrolls) if (o !== sc && Math.abs(o.scrollTop - sc.scrollTop) > 1) o.scrollTop = sc.scrollTop;
    });
  }
  pairs.append(h("div", { class: "toolbar" }, h("span", { class: "title" }, "From where they part")));
  for (const sp of c.steps) {
    const r = pairRow(sp);
    r.addEventListener("click", () => select(sp.n));
    rows.set(sp.n, r);
    pairs.append(r);
  }
  if (c.more) pairs.append(h("p", { class: "more" }, `… ${c.more} more pairs of steps`));
  if (c.steps.length === 0) pairs.append(h("p", {}, "no step differs"));
  select(Math.max(part, 0));
}

// column draws one trace's chart in a column of its own and returns it.
function column(cols: HTMLElement, t: TraceView, violation?: string): ChartView {
  const scroll = h("div", { class: "chart-scroll" });
  const list = h("div", { class: "chart-list" });
  const title = `trace ${t.id} · ${t.model} · ${t.steps} steps`;
  cols.append(h("section", { class: "panel chart-panel compare-col" },
    h("div", { class: "toolbar" }, h("span", { class: "title" }, title),
      violation ? h("span", { class: "violation", title: violation }, clip(violation, 60)) : ""),
    scroll, list));
  const v = new ChartView(scroll, list);
  v.draw(t.chart);
  return v;
}

function pairRow(sp: StepPair): HTMLElement {
  return h("div", { class: "pair", "data-step": sp.n },
    h("div", { class: "pair-steps" },
      h("b", {}, `#${sp.n}`), h("span", { class: "side" }, stepText(sp.a)), h("span", { class: "side" }, stepText(sp.b))),
    h("ul", { class: "pair-state" }, ...sp.state.slice(0, 12).map((ch) => h("li", {}, changeText(ch))),
      ...(sp.state.length > 12 ? [h("li", { class: "more" }, `… ${sp.state.length - 12} more`)] : [])));
}

function stepText(s?: Step): string {
  if (!s) return "(ended)";
  const labels = (s.choices ?? []).map((c) => c.label ?? `${c.value} of ${c.n}`);
  return `${s.proc}.${s.event}${labels.length ? ": " + labels.join(", ") : ""}`;
}

// changeText is how a path differs from the left state to the right one.
function changeText(c: Change): string {
  if (c.kind === "added") return `${c.path}: only right: ${clip(c.new ?? "", 60)}`;
  if (c.kind === "removed") return `${c.path}: only left: ${clip(c.old ?? "", 60)}`;
  return `${c.path}: ${clip(c.old ?? "", 40)} → ${clip(c.new ?? "", 40)}`;
}
