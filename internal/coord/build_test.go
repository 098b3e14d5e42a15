package coord

import (
	"context"
	"sync"
	"testing"
)

// TestConcurrentBuilds: eight builds of one package at once, as parallel cmcdap runs do, all
// succeed and leave a worker that answers. (Rewriting the overlay files in place made about one
// build in six fail with "does not build".)
func TestConcurrentBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	ctx := context.Background()
	p, err := Resolve(ctx, ".", "./testdata/badmodels")
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	bins := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { bins[i], errs[i] = Build(ctx, p) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("build %d of %d: %v", i+1, n, err)
		}
	}
	if t.Failed() {
		return
	}
	models, err := Models(ctx, bins[0], nil)
	if err != nil || len(models) != 4 {
		t.Fatalf("the built worker lists %v, %v; want the 4 models of badmodels", models, err)
	}
}
