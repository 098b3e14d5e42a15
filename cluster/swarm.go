package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/cmc-go/cmc/engine"
)

// A Swarm is one process's share of a swarm whose members run in several processes
// (engine.SwarmShare): member i runs in process i mod n, and process 0 merges.
//
// It uses the run's stream (CMC_<run>, as a partitioned check's Exchange does) with two subjects:
// cmc.<run>.sw.m.<i> carries what member i found (engine.SwarmMember's wire form, in chunks a
// NATS message can hold) for the members processes other than 0 run, cmc.<run>.sw.stop the
// members that stopped the swarm. Every process
// reads the stop subject from the beginning, so one started again knows which of its members need
// not run; process 0 reads the members' subject too. Progress is not kept: each process publishes
// its members' on the plain NATS subject cmcprogress.<run>, which process 0 adds up.
//
// Every message has an id (Nats-Msg-Id), so what a process started again publishes again is
// dropped by JetStream's duplicate window; process 0 also keeps only the first chunk it receives
// of each member's, and members are deterministic, so a duplicate past the window changes nothing.
type Swarm struct {
	js          jetstream.JetStream
	nc          *nats.Conn
	run         string
	me, n, size int // this process, the processes, the members
	chunk       int // bytes a message carries

	mu       sync.Mutex
	changed  chan struct{} // closed when a message arrives
	stop     int           // the least member that stopped the swarm (size: none yet)
	running  map[int]context.CancelFunc
	chunks   map[int]map[int][]byte // process 0: member -> chunk -> bytes
	count    map[int]int            // process 0: member -> its number of chunks
	members  []memberProgress       // process 0: every member's; others: this process's
	lastSent time.Time
	err      error
	cons     []jetstream.ConsumeContext
	sub      *nats.Subscription

	report func(engine.Progress) // process 0: the swarm's progress, every member's added up
	// Stalled, when set, is called when a wait has lasted another minute, with what it waits for.
	Stalled func(what string)
	// beforeFinished, when set, is called with each member that ended before it is told of (the
	// test of kill -9: swarmop.go).
	beforeFinished func(i int)
}

// memberProgress is one member's last progress, as process 0 adds it up.
type memberProgress struct {
	engine.Progress
	Member int  `json:"member"`
	Done   bool `json:"done,omitempty"`
}

// NewSwarm joins run as process me of n of a swarm of members members, on nc. In process 0,
// report (when not nil) hears the swarm's progress: every member's, wherever it runs, added up.
func NewSwarm(ctx context.Context, nc *nats.Conn, run string, me, n, members int, report func(engine.Progress)) (*Swarm, error) {
	if !runName.MatchString(run) {
		return nil, fmt.Errorf("run id %q: use 1 to 64 letters, digits, - or _", run)
	}
	if n < 1 || me < 0 || me >= n {
		return nil, fmt.Errorf("process %d of %d: the process must be from 0 to %d", me, n, n-1)
	}
	if members < n {
		return nil, fmt.Errorf("%d members on %d processes: give at least as many members as processes", members, n)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	sw := &Swarm{js: js, nc: nc, run: run, me: me, n: n, size: members, stop: members, changed: make(chan struct{}), report: report,
		running: map[int]context.CancelFunc{}, chunks: map[int]map[int][]byte{}, count: map[int]int{},
		members: make([]memberProgress, members), chunk: max(1<<10, min(512<<10, int(nc.MaxPayload())-4<<10))}
	// The run's stream, made as a partitioned check makes it.
	if _, err := makeStream(ctx, nc, js, runStream(run), "cmc."+run+".>"); err != nil {
		return nil, err
	}
	subjects := []string{sw.subject("stop")}
	if me == 0 {
		subjects = append(subjects, sw.subject("m.*"))
		if sw.sub, err = nc.Subscribe(sw.progressSubject(), sw.progressArrived); err != nil {
			return nil, fmt.Errorf("read %s: %w", sw.progressSubject(), err)
		}
	}
	for _, subj := range subjects {
		c, err := js.OrderedConsumer(ctx, runStream(run), jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}, DeliverPolicy: jetstream.DeliverAllPolicy})
		if err != nil {
			sw.Close()
			return nil, fmt.Errorf("read %s: %w", subj, err)
		}
		cc, err := c.Consume(sw.arrived)
		if err != nil {
			sw.Close()
			return nil, fmt.Errorf("read %s: %w", subj, err)
		}
		sw.cons = append(sw.cons, cc)
	}
	return sw, nil
}

// Close stops reading; the stream stays (DeleteRun removes it).
func (sw *Swarm) Close() {
	for _, c := range sw.cons {
		c.Stop()
	}
	if sw.sub != nil {
		sw.sub.Unsubscribe()
	}
}

func (sw *Swarm) subject(s string) string { return "cmc." + sw.run + ".sw." + s }
func (sw *Swarm) progressSubject() string { return "cmcprogress." + sw.run }

// Runs: member i runs in process i mod n.
func (sw *Swarm) Runs(i int) bool { return i%sw.n == sw.me }

// Merges: process 0 merges.
func (sw *Swarm) Merges() bool { return sw.me == 0 }

// Start returns member i's context, which a member before it that stops the swarm ends.
func (sw *Swarm) Start(ctx context.Context, i int) (context.Context, context.CancelFunc) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.stop < i {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	sw.running[i] = cancel
	return ctx, func() {
		sw.mu.Lock()
		delete(sw.running, i)
		sw.mu.Unlock()
		cancel()
	}
}

// stopped notes that member i stopped the swarm: the members after it end. Call with mu held.
func (sw *Swarm) stopped(i int) {
	if i >= sw.stop {
		return
	}
	sw.stop = i
	for j, cancel := range sw.running {
		if j > i {
			cancel()
		}
	}
}

// Finished publishes what member w.Index found: that it stopped the swarm first, so the others
// stop their later members as soon as they can, then its result.
func (sw *Swarm) Finished(w *engine.SwarmMember) error {
	if sw.beforeFinished != nil {
		sw.beforeFinished(w.Index)
	}
	ctx := context.Background()
	i := w.Index
	if w.Decides() {
		sw.mu.Lock()
		sw.stopped(i)
		sw.mu.Unlock()
		m := nats.NewMsg(sw.subject("stop"))
		m.Header.Set("Cmc-Member", strconv.Itoa(i))
		if _, err := sw.js.PublishMsg(ctx, m, jetstream.WithMsgID(fmt.Sprintf("%s.sw.stop.%d", sw.run, i))); err != nil {
			return fmt.Errorf("publish that member %d stopped the swarm: %w", i, err)
		}
	}
	if sw.Merges() {
		sw.progress(ended(w)) // its result stays here; started again, this process runs it again
		return nil
	}
	b, err := w.MarshalBinary()
	if err != nil {
		return err
	}
	chunks := max(1, (len(b)+sw.chunk-1)/sw.chunk)
	for c := range chunks {
		m := nats.NewMsg(sw.subject("m." + strconv.Itoa(i)))
		m.Data = b[c*sw.chunk : min(len(b), (c+1)*sw.chunk)]
		m.Header.Set("Cmc-Member", strconv.Itoa(i))
		m.Header.Set("Cmc-Chunk", strconv.Itoa(c))
		m.Header.Set("Cmc-Chunks", strconv.Itoa(chunks))
		// One at a time, each stored before the next: a process killed meanwhile leaves a prefix.
		if _, err := sw.js.PublishMsg(ctx, m, jetstream.WithMsgID(fmt.Sprintf("%s.sw.m.%d.%d", sw.run, i, c))); err != nil {
			return fmt.Errorf("publish what member %d found: %w", i, err)
		}
	}
	sw.progress(ended(w))
	return nil
}

// ended is the last progress of a member that ended.
func ended(w *engine.SwarmMember) memberProgress {
	r := w.Result
	p := memberProgress{Member: w.Index, Done: true, Progress: engine.Progress{States: r.States, Transitions: r.Transitions, Depth: r.Depth, Scenarios: len(r.Scenarios)}}
	for _, sc := range r.Scenarios {
		if sc.Reached {
			p.Reached++
		}
	}
	return p
}

// Progress is member i's progress as it runs.
func (sw *Swarm) Progress(i int, p engine.Progress) {
	sw.progress(memberProgress{Member: i, Progress: p})
}

// progress records a member's progress: process 0 reports the swarm's, the others publish
// theirs, at most once a second unless a member ended.
func (sw *Swarm) progress(p memberProgress) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if p.Member < 0 || p.Member >= sw.size {
		return
	}
	sw.members[p.Member] = p
	if sw.me == 0 {
		sw.reportAll()
		return
	}
	if now := time.Now(); p.Done || now.Sub(sw.lastSent) >= time.Second {
		sw.lastSent = now
		if b, err := json.Marshal(p); err == nil {
			sw.nc.Publish(sw.progressSubject(), b) // a lost one is made good by the next
		}
	}
}

// progressArrived takes another process's member's progress (process 0).
func (sw *Swarm) progressArrived(m *nats.Msg) {
	var p memberProgress
	if json.Unmarshal(m.Data, &p) == nil && p.Member%sw.n != 0 {
		sw.mu.Lock()
		defer sw.mu.Unlock()
		if p.Member >= 0 && p.Member < sw.size && !sw.members[p.Member].Done {
			sw.members[p.Member] = p
			sw.reportAll()
		}
	}
}

// reportAll tells report the swarm's progress: every member's states, transitions and stack added
// up, the deepest, the most scenarios one reached, and how many are done. Call with mu held.
func (sw *Swarm) reportAll() {
	if sw.report == nil {
		return
	}
	p := engine.Progress{Members: sw.size}
	for _, m := range sw.members {
		p.States += m.States
		p.Transitions += m.Transitions
		p.Frontier += m.Frontier
		p.Depth = max(p.Depth, m.Depth)
		p.Reached, p.Scenarios = max(p.Reached, m.Reached), max(p.Scenarios, m.Scenarios)
		if m.Done {
			p.MembersDone++
		}
	}
	sw.report(p)
}

// Member waits for what member i found, and takes it (process 0).
func (sw *Swarm) Member(ctx context.Context, i int) (*engine.SwarmMember, error) {
	var b []byte
	waited := time.Duration(0)
	for {
		sw.mu.Lock()
		err := sw.err
		n, ok := sw.count[i]
		if ok && len(sw.chunks[i]) == n {
			for c := range n {
				b = append(b, sw.chunks[i][c]...)
			}
			delete(sw.chunks, i)
		}
		ch := sw.changed
		sw.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if b != nil {
			break
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for swarm member %d (process %d): %w", i, i%sw.n, ctx.Err())
		case <-time.After(time.Minute):
			waited += time.Minute
			if sw.Stalled != nil {
				sw.Stalled(fmt.Sprintf("waited %v for swarm member %d (process %d)", waited, i, i%sw.n))
			}
		}
	}
	var w engine.SwarmMember
	if err := w.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("swarm member %d: %w", i, err)
	}
	sw.progress(ended(&w))
	return &w, nil
}

// arrived files a message from the stream: a member that stopped the swarm, or a chunk of what a
// member found.
func (sw *Swarm) arrived(m jetstream.Msg) {
	h := m.Headers()
	num := func(k string) (int, bool) {
		v, err := strconv.Atoi(h.Get(k))
		return v, err == nil && v >= 0
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	defer func() {
		close(sw.changed)
		sw.changed = make(chan struct{})
	}()
	i, ok := num("Cmc-Member")
	if !ok || i >= sw.size {
		sw.fail(fmt.Errorf("a message on %s names no member of the swarm's %d (another run with the same id?)", m.Subject(), sw.size))
		return
	}
	if m.Subject() == sw.subject("stop") {
		sw.stopped(i)
		return
	}
	c, okC := num("Cmc-Chunk")
	n, okN := num("Cmc-Chunks")
	if !okC || !okN || c >= n || m.Subject() != sw.subject("m."+strconv.Itoa(i)) {
		sw.fail(fmt.Errorf("a message on %s has bad headers (another run with the same id?)", m.Subject()))
		return
	}
	if sw.Runs(i) {
		return // this process's own member's (not published by it; by another run with this id?)
	}
	if had, ok := sw.count[i]; ok && had != n {
		sw.fail(fmt.Errorf("member %d's result came in %d and in %d chunks: do two runs share the id %s?", i, had, n, sw.run))
		return
	}
	if sw.chunks[i] == nil {
		if _, ok := sw.count[i]; ok {
			return // taken already
		}
		sw.chunks[i] = map[int][]byte{}
	}
	sw.count[i] = n
	if _, dup := sw.chunks[i][c]; !dup {
		sw.chunks[i][c] = m.Data()
	}
}

func (sw *Swarm) fail(err error) {
	if sw.err == nil {
		sw.err = err
	}
}
