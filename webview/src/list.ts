// The trace list: every stored trace, each a link to its last step.

import { h } from "./dom";
import { href } from "./route";
import type { TraceInfo } from "./types.gen";

export function traceList(traces: TraceInfo[], open: (id: number, step: number) => void): HTMLElement {
  if (traces.length === 0) {
    return h("p", { class: "empty" }, "No traces stored yet: run cmcdap check PKG, or a check from VS Code.");
  }
  const rows = [...traces].reverse().map((t) => {
    const link = h("a", { href: href({ trace: t.id, step: t.steps }) }, `#${t.id}`);
    link.addEventListener("click", (e) => {
      e.preventDefault();
      open(t.id, t.steps);
    });
    const params = Object.entries(t.params ?? {}).map(([k, v]) => `${k}=${v}`).join(" ");
    return h("tr", { "data-trace": t.id },
      h("td", {}, link),
      h("td", {}, t.model, params ? h("span", { class: "params" }, " " + params) : null),
      h("td", { class: t.kind ? "bad" : "" }, t.kind ? `${t.kind}: ${t.message ?? ""}` : "walk"),
      h("td", { class: "num" }, t.steps),
      h("td", {}, t.found ? new Date(t.found).toLocaleString() : ""));
  });
  return h("table", { class: "traces" },
    h("thead", {}, h("tr", {}, h("th", {}, "trace"), h("th", {}, "model"), h("th", {}, "found"), h("th", {}, "steps"), h("th", {}, "when"))),
    h("tbody", {}, ...rows));
}
