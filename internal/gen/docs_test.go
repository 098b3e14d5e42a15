package main

import (
	"reflect"
	"strings"
	"testing"
)

// Two generated tables in one document: each is replaced between its own markers, and every other
// byte stays.
func TestReplaceGenerated(t *testing.T) {
	doc := "# A\n" + docBegin("a.go") + "old a\n" + docEnd + "text\n" + docBegin("b.go") + "old b\n" + docEnd + "end\n"
	got, err := replaceGenerated([]byte(doc), "b.go", "new b\n")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(doc, "old b\n", "new b\n", 1)
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := replaceGenerated([]byte(doc), "c.go", ""); err == nil || !strings.Contains(err.Error(), "from c.go: edit there") {
		t.Errorf("no markers: err = %v", err)
	}
}

type bodyOfOurs struct {
	Paints []paint `json:"paints"`
	Kind   color   `json:"kind,omitempty"`
}

// A cell shows a type of the package's own inline and an exported one by name, with | escaped.
func TestShape(t *testing.T) {
	f := newTSFile(enum([]color{"red", "blue"}))
	for _, c := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[struct{}](), "—"},
		{reflect.TypeFor[bodyOfOurs](), "`{ paints: Paint[]; kind?: 'red' \\| 'blue' }`"},
		{reflect.TypeFor[[]TestPaint](), "`TestPaint[]`"},
	} {
		if got := shape(f, c.t, "—"); got != c.want {
			t.Errorf("%s: got %s, want %s", c.t, got, c.want)
		}
	}
}

type TestPaint struct {
	Color color `json:"color"`
}
