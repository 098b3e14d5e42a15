package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/cmc-go/cmc/cluster"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/examples/twophase"
	"github.com/cmc-go/cmc/internal/broker"
)

// TestWorkerProcess is not a test of its own: TestKilledWorkerResumesInANewPod runs this test
// binary as `cmcdap worker` with the arguments in CMC_TEST_WORKER_ARGS (one a line).
func TestWorkerProcess(t *testing.T) {
	args := os.Getenv("CMC_TEST_WORKER_ARGS")
	if args == "" {
		t.Skip("runs cmcdap worker for TestKilledWorkerResumesInANewPod")
	}
	os.Exit(workerCommand(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// a workerProcess is one `cmcdap worker` process, as one pod runs it.
type workerProcess struct {
	cmd         *exec.Cmd
	out, errOut bytes.Buffer
}

// startWorker starts partition k of the run in a process group of its own (so a kill takes its
// worker binary too, as a pod's end does) and in a new empty working directory.
func startWorker(t *testing.T, b *broker.Broker, run string, k int, pkg string) *workerProcess {
	t.Helper()
	dir := t.TempDir()
	args := []string{"-run", run, "-partitions", "2", "-partition", strconv.Itoa(k), "-model", "TwoPhase", "-set", "RM=6",
		"-json", "-q", "-db", filepath.Join(dir, "traces.db"), pkg}
	w := &workerProcess{cmd: exec.Command(os.Args[0], "-test.run=^TestWorkerProcess$")}
	w.cmd.Dir = dir
	w.cmd.Env = append(os.Environ(), "CMC_TEST_WORKER_ARGS="+strings.Join(args, "\n"),
		cluster.EnvURL+"="+b.URL, cluster.EnvToken+"="+b.Token, "CMC_TEST_KILL=")
	w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.errOut
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL) })
	return w
}

// TestKilledWorkerResumesInANewPod: on a cluster, partition 1's worker process is killed with
// SIGKILL in the middle of the run and started again in a new, empty working directory, as a new
// pod on another node would be. It goes on from its checkpoint in NATS's object store (the
// worker's default), and partition 0 reports the single-process search's figures. The run's
// checkpoint buckets are gone afterwards.
func TestKilledWorkerResumesInANewPod(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary and runs three worker processes")
	}
	want, err := engine.Check(context.Background(), twophase.New(6), engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := broker.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	nc, err := cluster.Connect(cluster.Config{URL: b.URL, Token: b.Token}, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	pkg, _ := filepath.Abs("../../examples/twophase")
	const run = "podkill"
	p0 := startWorker(t, b, run, 0, pkg)
	p1 := startWorker(t, b, run, 1, pkg)

	// Kill partition 1 once it has stored its checkpoint a few times (a level each), with most
	// of the search still to go (TwoPhase RM=6 is 20 levels deep).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bucket := cluster.CheckpointBucket(run, 1)
	var obs jetstream.ObjectStore
	for obs == nil {
		if obs, err = js.ObjectStore(ctx, bucket); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) || ctx.Err() != nil {
			t.Fatalf("partition 1's bucket: %v, %v (stderr: %s)", err, ctx.Err(), p1.errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	watch, err := obs.Watch(ctx, jetstream.UpdatesOnly())
	if err != nil {
		t.Fatal(err)
	}
	for saves := 0; saves < 6; {
		select {
		case info := <-watch.Updates():
			if info != nil && !info.Deleted {
				saves++
			}
		case <-ctx.Done():
			t.Fatalf("partition 1 saved %d checkpoints (stderr: %s)", saves, p1.errOut.String())
		}
	}
	watch.Stop()
	syscall.Kill(-p1.cmd.Process.Pid, syscall.SIGKILL)
	if err := p1.cmd.Wait(); err == nil {
		t.Fatalf("partition 1 finished before it was killed: %s", p1.errOut.String())
	}

	again := startWorker(t, b, run, 1, pkg)
	if err := again.cmd.Wait(); err != nil {
		t.Fatalf("partition 1 started again: %v: %s", err, again.errOut.String())
	}
	if err := p0.cmd.Wait(); err != nil {
		t.Fatalf("partition 0: %v: %s", err, p0.errOut.String())
	}
	m := regexp.MustCompile(`resumed from its checkpoint at level (\d+)`).FindStringSubmatch(again.errOut.String())
	if m == nil || m[1] == "0" {
		t.Errorf("partition 1 did not resume from a checkpoint past level 0: %s", again.errOut.String())
	} else {
		t.Logf("partition 1 resumed from its checkpoint at level %s", m[1])
	}
	var got checkJSON
	if err := json.Unmarshal(p0.out.Bytes(), &got); err != nil {
		t.Fatalf("partition 0 printed %q: %v", p0.out.String(), err)
	}
	if got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth || !got.Complete {
		t.Errorf("after a pod's kill: %+v; one process: %d states, %d transitions, depth %d", got, want.States, want.Transitions, want.Depth)
	}
	for k := range 2 {
		if _, err := js.ObjectStore(ctx, cluster.CheckpointBucket(run, k)); !errors.Is(err, jetstream.ErrBucketNotFound) {
			t.Errorf("partition %d's bucket outlived the run: %v", k, err)
		}
	}
}
