// The state diff panel: every leaf of the state after the step, with the step's changes marked
// added, changed or removed (rows and filtering come from Go: views.StateDiff, views.FilterDiff).

import { debounce, h } from "./dom";
import type { DiffFilter, DiffView } from "./types.gen";

const letters: Record<string, string> = { added: "A", changed: "M", removed: "D" };

export class DiffPanel {
  readonly filter: DiffFilter = { text: "", hideUnchanged: true };
  private hide = h("input", { type: "checkbox", class: "hide", checked: true });
  private text = h("input", { type: "search", class: "filter", placeholder: "filter paths and values", "aria-label": "filter the diff" });
  private status = h("span", { class: "status" });
  private body = h("tbody");
  onChange: () => void = () => {};

  constructor(root: HTMLElement) {
    this.hide.addEventListener("change", () => {
      this.filter.hideUnchanged = this.hide.checked;
      this.onChange();
    });
    this.text.addEventListener("input", debounce(() => {
      this.filter.text = this.text.value;
      this.onChange();
    }, 120));
    root.append(
      h("div", { class: "toolbar" }, h("span", { class: "title" }, "Diff"),
        h("label", {}, this.hide, " hide unchanged"), this.text, this.status),
      h("div", { class: "table" },
        h("table", { class: "diff" },
          h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "path"), h("th", {}, "before"), h("th", {}, "after"))),
          this.body)));
  }

  render(v: DiffView) {
    const shown = v.rows.length < v.matched ? `, showing ${v.rows.length} of ${v.matched}` : "";
    this.status.textContent = `${v.changes} changed of ${v.total}${shown}`;
    const rows = v.rows.map((r) => {
      const kind = r.kind ?? "unchanged";
      return h("tr", { class: kind },
        h("td", { class: "kind", title: kind }, letters[kind] ?? ""),
        h("td", { class: "path" }, r.path),
        h("td", { class: "old" }, r.kind === "changed" || r.kind === "removed" ? (r.old ?? "") : ""),
        h("td", { class: "new" }, r.kind === "removed" ? "" : (r.new ?? "")));
    });
    if (rows.length === 0) {
      rows.push(h("tr", { class: "empty" }, h("td", { colspan: 4 }, this.filter.hideUnchanged && !this.filter.text ? "this step changed nothing" : "nothing matches")));
    }
    this.body.replaceChildren(...rows);
  }

  error(msg: string) {
    this.status.textContent = msg;
    this.body.replaceChildren();
  }
}
