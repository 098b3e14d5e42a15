// What the trace says of the step beside the state, under the chart: each specification the model
// refines (its state, the spec step the step matched, or the step it refused and every move it
// allowed there) and the conversations with real peers up to the step. The same as the debugger's
// Specification and Connections scopes; Go shapes both (views.SpecView, tracefmt.Conversation).

import { h } from "./dom";
import type { Conversation, SpecView, StepView } from "./types.gen";

export class StepContext {
  constructor(private root: HTMLElement) {
    root.hidden = true;
  }

  render(v: StepView) {
    const parts: HTMLElement[] = [];
    if (v.specs?.length) parts.push(specSection(v.specs));
    if (v.connections?.length) parts.push(connSection(v.connections));
    this.root.hidden = parts.length === 0;
    this.root.replaceChildren(...parts);
  }
}

function specSection(specs: SpecView[]): HTMLElement {
  return h("div", { class: "specs", "aria-label": "specifications" },
    h("div", { class: "head" }, "Specification"),
    ...specs.map((sp) => {
      let step: HTMLElement;
      if (sp.refused) {
        step = h("div", { class: "refused" }, h("b", {}, "refused "), sp.refused,
          h("div", { class: "allowed-head" }, `allowed there (${sp.allowed?.length ?? 0}):`),
          h("ul", { class: "allowed" }, ...(sp.allowed ?? []).map((a) => h("li", {}, a))));
      } else if (sp.matched) {
        step = h("div", { class: "matched" }, h("b", {}, "matched "), sp.matched);
      } else {
        step = h("div", { class: "stutter" }, "no spec step here");
      }
      return h("div", { class: "spec", "data-spec": sp.spec },
        h("div", { class: "name" }, sp.spec),
        step,
        h("table", { class: "diff spec-state" }, h("tbody", {}, ...sp.state.map((r) =>
          h("tr", { class: r.kind ?? "unchanged" },
            h("td", { class: "path" }, r.path),
            h("td", { class: "new" }, r.kind === "removed" ? `(removed) ${r.old ?? ""}` : (r.new ?? "")))))));
    }));
}

function connSection(cs: Conversation[]): HTMLElement {
  return h("div", { class: "conns", "aria-label": "connections" },
    h("div", { class: "head" }, "Connections"),
    ...cs.map((c) => h("div", { class: "conn-block", "data-conn": c.conn },
      h("div", { class: "name" }, `${c.conn} (${c.open ? "open" : "closed"}): wrote ${c.wrote} B, read ${c.read} B`),
      h("ul", { class: "exchanges" }, ...c.exchanges.map((x) =>
        h("li", { class: x.sent ? "sent" : x.end ? "end" : "recv" },
          h("span", { class: "at" }, `${x.step} ${x.sent ? "->" : x.end ? "end" : "<-"} `),
          h("code", {}, JSON.stringify(x.data))))))));
}
