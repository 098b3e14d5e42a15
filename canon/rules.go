package canon

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Rules do for types that cannot carry tags (a library's) what the cmc tags do: leave a field
// out of the state (cmc:"-") or treat a slice field as a multiset (cmc:"set"). A model declares
// them, and they hold while that model's transitions run (SetRules). A key rule names the
// elements of a slice field by fields of each element instead of by position (graph.go): it
// changes how states are shown and diffed, never what they are.

// A Rule names a struct field by its type's stable name (TypeName) and the field's name.
type Rule struct {
	Type  string // e.g. go.etcd.io/raft/v3.raft
	Field string
	Tag   string   // "-" or "set"; "" for a key rule
	Key   []string // a key rule's element fields (Dest, Msg.ID), for a slice field
}

func (r Rule) String() string {
	what := "omit"
	switch {
	case len(r.Key) > 0:
		return "key " + r.Type + "." + r.Field + " by " + strings.Join(r.Key, ",")
	case r.Tag == "set":
		what = "set"
	}
	return what + " " + r.Type + "." + r.Field
}

var (
	rulesMu sync.Mutex
	rules   = map[[2]string]string{}   // {type, field} -> tag
	keys    = map[[2]string][]string{} // {type, field} -> the key rule's element fields
	badKeys = map[[2]string]string{}   // key rules that cannot name their field's elements, and why
	applied = map[[2]string]bool{}     // rules a plan has used
	given   []Rule                     // what SetRules was last given, when it held
)

// TypeName is the stable name a type has in rules and in interfaces: its package path and name.
func TypeName(t reflect.Type) string { return typeName(t) }

// SetRules makes rules the ones that hold, replacing those of another model. A rule that
// contradicts another for the same field is an error. Plans built under other rules are dropped.
// A process runs one model's transitions at a time (the engine's machines take turns), and each
// machine sets its model's rules when it takes its turn.
func SetRules(rs []Rule) error {
	rulesMu.Lock()
	defer rulesMu.Unlock()
	// A machine sets its rules whenever it takes its turn (every replay move, say), and they are
	// nearly always the ones already in force: say so without building a map.
	if slices.EqualFunc(rs, given, sameRule) {
		return nil
	}
	next := map[[2]string]string{}
	nextKeys := map[[2]string][]string{}
	for _, r := range rs {
		k := [2]string{r.Type, r.Field}
		if len(r.Key) > 0 || r.Tag == "" {
			if err := checkKey(r); err != nil {
				return err
			}
			if old, ok := nextKeys[k]; ok && !slices.Equal(old, r.Key) {
				return fmt.Errorf("rule %s contradicts another key rule for the same field", r)
			}
			nextKeys[k] = r.Key
			continue
		}
		if r.Tag != "-" && r.Tag != "set" {
			return fmt.Errorf("rule for %s.%s: tag %q; use \"-\" or \"set\"", r.Type, r.Field, r.Tag)
		}
		if old, ok := next[k]; ok && old != r.Tag {
			return fmt.Errorf("rule %s contradicts another rule for the same field", r)
		}
		next[k] = r.Tag
	}
	given = slices.Clone(rs)
	if maps.Equal(next, rules) && maps.EqualFunc(nextKeys, keys, slices.Equal) {
		return nil
	}
	// Keys change no plan, but plans are where rules are found to match (ruleTag): start again.
	rules, keys, badKeys, applied = next, nextKeys, map[[2]string]string{}, map[[2]string]bool{}
	keyCache.Clear()
	buildMu.Lock()
	plans.Clear()
	planGen.Add(1)
	buildMu.Unlock()
	tagCache.Clear()
	return nil
}

func sameRule(a, b Rule) bool {
	return a.Type == b.Type && a.Field == b.Field && a.Tag == b.Tag && slices.Equal(a.Key, b.Key)
}

// tagCache holds each struct type's field tags under the rules in force (fieldTags).
var tagCache sync.Map // reflect.Type -> []string

// fieldTags returns the tag of every field of struct type t, rules applied, computed once per type
// while the rules hold: graphs of every step read them for every field.
func fieldTags(t reflect.Type) []string {
	if tags, ok := tagCache.Load(t); ok {
		return tags.([]string)
	}
	tags := make([]string, t.NumField())
	for i := range tags {
		tags[i] = ruleTag(t, t.Field(i))
	}
	tagCache.Store(t, tags)
	return tags
}

// Unmatched lists the rules no captured value has used so far, with why: a type never met, or a
// field the type does not have.
func Unmatched(rs []Rule) []string {
	rulesMu.Lock()
	defer rulesMu.Unlock()
	var out []string
	for _, r := range rs {
		k := [2]string{r.Type, r.Field}
		switch {
		case !applied[k]:
			out = append(out, fmt.Sprintf("rule %s matched nothing: no captured value has type %s with a field %s (the type is named by its package path and name, as canon.TypeName says)", r, r.Type, r.Field))
		case len(r.Key) > 0 && badKeys[k] != "":
			out = append(out, fmt.Sprintf("rule %s: %s", r, badKeys[k]))
		}
	}
	return out
}

// ruleTag returns the tag a rule gives field f of struct type t, or the field's own tag.
func ruleTag(t reflect.Type, f reflect.StructField) string {
	if protoCache(t, f) {
		return "-"
	}
	rulesMu.Lock()
	defer rulesMu.Unlock()
	k := [2]string{typeName(t), f.Name}
	if key, ok := keys[k]; ok {
		// Every field a plan is built for comes here, so a key rule is checked against the
		// field's type even when no trace is ever recorded.
		applied[k] = true
		if _, err := keyFields(f.Type, key); err != nil {
			badKeys[k] = err.Error()
		}
	}
	if tag, ok := rules[k]; ok {
		applied[k] = true
		return tag
	}
	return f.Tag.Get("cmc")
}

// protoCache reports whether f is one of the caches a generated protobuf message keeps beside its
// fields: the message state of google.golang.org/protobuf (which points at the runtime's type
// information once the message was reflected on) and the encoded size, or the XXX_sizecache of
// older generated code. They are memos the protobuf runtime fills in on demand, so a message that
// was measured equals one that was not: they are not state. (Unknown fields are data, and stay.)
func protoCache(t reflect.Type, f reflect.StructField) bool {
	if f.Name == "XXX_sizecache" {
		return true
	}
	if f.Name != "state" && f.Name != "sizeCache" || t.NumField() == 0 {
		return false
	}
	s := t.Field(0).Type
	return t.Field(0).Name == "state" && s.Name() == "MessageState" && s.PkgPath() == "google.golang.org/protobuf/internal/impl"
}
