package coord

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"os"
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

// TestBuildUsesProfile: a worker is built with the embedded profile (-pgo), which the go command
// records in the binary, and the profile written to the cache is the embedded one.
func TestBuildUsesProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	p, err := Resolve(context.Background(), ".", "./testdata/badmodels")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Build(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var prof string
	for _, s := range info.Settings {
		if s.Key == "-pgo" {
			prof = s.Value
		}
	}
	if prof == "" {
		t.Fatalf("the worker was built without -pgo: settings %v", info.Settings)
	}
	b, err := os.ReadFile(prof)
	if err != nil || !bytes.Equal(b, workerProfile) || len(b) == 0 {
		t.Fatalf("the worker's profile %s (%v) is not the embedded one (%d bytes)", prof, err, len(workerProfile))
	}
}
