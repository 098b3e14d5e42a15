package views

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// A HeapView is the heap graph panel's content: the DOT text to lay out, and what the selector
// and the status line need.
type HeapView struct {
	DOT     string   `json:"dot"`
	Roots   []string `json:"roots"`   // every root, for the selector
	Objects int      `json:"objects"` // in the whole graph
	Shown   int      `json:"shown"`
	Folded  int      `json:"folded"`  // objects in "+k more" nodes
	Changed int      `json:"changed"` // shown objects the step changed
	// Focus is the object the page opens on (its node is obj-Focus): of the shown objects whose
	// own fields the step changed, one of the process that took the step if any changed, with
	// the most changed fields (the first in the state's order on a tie). 0: none changed.
	Focus int    `json:"focus,omitempty"`
	Note  string `json:"note,omitempty"`
}

// DOT renders the part of g that o selects as Graphviz DOT: an object is a table of its fields
// (scalars inline, references as ports), a reference is an edge labelled with its field, an
// object the step changed is filled, and each run of folded objects is one "+k more" node. Node
// ids are stable for the page: an object is obj-ID, a fold under it more-ID.
func DOT(g *canon.Graph, o GraphOptions) string { return Heap(g, o, nil).DOT }

// Heap is DOT with the numbers around it. The rows of fields the step st changed (nil: the
// initial state) are marked too, each cell with the id chg-OBJ-ROW-n or -v and a tooltip that
// says how it changed, so the page can find them and bring them into view.
func Heap(g *canon.Graph, o GraphOptions, st *engine.Step) HeapView {
	var changes []canon.Change
	var proc canon.Path
	if st != nil {
		changes, proc = st.Changes, canon.Path(st.Proc)
	}
	best, bestOwn := 0, false
	s := selectObjects(g, o)
	_, _, maxFields := o.limits()
	v := HeapView{Roots: []string{}, Objects: len(g.Objects)}
	for _, obj := range g.Objects {
		if obj.Root != "" {
			v.Roots = append(v.Roots, obj.Root)
		}
	}
	var b strings.Builder
	b.WriteString("digraph heap {\n")
	b.WriteString("  graph [rankdir=LR, nodesep=0.2, ranksep=0.45, fontname=\"Helvetica\", bgcolor=\"transparent\"];\n")
	b.WriteString("  node [shape=plain, fontname=\"Helvetica\", fontsize=10];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.6, color=\"#5b6778\", fontcolor=\"#3b4658\"];\n")
	for _, id := range s.order {
		if !s.shown[id] {
			continue
		}
		obj := &g.Objects[id-1]
		v.Shown++
		if obj.Changed {
			v.Changed++
		}
		if n := writeObject(&b, s, obj, maxFields, changes); n > 0 {
			at := obj.Path
			if obj.Root != "" {
				at = obj.Root
			}
			own := proc != "" && canon.Path(at).Under(proc)
			if own && !bestOwn || own == bestOwn && n > best {
				v.Focus, best, bestOwn = obj.ID, n, own
			}
		}
		if k := s.folded[id]; k > 0 {
			v.Folded += k
			fmt.Fprintf(&b, "  more%d [id=\"more-%d\", class=\"more\", shape=box, style=\"rounded,dashed\", color=\"#7a869a\", fontcolor=\"#3b4658\", label=\"+%d more\"];\n", id, id, k)
			fmt.Fprintf(&b, "  o%d -> more%d [style=dashed];\n", id, id)
		}
	}
	// The roots in one column, in the state's order (the model's declaration order).
	var shownRoots []string
	for _, id := range s.order {
		if s.shown[id] && s.parent[id] == 0 {
			shownRoots = append(shownRoots, fmt.Sprintf("o%d", id))
		}
	}
	if len(shownRoots) > 1 {
		fmt.Fprintf(&b, "  { rank=same; %s [style=invis]; }\n", strings.Join(shownRoots, " -> "))
	}
	b.WriteString("}\n")
	v.DOT = b.String()
	switch {
	case s.roots == 0 && o.Root != "":
		v.Note = fmt.Sprintf("no root %q in this state", o.Root)
	case v.Shown == 0 && o.Filter != "":
		v.Note = fmt.Sprintf("no object's path contains %q", o.Filter)
	}
	return v
}

// writeObject writes one object's node and its edges to shown objects, and returns how many of
// its scalar fields the step changed. Rows past maxFields fold into "… k more fields", except
// those the step changed.
func writeObject(b *strings.Builder, s *selection, obj *canon.Object, maxFields int, changes []canon.Change) int {
	header := obj.Path
	if obj.Root != "" {
		header = obj.Root
	}
	var rows []row
	flatten(obj.Fields, "", canon.Path(header), &rows)
	class, fill := "object", "#e4e9f2"
	if obj.Changed {
		class, fill = "object changed", "#ffd36b"
	}
	fmt.Fprintf(b, "  o%d [id=\"obj-%d\", class=%q, label=<<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\" COLOR=\"#7a869a\">", obj.ID, obj.ID, class)
	fmt.Fprintf(b, "<TR><TD COLSPAN=\"2\" BGCOLOR=%q ALIGN=\"LEFT\"><B>%s</B> <FONT POINT-SIZE=\"8\" COLOR=\"#55606e\">%s</FONT></TD></TR>", fill, html(clip(header, 60)), html(clip(shortType(obj.Type), 40)))
	shown := make([]bool, len(rows))
	hidden, scalars := 0, 0
	for i, r := range rows {
		how := changedHow(r, changes)
		if i >= maxFields && how == "" {
			hidden++
			continue
		}
		shown[i] = true
		port := ""
		if r.ref != 0 {
			port = fmt.Sprintf(" PORT=\"p%d\"", i)
		}
		val := html(clip(r.value, 48))
		if r.ref != 0 {
			val = strings.TrimSpace(val + " →")
		}
		name := html(clipHead(r.name, 40))
		if how == "" {
			fmt.Fprintf(b, "<TR><TD ALIGN=\"LEFT\">%s</TD><TD ALIGN=\"LEFT\"%s>%s</TD></TR>", name, port, val)
			continue
		}
		if r.ref == 0 {
			scalars++
		}
		cell := func(part string) string {
			return fmt.Sprintf(` BGCOLOR="#ffe9a8" ID="chg-%d-%d-%s" TOOLTIP="%s"`, obj.ID, i, part, html(clip(how, 120)))
		}
		fmt.Fprintf(b, "<TR><TD ALIGN=\"LEFT\"%s><B>%s</B></TD><TD ALIGN=\"LEFT\"%s%s><B>%s</B></TD></TR>", cell("n"), name, port, cell("v"), val)
	}
	if hidden > 0 {
		fmt.Fprintf(b, "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\"><I>… %d more fields</I></TD></TR>", hidden)
	}
	b.WriteString("</TABLE>>];\n")
	for i, r := range rows {
		if r.ref == 0 || !s.shown[r.ref] {
			continue
		}
		from := fmt.Sprintf("o%d", obj.ID)
		if shown[i] {
			from = fmt.Sprintf("o%d:p%d:e", obj.ID, i)
		}
		fmt.Fprintf(b, "  %s -> o%d [label=\"%s\"];\n", from, r.ref, escapeDOT(clip(r.name, 40)))
	}
	return scalars
}

// A row is one line of an object's table.
type row struct {
	name, value string
	ref         int
	path        canon.Path // the field's path in the state, as changes name it
}

// flatten lists scalars and references with inline composites spelled out as dotted names; at is
// the path of the object or composite that holds vals.
func flatten(vals []canon.Value, prefix string, at canon.Path, rows *[]row) {
	for _, v := range vals {
		name := fieldName(prefix, v.Name)
		p := at.Child(canon.Segment(v.Name))
		if len(v.Fields) > 0 && v.Ref == 0 {
			flatten(v.Fields, name, p, rows)
			continue
		}
		*rows = append(*rows, row{name: name, value: v.Scalar, ref: v.Ref, path: p})
	}
}

// changedHow says how the step changed a row's field ("" if it did not): its own value, or (for
// a reference) something it leads to.
func changedHow(r row, changes []canon.Change) string {
	below := 0
	for _, c := range changes {
		switch p := canon.Path(c.Path); {
		case p == r.path && c.Kind == "changed":
			return fmt.Sprintf("changed at this step: was %s", c.Old)
		case p == r.path:
			return c.Kind + " at this step"
		case p.Under(r.path):
			below++
		}
	}
	if below > 0 {
		return fmt.Sprintf("%d changes below at this step", below)
	}
	return ""
}

// html escapes text for a Graphviz HTML-like label, which is XML: markup characters become
// entities, and so do control characters, which Graphviz would reject.
func html(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == utf8.RuneError, r < 0x20, r == 0x7f:
			b.WriteString("&#xFFFD;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeDOT escapes text for a quoted DOT string. Backslashes are doubled because Graphviz reads
// \n, \l and \N in labels as escapes; control characters become spaces.
func escapeDOT(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r < 0x20, r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pkgPath matches the import path part of a qualified type name: "github.com/x/y/" in
// "github.com/x/y/model.Msg".
var pkgPath = regexp.MustCompile(`[\w.\-]+(/[\w.\-]+)*/`)

// shortType drops import paths from a type: []env.Packet[model.Msg], not the full module path.
func shortType(t string) string { return pkgPath.ReplaceAllString(t, "") }

// clipHead shortens s to at most n runes by cutting its start, so a long field name keeps the
// field at its end: "…RREQ{id 1 orig B}].Hops", not "[A->* [B C D] RREQ{id 1 orig B…".
func clipHead(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-n+1:])
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
