package views

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cmc-go/cmc/canon"
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
	Note    string   `json:"note,omitempty"`
}

// DOT renders the part of g that o selects as Graphviz DOT: an object is a table of its fields
// (scalars inline, references as ports), a reference is an edge labelled with its field, an
// object the step changed is filled, and each run of folded objects is one "+k more" node. Node
// ids are stable for the page: an object is obj-ID, a fold under it more-ID.
func DOT(g *canon.Graph, o GraphOptions) string { return Heap(g, o).DOT }

// Heap is DOT with the numbers around it.
func Heap(g *canon.Graph, o GraphOptions) HeapView {
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
		writeObject(&b, s, obj, maxFields)
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

// writeObject writes one object's node and its edges to shown objects.
func writeObject(b *strings.Builder, s *selection, obj *canon.Object, maxFields int) {
	var rows []row
	flatten(obj.Fields, "", &rows)
	header := obj.Path
	if obj.Root != "" {
		header = obj.Root
	}
	class, fill := "object", "#e4e9f2"
	if obj.Changed {
		class, fill = "object changed", "#ffd36b"
	}
	fmt.Fprintf(b, "  o%d [id=\"obj-%d\", class=%q, label=<<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\" COLOR=\"#7a869a\">", obj.ID, obj.ID, class)
	fmt.Fprintf(b, "<TR><TD COLSPAN=\"2\" BGCOLOR=%q ALIGN=\"LEFT\"><B>%s</B> <FONT POINT-SIZE=\"8\" COLOR=\"#55606e\">%s</FONT></TD></TR>", fill, html(clip(header, 60)), html(clip(shortType(obj.Type), 40)))
	for i, r := range rows {
		if i == maxFields {
			fmt.Fprintf(b, "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\"><I>… %d more fields</I></TD></TR>", len(rows)-maxFields)
			break
		}
		port := ""
		if r.ref != 0 {
			port = fmt.Sprintf(" PORT=\"p%d\"", i)
		}
		val := html(clip(r.value, 48))
		if r.ref != 0 {
			val = strings.TrimSpace(val + " →")
		}
		fmt.Fprintf(b, "<TR><TD ALIGN=\"LEFT\">%s</TD><TD ALIGN=\"LEFT\"%s>%s</TD></TR>", html(clip(r.name, 40)), port, val)
	}
	b.WriteString("</TABLE>>];\n")
	for i, r := range rows {
		if r.ref == 0 || !s.shown[r.ref] {
			continue
		}
		from := fmt.Sprintf("o%d", obj.ID)
		if i < maxFields {
			from = fmt.Sprintf("o%d:p%d:e", obj.ID, i)
		}
		fmt.Fprintf(b, "  %s -> o%d [label=\"%s\"];\n", from, r.ref, escapeDOT(clip(r.name, 40)))
	}
}

// A row is one line of an object's table.
type row struct {
	name, value string
	ref         int
}

// flatten lists scalars and references with inline composites spelled out as dotted names.
func flatten(vals []canon.Value, prefix string, rows *[]row) {
	for _, v := range vals {
		name := fieldName(prefix, v.Name)
		if len(v.Fields) > 0 && v.Ref == 0 {
			flatten(v.Fields, name, rows)
			continue
		}
		*rows = append(*rows, row{name: name, value: v.Scalar, ref: v.Ref})
	}
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

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
