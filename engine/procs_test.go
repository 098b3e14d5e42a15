package engine

import (
	"context"
	"slices"
	"testing"
)

// TestTraceNamesItsProcesses: a trace records which roots are processes and which are the
// environment, in the model's order, so the debugger's threads need no guessing from the state.
// pingModel declares the network first, then a and b.
func TestTraceNamesItsProcesses(t *testing.T) {
	res, err := Check(context.Background(), pingModel(), Options{Search: "random", Steps: 6, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Walk
	if tr == nil {
		t.Fatal("the walk was not kept")
	}
	if !slices.Equal(tr.Procs, []string{"a", "b"}) || !slices.Equal(tr.Env, []string{"net"}) {
		t.Errorf("procs %q env %q, want [a b] and [net]", tr.Procs, tr.Env)
	}
}
