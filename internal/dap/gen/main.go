// Command gen writes, from the launch attribute table dap.LaunchAttrs, the three places outside Go
// that describe a launch configuration, so they cannot drift from what cmcdap accepts:
//
//   - vscode-extension/package.json: the debugger's launch properties (the editor's schema);
//   - vscode-extension/src/launchAttrs.gen.ts: the TypeScript type and the table config.ts checks with;
//   - docs/launch.md: the attribute table, between its "generated" markers.
//
// Run it with `go generate ./internal/dap` from the repository root; `make vet` fails when a
// generated file differs from what is committed.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/internal/dap"
)

func main() {
	root := flag.String("root", "../..", "the repository root")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("gen: ")
	for _, f := range []struct {
		path string
		gen  func([]byte) ([]byte, error)
	}{
		{"vscode-extension/package.json", packageJSON},
		{"vscode-extension/src/launchAttrs.gen.ts", func([]byte) ([]byte, error) { return typeScript(), nil }},
		{"docs/launch.md", launchDoc},
	} {
		path := filepath.Join(*root, f.path)
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			log.Fatal(err)
		}
		b, err := f.gen(old)
		if err != nil {
			log.Fatalf("%s: %v", f.path, err)
		}
		if !bytes.Equal(b, old) {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				log.Fatal(err)
			}
		}
	}
}

// An ordered JSON object, so package.json keeps the order people read it in.
type object []member

type member struct {
	key   string
	value any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping (package.json has < and > in descriptions).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// schema is one attribute's JSON schema for VS Code.
func schema(a dap.LaunchAttr) object {
	o := object{}
	switch a.Kind {
	case dap.KindEnum:
		o = append(o, member{"type", "string"}, member{"enum", a.Enum})
		if a.EnumDocs != nil {
			o = append(o, member{"enumDescriptions", a.EnumDocs})
		}
	case dap.KindParams:
		o = append(o, member{"type", "object"},
			member{"additionalProperties", object{{"type", []string{"string", "number", "boolean"}}}})
	case dap.KindCount:
		o = append(o, member{"type", "integer"}, member{"minimum", a.Min})
		if a.Max < math.MaxInt64 {
			o = append(o, member{"maximum", a.Max})
		}
	case dap.KindSeconds:
		o = append(o, member{"type", "number"}, member{"exclusiveMinimum", 0})
	default:
		o = append(o, member{"type", string(a.Kind)})
	}
	d := editorDefault(a)
	doc := a.Doc
	if d == nil && a.DefaultDoc != "" {
		doc += " Default: " + a.DefaultDoc + "."
	}
	o = append(o, member{"description", doc})
	if d != nil {
		o = append(o, member{"default", d})
	}
	return o
}

func editorDefault(a dap.LaunchAttr) any {
	if a.EditorDefault != nil {
		return a.EditorDefault
	}
	return a.Default
}

// packageJSON replaces the launch properties in package.json, keeping every other byte.
func packageJSON(old []byte) ([]byte, error) {
	props := object{}
	for _, a := range dap.LaunchAttrs {
		if !a.NotInEditor {
			props = append(props, member{a.Name, schema(a)})
		}
	}
	start, end, indent, err := propertiesSpan(old)
	if err != nil {
		return nil, err
	}
	flat, err := marshal(props)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, flat, indent, "  "); err != nil {
		return nil, err
	}
	b := append(append(append([]byte{}, old[:start]...), out.Bytes()...), old[end:]...)
	if !json.Valid(b) {
		return nil, fmt.Errorf("the result is not JSON")
	}
	return b, nil
}

// propertiesSpan finds the object after "configurationAttributes" … "launch" … "properties": its
// first and last byte (end exclusive) and the indentation of the line it starts on.
func propertiesSpan(b []byte) (start, end int, indent string, err error) {
	i := bytes.Index(b, []byte(`"configurationAttributes"`))
	if i < 0 {
		return 0, 0, "", fmt.Errorf(`no "configurationAttributes"`)
	}
	j := bytes.Index(b[i:], []byte(`"properties"`))
	if j < 0 {
		return 0, 0, "", fmt.Errorf(`no launch "properties"`)
	}
	start = i + j + bytes.IndexByte(b[i+j:], '{')
	depth, inString := 0, false
	for k := start; k < len(b); k++ {
		c := b[k]
		switch {
		case inString && c == '\\':
			k++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				line := bytes.LastIndexByte(b[:start], '\n') + 1
				ind := b[line:start]
				ind = ind[:len(ind)-len(bytes.TrimLeft(ind, " "))]
				return start, k + 1, string(ind), nil
			}
		}
	}
	return 0, 0, "", fmt.Errorf("unbalanced braces after \"properties\"")
}

// typeScript is the launch attributes as a TypeScript type and a table for config.ts.
func typeScript() []byte {
	var b strings.Builder
	b.WriteString("// Code generated by internal/dap/gen from dap.LaunchAttrs (internal/dap/launchconfig.go); DO NOT EDIT.\n")
	b.WriteString("// Run `go generate ./internal/dap` after changing the table.\n\n")
	b.WriteString("/** The launch attributes cmcdap reads. */\nexport interface LaunchAttrs {\n")
	for _, a := range dap.LaunchAttrs {
		fmt.Fprintf(&b, "  /** %s */\n  %s?: %s;\n", strings.ReplaceAll(a.Doc, "*/", "*\\/"), a.Name, tsType(a))
	}
	b.WriteString("}\n\n")
	b.WriteString("/** How one attribute is checked: config.ts checks every attribute with this table. */\n")
	b.WriteString("export interface AttrRule {\n  name: keyof LaunchAttrs;\n  kind: 'string' | 'boolean' | 'integer' | 'number' | 'enum' | 'params';\n")
	b.WriteString("  min?: number;\n  max?: number;\n  values?: readonly string[];\n  /** What the value must be, in words, when it is out of bounds. */\n  want?: string;\n}\n\n")
	b.WriteString("export const launchAttrRules: readonly AttrRule[] = [\n")
	for _, a := range dap.LaunchAttrs {
		fmt.Fprintf(&b, "  { name: %s, kind: %s", tsString(a.Name), tsString(string(a.Kind)))
		if a.Kind == dap.KindCount {
			fmt.Fprintf(&b, ", min: %d", a.Min)
			if a.Max <= 1<<53 {
				fmt.Fprintf(&b, ", max: %d", a.Max)
			}
		}
		if a.Enum != nil {
			vs := make([]string, len(a.Enum))
			for i, v := range a.Enum {
				vs[i] = tsString(v)
			}
			fmt.Fprintf(&b, ", values: [%s]", strings.Join(vs, ", "))
		}
		if a.Want != "" {
			fmt.Fprintf(&b, ", want: %s", tsString(a.Want))
		}
		b.WriteString(" },\n")
	}
	b.WriteString("];\n")
	return []byte(b.String())
}

func tsType(a dap.LaunchAttr) string {
	switch a.Kind {
	case dap.KindEnum:
		vs := make([]string, len(a.Enum))
		for i, v := range a.Enum {
			vs[i] = tsString(v)
		}
		return strings.Join(vs, " | ")
	case dap.KindParams:
		return "Record<string, string | number | boolean>"
	case dap.KindCount, dap.KindSeconds:
		return "number"
	default:
		return string(a.Kind)
	}
}

func tsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

const (
	docBegin = "<!-- generated by `go generate ./internal/dap` from internal/dap/launchconfig.go: edit there -->\n"
	docEnd   = "<!-- end of generated table -->\n"
)

// launchDoc replaces the attribute table in docs/launch.md, between its markers.
func launchDoc(old []byte) ([]byte, error) {
	s := string(old)
	i, j := strings.Index(s, docBegin), strings.Index(s, docEnd)
	if i < 0 || j < i {
		return nil, fmt.Errorf("want the table between the lines %q and %q", strings.TrimSpace(docBegin), strings.TrimSpace(docEnd))
	}
	var b strings.Builder
	b.WriteString(docBegin)
	b.WriteString("| attribute | type | default | meaning |\n|---|---|---|---|\n")
	for _, a := range dap.LaunchAttrs {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", a.Name, docType(a), docDefault(a), strings.ReplaceAll(a.Doc, "|", `\|`))
	}
	b.WriteString(docEnd)
	return []byte(s[:i] + b.String() + s[j+len(docEnd):]), nil
}

func docType(a dap.LaunchAttr) string {
	switch a.Kind {
	case dap.KindEnum:
		vs := make([]string, len(a.Enum))
		for i, v := range a.Enum {
			vs[i] = "`" + v + "`"
		}
		return strings.Join(vs, ", ")
	case dap.KindParams:
		return "object"
	case dap.KindCount:
		if a.Max < math.MaxInt32 {
			return fmt.Sprintf("whole number %d to %d", a.Min, a.Max)
		}
		return fmt.Sprintf("whole number ≥ %d", a.Min)
	case dap.KindSeconds:
		return "seconds > 0"
	default:
		return string(a.Kind)
	}
}

func docDefault(a dap.LaunchAttr) string {
	switch {
	case a.DefaultDoc != "":
		return a.DefaultDoc
	case a.Default == nil:
		return "—"
	}
	switch d := a.Default.(type) {
	case string:
		return "`" + d + "`"
	case float64:
		return strconv.FormatFloat(d, 'f', -1, 64)
	default:
		return fmt.Sprint(d)
	}
}
