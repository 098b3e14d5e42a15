package cluster

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// TestBatchesInTheirPartitionsStream: the batches to partition K are stored in K's stream alone,
// the reports in the run's stream, and DeleteRun removes every stream of its run and none of
// another's, even one whose id begins with its own.
func TestBatchesInTheirPartitionsStream(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	nc := connect(t, b)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	const run, n = "layout", 3
	xs := make([]*Exchange, n)
	for p := range n {
		if xs[p], err = NewExchange(ctx, connect(t, b), run, p, n); err != nil {
			t.Fatal(err)
		}
	}
	other, err := NewExchange(ctx, connect(t, b), "layou", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	sends := []struct{ from, to, count int }{{0, 1, 2}, {0, 2, 1}, {2, 0, 4}, {1, 1, 1}}
	for _, s := range sends {
		for range s.count {
			if err := xs[s.from].Send(ctx, 0, s.to, []byte("batch")); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for p, x := range xs {
		wg.Go(func() { _, errs[p] = x.Barrier(ctx, 0, []byte("report")) })
	}
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Fatalf("partition %d: %v", p, err)
		}
	}
	want := map[string]uint64{"CMC_layout": n, "CMCIN_layout_0": 4, "CMCIN_layout_1": 3, "CMCIN_layout_2": 1}
	for name, msgs := range want {
		st, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatalf("stream %s: %v", name, err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs != msgs {
			t.Errorf("stream %s holds %d messages, want %d", name, info.State.Msgs, msgs)
		}
	}

	other.Close() // the runs are over: DeleteRun comes after every partition
	for _, x := range xs {
		x.Close()
	}
	if err := DeleteRun(ctx, nc, "layou"); err != nil {
		t.Fatal(err)
	}
	if got, want := streamNames(t, js), []string{"CMCIN_layout_0", "CMCIN_layout_1", "CMCIN_layout_2", "CMC_layout"}; !slices.Equal(got, want) {
		t.Errorf("after deleting run layou the server has streams %q, want %q", got, want)
	}
	if err := DeleteRun(ctx, nc, run); err != nil {
		t.Fatal(err)
	}
	if got := streamNames(t, js); len(got) != 0 {
		t.Errorf("after deleting run %s the server has streams %q, want none", run, got)
	}
}

// streamNames returns the names of the server's streams, sorted.
func streamNames(t *testing.T, js jetstream.JetStream) []string {
	t.Helper()
	list := js.StreamNames(context.Background())
	var names []string
	for name := range list.Name() {
		names = append(names, name)
	}
	if err := list.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}
