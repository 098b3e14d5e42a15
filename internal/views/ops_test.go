package views

import (
	"reflect"
	"strings"
	"testing"
)

// The server is the validator of what the page sends: a wrong op or argument is an error reply
// that says what it wants, with the request's id when it has one.
func TestRequestErrors(t *testing.T) {
	s := newTestServer(t)
	for _, c := range []struct{ req, want string }{
		{`{"id":1,"op":"heap","trace":7,"step":1,"graph":{"maxDepth":"x"}}`, `{"id":1,"error":"bad arguments: json: cannot unmarshal string into Go struct field GraphOptions.graph.maxDepth of type int"}`},
		{`{"id":2,"op":"stepp","trace":7}`, `{"id":2,"error":"unknown op \"stepp\": want one of compare, diff, goto, heap, step, trace, traces"}`},
		{`{"id":3,"op":"step","trace":7,"step":1}`, `{"id":3,"result":{"step":1,`},
		{`{"id":"4"}`, `{"id":0,"error":"bad request: `},
	} {
		got := string(s.handle([]byte(c.req)))
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s\n got %s\nwant %s", c.req, got, c.want)
		}
	}
}

// An op's arguments sit beside "id" and "op" in one JSON object: they must be a struct.
func TestOpArgsAreObjects(t *testing.T) {
	for _, o := range Ops() {
		if o.Args.Kind() != reflect.Struct {
			t.Errorf("%s: arguments are a %s, want a struct", o.Name, o.Args.Kind())
		}
	}
}
