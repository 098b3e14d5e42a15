package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/examples/twophase"
	"github.com/cmc-go/cmc/internal/broker"
)

// startBroker starts a real NATS server with JetStream on loopback, as cmcdap check does.
func startBroker(t testing.TB) *broker.Broker {
	t.Helper()
	b, err := broker.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func connect(t testing.TB, b *broker.Broker) *nats.Conn {
	t.Helper()
	nc, err := Connect(Config{URL: b.URL, Token: b.Token}, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// TestSearchOverJetStream: n partitions, each with its own connection, exchange and instance of
// the model, find the single-process search's figures through a real NATS server.
func TestSearchOverJetStream(t *testing.T) {
	b := startBroker(t)
	cases := []struct {
		name  string
		build func() *cmc.Model
	}{
		{"TwoPhase RM=4", func() *cmc.Model { return twophase.New(4) }},
		{"two counters with Choose and an invariant", twoCounters},
	}
	for _, c := range cases {
		want, err := engine.Check(context.Background(), c.build(), engine.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 3} {
			run := fmt.Sprintf("t%d%s", n, strings.Map(func(r rune) rune {
				if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
					return r
				}
				return -1
			}, c.name))
			res := make([]*engine.Result, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for p := range n {
				x, err := NewExchange(context.Background(), connect(t, b), run, p, n)
				if err != nil {
					t.Fatal(err)
				}
				m := c.build()
				wg.Go(func() {
					defer x.Close()
					res[p], errs[p] = engine.CheckPartition(context.Background(), m, engine.Options{}, engine.Partition{Index: p, Count: n, Exchange: x, InProcess: true})
				})
			}
			wg.Wait()
			for p, err := range errs {
				if err != nil {
					t.Fatalf("%s, partition %d of %d: %v", c.name, p, n, err)
				}
			}
			got := res[0]
			// A violation stops the sequential search within a level, the partitioned one at its end.
			if len(want.Violations) == 0 && (got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth || got.Complete != want.Complete) {
				t.Errorf("%s, %d partitions: %d states, %d transitions, depth %d, complete %v; one process: %d, %d, %d, %v",
					c.name, n, got.States, got.Transitions, got.Depth, got.Complete, want.States, want.Transitions, want.Depth, want.Complete)
			}
			if len(got.Violations) != len(want.Violations) || len(want.Violations) > 0 && len(got.Violations[0].Steps) != len(want.Violations[0].Steps) {
				t.Errorf("%s, %d partitions: violations %v, one process %v", c.name, n, got.Violations, want.Violations)
			}
			if n > 1 && got.Partitions[1].Bytes == 0 {
				t.Errorf("%s, %d partitions: partition 1 sent nothing", c.name, n)
			}
			if err := DeleteRun(context.Background(), connect(t, b), run); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestExchangeDropsResentBatches: a partition that starts again sends its batches and reports
// again, with the same ids; the receiver gets each once.
func TestExchangeDropsResentBatches(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	recv, err := NewExchange(ctx, connect(t, b), "resend", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	for range 2 { // the first life of partition 0, then the one after a kill
		send, err := NewExchange(ctx, connect(t, b), "resend", 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"a", "b"} {
			if err := send.Send(ctx, 0, 1, []byte(s)); err != nil {
				t.Fatal(err)
			}
		}
		go send.Barrier(ctx, 0, []byte("report of 0"))
		defer send.Close()
	}
	reports, err := recv.Barrier(ctx, 0, []byte("report of 1"))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%q", reports) != `["report of 0" "report of 1"]` {
		t.Errorf("reports %q", reports)
	}
	got, err := receive(ctx, recv, 0, []int{2, 0})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%q", got) != `["a" "b"]` {
		t.Errorf("received %q, want a and b once each", got)
	}
}

// TestConnectFailsClearly: an unreachable server or a wrong token is a one-line error within a
// few seconds that names the server but not the secret.
func TestConnectFailsClearly(t *testing.T) {
	b := startBroker(t)
	port := b.URL[strings.LastIndex(b.URL, ":")+1:]
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "nats://s3cret@127.0.0.1:1"}, "connect to NATS at nats://127.0.0.1:1: "},
		{Config{URL: b.URL, Token: "s3cret"}, "check the token"},
		{Config{URL: "nats://127.0.0.1:" + port}, "check the token"},
		{Config{}, "no NATS URL"},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := Connect(c.cfg, "test")
		if err == nil {
			t.Fatalf("%s: connected", Redacted(c.cfg.URL))
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "s3cret") || strings.Contains(msg, "\n") {
			t.Errorf("error %q: want one line with %q and no secret", msg, c.want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: failed after %v", Redacted(c.cfg.URL), d)
		}
	}
}

type counters struct{ X, Y int }

// twoCounters: two processes count up by 1 to 3 (a Choose) to 30; reaching (20, 7) violates.
func twoCounters() *cmc.Model {
	c := &counters{}
	m := cmc.NewModel("counters")
	m.Process("x", &c.X).On("add", func() { c.X += 1 + cmc.Choose(3) }, cmc.When(func() bool { return c.X < 30 }))
	m.Process("y", &c.Y).On("add", func() { c.Y += 1 + cmc.Choose(3) }, cmc.When(func() bool { return c.Y < 30 }))
	m.Invariant("not-20-7", func() error {
		if c.X == 20 && c.Y == 7 {
			return fmt.Errorf("x is 20 and y 7")
		}
		return nil
	})
	return m
}

// TestExchangeManyBatches: a level of more batches than the client keeps unacknowledged arrives
// whole and in order.
func TestExchangeManyBatches(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	send, err := NewExchange(ctx, connect(t, b), "many", 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer send.Close()
	recv, err := NewExchange(ctx, connect(t, b), "many", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	const n = 5000
	for i := range n {
		if err := send.Send(ctx, 0, 1, []byte(fmt.Sprint(i))); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	go send.Barrier(ctx, 0, []byte("0"))
	if _, err := recv.Barrier(ctx, 0, []byte("1")); err != nil {
		t.Fatal(err)
	}
	got, err := receive(ctx, recv, 0, []int{n, 0})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		if string(g) != fmt.Sprint(i) {
			t.Fatalf("batch %d is %q", i, g)
		}
	}
}

// receive collects what Receive hands over.
func receive(ctx context.Context, x *Exchange, level int, counts []int) ([][]byte, error) {
	var got [][]byte
	err := x.Receive(ctx, level, counts, func(b []byte) error {
		got = append(got, b)
		return nil
	})
	return got, err
}

// TestStreamForgetsCheckpointedLevels: when every partition keeps checkpoints, the partitions'
// streams drop the batches of the levels every partition has a checkpoint past, so the NATS server does
// not hold every batch of the run; without checkpoints it keeps them all (a partition started
// again would go back to level 0).
func TestStreamForgetsCheckpointedLevels(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	for _, checkpoints := range []bool{false, true} {
		run := fmt.Sprintf("forget%v", checkpoints)
		const n = 2
		res := make([]*engine.Result, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for p := range n {
			x, err := NewExchange(ctx, connect(t, b), run, p, n)
			if err != nil {
				t.Fatal(err)
			}
			part := engine.Partition{Index: p, Count: n, Exchange: x, InProcess: true}
			if checkpoints {
				part.Checkpoints = &memCheckpoints{}
			}
			wg.Go(func() {
				defer x.Close()
				res[p], errs[p] = engine.CheckPartition(ctx, twophase.New(4), engine.Options{}, part)
			})
		}
		wg.Wait()
		for p, err := range errs {
			if err != nil {
				t.Fatalf("partition %d: %v", p, err)
			}
		}
		levels, rounds := held(t, connect(t, b), run, n)
		if !checkpoints && !slices.Contains(levels, 0) {
			t.Errorf("without checkpoints the streams hold batches of levels %v; want every level from 0", levels)
		}
		// The last level sent nothing new, and every partition has a checkpoint of it: none is left.
		if checkpoints && len(levels) > 0 {
			t.Errorf("with checkpoints the streams hold batches of levels %v after the run; want none", levels)
		}
		// Nor the reports of the rounds before the last level: the server frees a block of the
		// stream (and the copy of it in its memory) only once every message in it is gone, and a
		// report is in every level's last block.
		if last := res[0].Depth + 1; checkpoints && (len(rounds) == 0 || rounds[0] < last) {
			t.Errorf("with checkpoints the stream holds the reports of rounds %v after the run; want those of %d and later only", rounds, last)
		}
	}
}

// held returns the levels of the batches the streams of the run's n partitions hold (each
// stream's in its order) and the rounds of the reports the run's stream holds.
func held(t *testing.T, nc *nats.Conn, run string, n int) (levels, rounds []int) {
	t.Helper()
	ctx := context.Background()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	streams := []string{runStream(run)}
	for k := range n {
		streams = append(streams, inStream(run, k))
	}
	for _, name := range streams {
		st, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
			m, err := st.GetMsg(ctx, seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue // purged
			}
			if err != nil {
				t.Fatal(err)
			}
			if l, err := strconv.Atoi(m.Header.Get("Cmc-Level")); err == nil {
				levels = append(levels, l)
			}
			if r, err := strconv.Atoi(m.Header.Get("Cmc-Round")); err == nil {
				rounds = append(rounds, r)
			}
		}
	}
	return levels, rounds
}

// memCheckpoints keep a checkpoint in memory.
type memCheckpoints struct{ data []byte }

func (c *memCheckpoints) Save(write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	c.data = b.Bytes()
	return nil
}

func (c *memCheckpoints) Load() (io.ReadCloser, error) {
	if c.data == nil {
		return nil, nil
	}
	return io.NopCloser(bytes.NewReader(c.data)), nil
}
