package dap

import (
	"reflect"
	"strings"
	"testing"
)

// TestLaunchDefaultsFromTable: every attribute in LaunchAttrs is a field of launchConfig (token is
// read by token.go), and an absent attribute takes the table's default, so the docs, the editor's
// schema and the parser cannot disagree about one.
func TestLaunchDefaultsFromTable(t *testing.T) {
	c, _, err := parseLaunch([]byte(`{"program": "p"}`), "/w")
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(c).Elem()
	for _, a := range LaunchAttrs {
		if a.Name == "token" {
			continue
		}
		f := v.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, a.Name) })
		if !f.IsValid() {
			t.Errorf("%s: no launchConfig field", a.Name)
			continue
		}
		if a.Default == nil || a.Name == "program" {
			continue
		}
		got := f.Interface()
		want := reflect.ValueOf(a.Default).Convert(f.Type()).Interface()
		if got != want {
			t.Errorf("%s: parsed default %v, table default %v", a.Name, got, want)
		}
	}
	if c.SelfCheck != 2000 {
		t.Errorf("selfCheck default %d, want 2000 (engine.DefaultSelfCheck)", c.SelfCheck)
	}
}
