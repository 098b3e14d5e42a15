package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

type color string

type place struct {
	Shelf int `json:"shelf"`
}

type paint struct {
	place
	Color  color             `json:"color"`
	Shades []color           `json:"shades,omitempty"`
	Mix    map[string]*paint `json:"mix,omitempty"`
	Dried  time.Time         `json:"dried,omitzero"`
	Raw    json.RawMessage   `json:"raw"`
	Where  struct {
		Shelf int `json:"shelf"`
	} `json:"where"`
	Skip  int `json:"-"`
	NoTag bool
}

func TestInterfaces(t *testing.T) {
	f := newTSFile(enum([]color{"red", "blue"}))
	f.ref(reflect.TypeFor[paint]())
	got := f.interfaces()
	want := `
/** main.paint */
export interface Paint {
  shelf: number;
  color: 'red' | 'blue';
  shades?: ('red' | 'blue')[];
  mix?: Record<string, Paint>;
  dried?: string;
  raw: unknown;
  where: { shelf: number };
  NoTag: boolean;
}
`
	if f.err != nil || got != want {
		t.Errorf("got %v\n%s\nwant\n%s", f.err, got, want)
	}
}

// A string type of its own without its values listed would lose its union: an error that says
// what to do.
func TestUnlistedStringType(t *testing.T) {
	f := newTSFile()
	f.ref(reflect.TypeFor[paint]())
	f.interfaces()
	if f.err == nil || !strings.Contains(f.err.Error(), "main.color is a string type of its own: list its values") {
		t.Errorf("err = %v", f.err)
	}
}

// Two fields with one JSON name (here through an embedded struct) would make a TypeScript
// interface that is not what encoding/json writes: an error.
func TestDuplicateField(t *testing.T) {
	type shelved struct {
		place
		Shelf string `json:"shelf"`
	}
	f := newTSFile()
	f.ref(reflect.TypeFor[shelved]())
	f.interfaces()
	if f.err == nil || !strings.Contains(f.err.Error(), `two fields are named "shelf"`) {
		t.Errorf("err = %v", f.err)
	}
}
