package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// An Exchange is one partition's engine.Exchange over NATS JetStream.
//
// A run has a stream per partition for the batches addressed to it (CMCIN_<run>_<K>, subject
// cmcin.<run>.<K>) and the run's stream, CMC_<run>, whose control subject carries the level
// reports (cmc.<run>.ctl). JetStream stores a stream's messages in order in one place, so one
// stream for every batch would bound the run by what one stream takes; streams of their own are
// stored independently (and can be placed on different servers of a NATS cluster). The streams
// are stored on disk and kept until the run is over, so they are the log of the run: a partition
// that starts again (after kill -9) reads its stream and the control subject from the beginning,
// and re-running its deterministic search against them reaches the state it was in (cluster.md:
// "Resume after kill").
//
// Every message has an id (Nats-Msg-Id: run, kind, level or round, sender, destination, number),
// so what a restarted partition sends again is dropped by JetStream's duplicate window; the
// receiver also keeps only the first message with a given (level, sender, number) and ignores
// messages of levels it is done with, so a duplicate past the window changes nothing.
//
// The barrier is the control subject, not a KV bucket per level: a report is one message every
// partition reads in order anyway, the stream keeps them for a restarted partition, and a level
// needs no bucket to be made and deleted.
type Exchange struct {
	js    jetstream.JetStream
	in    jetstream.Stream // this partition's batches
	ctl   jetstream.Stream // the run's: the level reports (and a swarm's subjects)
	run   string
	me, n int

	mu      sync.Mutex
	changed chan struct{}         // closed when a message arrives
	batches map[batchKey][]byte   // arrived, not yet handed to Receive's take
	handed  map[batchKey]struct{} // handed, of levels not done
	handedN map[[2]int]int        // (level, from) -> batches handed
	lastSeq map[int]uint64        // level -> the sequence of its last batch in this partition's stream
	ctlSeq  map[int]uint64        // round -> the run stream's sequence of its last report
	reports map[reportKey][]byte
	doneL   int // levels before this one are received: their batches are dropped
	doneR   int // rounds before this one are over
	err     error
	seq     map[[2]int]int // (level, to) -> batches sent
	acks    []jetstream.PubAckFuture
	cons    []jetstream.ConsumeContext
	// Stalled, when set, is called when a wait has lasted another minute, with what it waits for.
	Stalled func(what string)
}

type batchKey struct{ level, from, seq int }
type reportKey struct{ round, from int }

var runName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// duplicateWindow is how long JetStream remembers message ids. It bounds nothing the search
// needs (the receiver drops duplicates itself); it saves storing what a restarted partition sends
// again while it catches up.
const duplicateWindow = time.Hour

// NewExchange joins run as partition me of n on nc, making the run's streams that are not there:
// every partition makes (or finds) all of them before it sends, so no batch goes to a subject no
// stream captures (JetStream would refuse it).
func NewExchange(ctx context.Context, nc *nats.Conn, run string, me, n int) (*Exchange, error) {
	if !runName.MatchString(run) {
		return nil, fmt.Errorf("run id %q: use 1 to 64 letters, digits, - or _", run)
	}
	if n < 1 || me < 0 || me >= n {
		return nil, fmt.Errorf("partition %d of %d: the partition must be from 0 to %d", me, n, n-1)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	x := &Exchange{js: js, run: run, me: me, n: n, changed: make(chan struct{}),
		batches: map[batchKey][]byte{}, handed: map[batchKey]struct{}{}, handedN: map[[2]int]int{}, lastSeq: map[int]uint64{}, ctlSeq: map[int]uint64{}, reports: map[reportKey][]byte{}, seq: map[[2]int]int{}}
	if x.ctl, err = makeStream(ctx, nc, js, runStream(run), "cmc."+run+".>"); err != nil {
		return nil, err
	}
	for i := range n { // its own first, then the next ones: the partitions do not all race for one
		k := (me + i) % n
		st, err := makeStream(ctx, nc, js, inStream(run, k), x.subject(k))
		if err != nil {
			return nil, err
		}
		if k == me {
			x.in = st
		}
	}
	for _, r := range []struct{ stream, subj string }{{inStream(run, me), x.subject(me)}, {runStream(run), x.control()}} {
		subj := r.subj
		c, err := js.OrderedConsumer(ctx, r.stream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}, DeliverPolicy: jetstream.DeliverAllPolicy})
		if err != nil {
			x.Close()
			return nil, fmt.Errorf("read %s: %w", subj, err)
		}
		cc, err := c.Consume(x.arrived)
		if err != nil {
			x.Close()
			return nil, fmt.Errorf("read %s: %w", subj, err)
		}
		x.cons = append(x.cons, cc)
	}
	return x, nil
}

// runStream is the name of a run's stream: its control subject and the swarm's subjects.
func runStream(run string) string { return "CMC_" + run }

// inStream is the name of the stream of the batches to partition k. Its prefix is not CMC_, so no
// run's id makes its run stream's name one of another run's partition streams.
func inStream(run string, k int) string { return "CMCIN_" + run + "_" + strconv.Itoa(k) }

// makeStream makes a stream of the run unless it is there. Every partition tries, at about the
// same time: one that finds it made by another uses it, and a failure to make it (the server is
// still making another's, or is busy) is tried again a few times.
func makeStream(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, name, subject string) (jetstream.Stream, error) {
	cfg := jetstream.StreamConfig{
		Name: name, Subjects: []string{subject}, Storage: jetstream.FileStorage,
		Duplicates: duplicateWindow, Retention: jetstream.LimitsPolicy,
	}
	var err error
	for attempt := range 10 {
		var st jetstream.Stream
		if st, err = js.Stream(ctx, name); err == nil {
			return st, nil
		}
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			if _, err = js.CreateStream(ctx, cfg); err == nil || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				continue // look it up: ours, or another partition's
			}
		}
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return nil, fmt.Errorf("NATS at %s has no JetStream: start nats-server with -js", Redacted(nc.ConnectedUrlRedacted()))
		}
		if ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(time.Duration(attempt+1) * 100 * time.Millisecond):
		case <-ctx.Done():
		}
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return nil, fmt.Errorf("make the run's stream %s: %w", name, err)
}

// Resume skips what the levels and rounds before level sent: the partition goes on from its
// checkpoint at level (engine.Resumer).
func (x *Exchange) Resume(level int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.doneL, x.doneR = level, level
	for k := range x.batches {
		if k.level < level {
			delete(x.batches, k)
		}
	}
	for k := range x.handed {
		if k.level < level {
			delete(x.handed, k)
		}
	}
	for k := range x.reports {
		if k.round < level {
			delete(x.reports, k)
		}
	}
}

// Forget removes the batches the levels before level sent this partition from its stream, and
// the reports of the rounds before it from the run's stream (engine.Forgetter): every partition
// has a checkpoint at level or later, so none will read them again, and the NATS server need not
// keep them. A level's batches are all stored before any of the next level's is sent (Barrier
// waits for them), so they are the stream's messages up to the last one of level-1; likewise the
// reports.
//
// The reports matter for memory, not for bytes: JetStream drops a block of a stream (up to
// 8 MiB, held in the server's memory while in use) as soon as every message in it is gone, but a
// block that keeps one message stays in memory until it has not been used for about 10 s. While
// the reports stayed, the server held about the last 10 s of the run's messages rather than one
// level's (cluster.md "What the streams keep").
func (x *Exchange) Forget(ctx context.Context, level int) error {
	x.mu.Lock()
	batches, reports := below(x.lastSeq, level), below(x.ctlSeq, level)
	x.mu.Unlock()
	for _, p := range []struct {
		st      jetstream.Stream
		subject string
		seq     uint64
	}{{x.in, x.subject(x.me), batches}, {x.ctl, x.control(), reports}} {
		if p.seq == 0 {
			continue
		}
		if err := p.st.Purge(ctx, jetstream.WithPurgeSubject(p.subject), jetstream.WithPurgeSequence(p.seq+1)); err != nil {
			return fmt.Errorf("purge %s up to sequence %d: %w", p.subject, p.seq, err)
		}
	}
	return nil
}

// below removes the levels (or rounds) before level from last and returns the greatest stream
// sequence they had.
func below(last map[int]uint64, level int) uint64 {
	var seq uint64
	for l, s := range last {
		if l < level {
			seq = max(seq, s)
			delete(last, l)
		}
	}
	return seq
}

// Close stops reading; the streams stay (DeleteRun removes them).
func (x *Exchange) Close() {
	for _, c := range x.cons {
		c.Stop()
	}
}

// DeleteRun removes a run's streams, once every partition is done with them. It finds the
// partitions' streams by their subjects, so it needs no partition count and removes those of a
// swarm's run (none) or a partitioned one alike.
func DeleteRun(ctx context.Context, nc *nats.Conn, run string) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	names := []string{runStream(run)}
	list := js.StreamNames(ctx, jetstream.WithStreamListSubject("cmcin."+run+".>"))
	for name := range list.Name() {
		names = append(names, name)
	}
	if err := list.Err(); err != nil {
		return fmt.Errorf("list the run's streams: %w", err)
	}
	for _, name := range names {
		if err := js.DeleteStream(ctx, name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("delete the run's stream %s: %w", name, err)
		}
	}
	return nil
}

// subject is where the batches to partition p go; its first token is not the run stream's (cmc),
// so partition p's stream alone captures them.
func (x *Exchange) subject(p int) string { return "cmcin." + x.run + "." + strconv.Itoa(p) }

// control is the subject of the level reports.
func (x *Exchange) control() string { return "cmc." + x.run + ".ctl" }

// maxUnacked bounds the batches published and not yet acknowledged (the client refuses more than
// a few thousand).
const maxUnacked = 512

// Send publishes a batch without waiting for JetStream's acknowledgement; Barrier waits for them
// all before it reports the level.
func (x *Exchange) Send(ctx context.Context, level, to int, batch []byte) error {
	if len(x.acks) >= maxUnacked {
		if err := x.acked(ctx); err != nil {
			return err
		}
	}
	k := [2]int{level, to}
	seq := x.seq[k]
	x.seq[k] = seq + 1
	m := nats.NewMsg(x.subject(to))
	m.Data = batch
	m.Header.Set("Cmc-Level", strconv.Itoa(level))
	m.Header.Set("Cmc-From", strconv.Itoa(x.me))
	m.Header.Set("Cmc-Seq", strconv.Itoa(seq))
	f, err := x.js.PublishMsgAsync(m, jetstream.WithMsgID(fmt.Sprintf("%s.b.%d.%d.%d.%d", x.run, level, x.me, to, seq)))
	if err != nil {
		return err
	}
	x.acks = append(x.acks, f)
	return nil
}

// Barrier waits until every batch of the level is stored, publishes the report and waits for
// every partition's.
func (x *Exchange) Barrier(ctx context.Context, round int, report []byte) ([][]byte, error) {
	if err := x.acked(ctx); err != nil {
		return nil, err
	}
	clear(x.seq)
	m := nats.NewMsg(x.control())
	m.Data = report
	m.Header.Set("Cmc-Round", strconv.Itoa(round))
	m.Header.Set("Cmc-From", strconv.Itoa(x.me))
	if _, err := x.js.PublishMsg(ctx, m, jetstream.WithMsgID(fmt.Sprintf("%s.r.%d.%d", x.run, round, x.me))); err != nil {
		return nil, fmt.Errorf("publish the report of round %d: %w", round, err)
	}
	var out [][]byte
	err := x.wait(ctx, func() (bool, string) {
		for q := range x.n {
			if _, ok := x.reports[reportKey{round, q}]; !ok {
				return false, fmt.Sprintf("partition %d's report of round %d", q, round)
			}
		}
		for q := range x.n {
			k := reportKey{round, q}
			out = append(out, x.reports[k])
			delete(x.reports, k)
		}
		x.doneR = round + 1
		return true, ""
	})
	return out, err
}

// Receive hands take the batches of level that have arrived and not been handed before, by sender
// and number; with counts, it waits until it has handed as many as counts says were sent to this
// partition at level. A batch handed over is no longer held here.
func (x *Exchange) Receive(ctx context.Context, level int, counts []int, take func([]byte) error) error {
	for {
		var ready []batchKey
		var data [][]byte
		done := false
		err := x.wait(ctx, func() (bool, string) {
			for k := range x.batches {
				if k.level == level {
					ready = append(ready, k)
				}
			}
			slices.SortFunc(ready, func(a, b batchKey) int { return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.seq, b.seq)) })
			for _, k := range ready {
				data = append(data, x.batches[k])
				delete(x.batches, k)
				x.handed[k] = struct{}{}
				x.handedN[[2]int{level, k.from}]++
			}
			what := ""
			for q, c := range counts {
				if n := x.handedN[[2]int{level, q}]; n < c {
					what = fmt.Sprintf("batch %d of %d from partition %d at level %d", n+1, c, q, level)
					break
				}
			}
			if done = counts != nil && what == ""; done {
				x.doneL = level + 1
				for k := range x.handed {
					if k.level <= level {
						delete(x.handed, k)
					}
				}
				for k := range x.handedN {
					if k[0] <= level {
						delete(x.handedN, k)
					}
				}
			}
			return counts == nil || done || len(data) > 0, what
		})
		if err != nil {
			return err
		}
		for _, b := range data {
			if err := take(b); err != nil {
				return err
			}
		}
		if counts == nil || done {
			return nil
		}
	}
}

// acked waits until JetStream has stored every batch published.
func (x *Exchange) acked(ctx context.Context) error {
	for _, f := range x.acks {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("publish a batch: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	x.acks = x.acks[:0]
	return nil
}

// wait calls ready under the lock until it returns true, an error arrives, or ctx ends.
func (x *Exchange) wait(ctx context.Context, ready func() (bool, string)) error {
	waited := time.Duration(0)
	for {
		x.mu.Lock()
		if x.err != nil {
			err := x.err
			x.mu.Unlock()
			return err
		}
		ok, what := ready()
		ch := x.changed
		x.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(time.Minute):
			waited += time.Minute
			if x.Stalled != nil {
				x.Stalled(fmt.Sprintf("waited %v for %s", waited, what))
			}
		}
	}
}

// arrived files a message from the stream.
func (x *Exchange) arrived(m jetstream.Msg) {
	h := m.Headers()
	num := func(k string) (int, bool) {
		v, err := strconv.Atoi(h.Get(k))
		return v, err == nil && v >= 0
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	from, okF := num("Cmc-From")
	if lv, ok := num("Cmc-Level"); ok {
		seq, okS := num("Cmc-Seq")
		switch k := (batchKey{lv, from, seq}); {
		case !okF || !okS || from >= x.n:
			x.fail(fmt.Errorf("a batch on %s has bad headers (another run with the same id?)", m.Subject()))
		case lv < x.doneL:
		default:
			if md, err := m.Metadata(); err == nil {
				x.lastSeq[lv] = max(x.lastSeq[lv], md.Sequence.Stream)
			}
			_, dup := x.batches[k]
			if _, handed := x.handed[k]; !dup && !handed {
				x.batches[k] = m.Data()
			}
		}
	} else if r, ok := num("Cmc-Round"); ok && okF && from < x.n {
		if md, err := m.Metadata(); err == nil {
			x.ctlSeq[r] = max(x.ctlSeq[r], md.Sequence.Stream)
		}
		if k := (reportKey{r, from}); r >= x.doneR {
			if _, dup := x.reports[k]; !dup {
				x.reports[k] = m.Data()
			}
		}
	} else {
		x.fail(fmt.Errorf("a message on %s has no level or round (another program writes to the run's subjects?)", m.Subject()))
	}
	close(x.changed)
	x.changed = make(chan struct{})
}

func (x *Exchange) fail(err error) {
	if x.err == nil {
		x.err = err
	}
}
