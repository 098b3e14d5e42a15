package engine

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/internal/transition"
)

// A State is a whole-system state: the pool id of each component's canonical encoding, in the
// model's component order. States are only meaningful to the Machine that made them.
type State []uint32

// A Machine is one instance of a model: it loads states into the live Go values, runs event
// handlers on them and captures the result. Search and replay are both built on it, so a trace
// replays through exactly the code that found it.
//
// A Machine holds transition.Lock from NewMachine to Close: one model is checked at a time per
// process. The worker machines of a parallel search (parallel.go) are the exception: they run
// while the search's machine holds it, each on its own goroutine. A machine runs user code in its
// own transition.Slot, so cmc.Choose in a handler finds the machine running it.
type Machine struct {
	Def    *cmc.Definition
	out    Outcome // the Outcome explore returns
	pool   *pool
	enc    canon.Encoder
	dec    canon.Decoder
	buf    []byte
	loaded []uint32    // what each live root holds; dirty when a handler may have changed it
	bounds *bounds     // the model's value bounds (slicing.go)
	ran    []uint32    // what each root held when the last handler ran on it
	live   []liveValue // what each root held when a capture last found it unchanged
	older  []decoded   // each root's values decoded before its live one (decoded.go)
	caught []caught    // each root's values captures encoded lately (caught.go)
	ctx    *runCtx     // installed in slot, apart from the machine so that the slot does not keep it
	slot   *transition.Slot
	hasher stateHasher
	roots  []canon.Root // scratch for capture
	fps    []*canon.Footprint
	// builder and builderBytes are shallow copies of the roots made before the first restore, and
	// their capture: the self-check watches that nothing writes the builder's objects afterwards.
	builder      []canon.Root
	builderBytes [][]byte
	builderEnc   canon.Encoder // the builder's captures: its own, so they leave enc's state alone
	closed       bool
	// globals: a capture met a package-level variable (canon/globals.go), which every instance of
	// the model shares, so the model's transitions may not run in parallel.
	globals bool
	recent  *recent // the ids this machine interned lately, in front of the pool
	leaks   leaks
	// enabling is each event's enabling condition (nil: always enabled), in one slice: the
	// conditions run at every state, and the events' own structs are lines apart.
	enabling []func() bool
}

const dirty = ^uint32(0)

// A liveValue says that a component's live value was, as far as the program can tell, the decoding
// of pool entry id (dirty: nothing known) when the footprint was recorded. While its memory still
// holds the footprint's bytes, it still is: capturing it needs no encoding.
type liveValue struct {
	id uint32
	fp canon.Footprint
}

// NewMachine takes a model and captures its initial state. The live roots are then restored from
// the captured bytes, so every transition, in search and in replay, starts from a decoded state.
func NewMachine(m *cmc.Model) (*Machine, State, error) { return newMachine(m, true) }

// newMachine is NewMachine; without load, the live roots keep the objects the model's builder
// made until the first Load (the self-check compares them with their restored copy).
func newMachine(m *cmc.Model, load bool) (*Machine, State, error) {
	return newMachineOn(m, load, nil)
}

// newMachineOn is newMachine. With a pool it makes a worker machine of a parallel search: it
// shares the search machine's pool and does not take transition.Lock, which that machine holds.
func newMachineOn(m *cmc.Model, load bool, shared *pool) (*Machine, State, error) {
	def, err := m.Definition()
	if err != nil {
		return nil, nil, err
	}
	if err := canon.SetRules(def.Rules); err != nil {
		return nil, nil, fmt.Errorf("model %s: %w", def.Name, err)
	}
	k := len(def.Components)
	mc := &Machine{Def: def, pool: shared, loaded: padded[uint32](k), ran: padded[uint32](k), live: padded[liveValue](k),
		older: padded[decoded](k), caught: padded[caught](k), slot: transition.NewSlot(), recent: new(recent), ctx: new(runCtx)}
	runtime.AddCleanup(mc, (*transition.Slot).Release, mc.slot) // a machine that is never closed
	if shared == nil {
		transition.Lock.Lock()
		canon.SetRules(def.Rules) // again, holding the lock: another machine may have run meanwhile
		mc.pool = newPool()
	} else {
		mc.closed = true // a worker machine: Close has no lock to release
	}
	for i := range mc.loaded {
		mc.loaded[i], mc.ran[i], mc.live[i].id = dirty, dirty, dirty
	}
	for _, ev := range def.Events {
		mc.enabling = append(mc.enabling, ev.Enabled)
	}
	all := make([]int, len(def.Components))
	for i := range all {
		all[i] = i
	}
	init := make(State, len(def.Components))
	mc.noteValues() // the initial state's values count for every path
	if err := mc.capture(init, all); err != nil {
		mc.Close()
		return nil, nil, fmt.Errorf("capture initial state: %w", err)
	}
	if !load {
		return mc, init, nil
	}
	if err := mc.Load(init); err != nil {
		mc.Close()
		return nil, nil, err
	}
	return mc, init, nil
}

// Close releases the machine (and the process-wide lock on running user code).
func (mc *Machine) Close() {
	mc.slot.Release()
	if !mc.closed {
		mc.closed = true
		transition.Lock.Unlock()
	}
}

// Load makes the live roots hold s, restoring only the components that differ from what they
// hold. A component whose footprint is of the value s needs (the one last decoded, which a handler
// has since changed, or one decoded a little earlier and kept) gets its memory back from the
// footprint's copy; any other is decoded, and its footprint recorded for the next transitions from
// the same state.
func (mc *Machine) Load(s State) error {
	loaded := mc.loaded[:len(s)]
	for i, id := range s {
		if loaded[i] == id {
			continue
		}
		lv := &mc.live[i]
		if (lv.id == id || mc.older[i].take(lv, id)) && lv.fp.Restore() {
			mc.loaded[i] = id
			continue
		}
		mc.older[i].keep(lv)
		lv.id = dirty
		c := mc.Def.Components[i]
		b := mc.pool.blob(id)
		mc.older[i].large = mc.older[i].large || len(b) >= keepMoreFrom
		if err := mc.dec.DecodeValue(b, c.Root); err != nil {
			return fmt.Errorf("restore %s: %w", c.Name, err)
		}
		mc.loaded[i] = id
		if mc.dec.Footprint(&lv.fp) {
			lv.id = id
		}
	}
	return nil
}

// capture encodes the listed components of the live state into s, in one capture: they must share
// no object (canon.Encoder.EncodeComponents). Every transition must start from what decoding the
// state's bytes gives, in search and in replay alike, so a component the handler changed is marked
// as not loaded unless its live value is just what decoding its new bytes gives
// (canon.Encoder.AsDecoded; a set left out of order is not).
//
// Most transitions leave the shared environment as they found it. A component a capture finds
// unchanged gets a footprint (canon.Footprint), and while its memory still matches, later captures
// do not encode it again. One that a handler changed is often a value captures met before: one of
// a root's last values, or the one made from the same memory before (caught.go).
func (mc *Machine) capture(s State, comps []int) error {
	fps := mc.fps[:0]
	for _, i := range comps {
		// A component with values kept is one handlers set small values to (caught.go): it is
		// more often one of them than what the run started from.
		var fp *canon.Footprint
		if v := mc.caught[i].same(); v != nil {
			fp = &v.fp
			s[i], mc.loaded[i] = v.id, v.id
		} else if lv := &mc.live[i]; lv.id != dirty && lv.fp.Same() {
			fp = &lv.fp
			s[i], mc.loaded[i] = lv.id, lv.id
		} else if a := &mc.caught[i].after; !a.off {
			if v := a.find(lv); v != nil { // else it notes the hash for store below
				fp = &v.fp
				s[i], mc.loaded[i] = v.id, dirty
				if v.decoded {
					mc.loaded[i] = v.id
				}
			}
		}
		fps = append(fps, fp)
	}
	mc.fps = fps
	if mc.enc.Apart(fps) {
		return nil // nothing to encode
	}
	roots := mc.roots[:0]
	for j, i := range comps {
		c := mc.Def.Components[i]
		// Filled in place: a Root built on the stack and appended was copied with wide loads
		// over the narrow stores that had just written it, a stalled load.
		roots = append(roots, canon.Root{})
		r := &roots[len(roots)-1]
		r.Name, r.V, r.Unchanged = c.Name, c.Root, fps[j]
	}
	mc.roots = roots
	err := mc.enc.EncodeComponents(roots, func(j int, b []byte) {
		mc.buf = b
		c := comps[j]
		id := mc.recent.intern(mc.pool, b)
		// live[c] stays: while its footprint is of the value the handler started from, a restore
		// copies it back.
		s[c], mc.loaded[c] = id, dirty
		decoded := mc.enc.AsDecoded()
		if decoded {
			mc.loaded[c] = id
			if id == mc.ran[c] && mc.enc.Footprint(&mc.live[c].fp) {
				mc.live[c].id = id
			} else {
				mc.caught[c].add(&mc.enc, id)
			}
		}
		if a := &mc.caught[c].after; a.key != 0 {
			a.store(&mc.enc, id, decoded)
		}
	}, mc.buf[:0])
	mc.globals = mc.globals || mc.enc.MetGlobals()
	return err
}

// Capture returns the state after a transition from s that may have changed the components in
// touched.
func (mc *Machine) Capture(from State, touched []int) (State, error) {
	next := make(State, len(from))
	copy(next, from)
	return next, mc.capture(next, touched)
}

// CaptureAll encodes every component; it detects changes to components an event did not declare.
func (mc *Machine) CaptureAll() (State, error) {
	s := make(State, len(mc.loaded))
	all := make([]int, len(s))
	for i := range all {
		all[i] = i
	}
	return s, mc.capture(s, all)
}

// Hash is the state's 64-bit hash (statehash.go).
func (mc *Machine) Hash(s State) uint64 { return mc.hasher.hash(s, mc.pool) }

// Bytes returns the canonical encoding of component i of s.
func (mc *Machine) Bytes(s State, i int) []byte { return mc.pool.blob(s[i]) }

// key is the exact identity of s, for exact mode.
func (s State) key(dst []byte) []byte {
	for _, id := range s {
		dst = binary.LittleEndian.AppendUint32(dst, id)
	}
	return dst
}

// A ChoicePoint is one Choose call made in a transition.
type ChoicePoint struct {
	N, Value int
	PC       uintptr
	Label    string // what the value means (cmc.ChooseOf), only when notes are on
}

// An Outcome is what one run of a handler did.
type Outcome struct {
	Points  []ChoicePoint
	Notes   []transition.Note
	Failure *Failure // non-nil: the handler panicked or an assertion failed
}

// A Failure is a violation raised inside user code.
type Failure struct {
	Kind    string // assertion, panic, model-error, diverged, refinement
	Message string
	Site    string // file:line of the failed assertion or the panicking statement
}

// Run runs event ev's handler once on the live state. Choose calls return the values in prefix,
// then 0 (or, when rnd is set, random values).
func (mc *Machine) Run(ev *cmc.Event, prefix []int, noting bool, rnd func(n int) int) Outcome {
	var out Outcome
	mc.run(&out, ev, prefix, rnd, noting, true)
	return out
}

// explore is Run for a search's own runs, which need each Choose's value and count but not its
// line: Choose then skips finding its caller (runtime.Callers, several percent of a search of
// AODV). A counterexample's trace is replayed with Run, which records every line.
// Its Outcome is the machine's, valid until the next explore: returned by value, it was copied
// on the stack with wide loads over the narrow stores that had just written it, a stalled load
// that cost 2-4% of a depth-first search.
func (mc *Machine) explore(ev *cmc.Event, prefix []int) *Outcome {
	mc.run(&mc.out, ev, prefix, nil, false, false)
	return &mc.out
}

// run runs the handler, its outcome into out, with a run context set field by field: copying a
// whole runCtx cost 5% of a search of TwoPhase.
func (mc *Machine) run(out *Outcome, ev *cmc.Event, prefix []int, rnd func(n int) int, noting, sites bool) {
	out.Failure = nil
	c := mc.ctx
	c.prefix, c.rnd, c.points, c.noting, c.sites, c.notes = prefix, rnd, c.points[:0], noting, sites, nil
	for _, i := range ev.Touches {
		mc.ran[i], mc.loaded[i] = mc.loaded[i], dirty
	}
	mc.slot.Start(mc.ctx)
	goroutines := mc.leaks.begin()
	mc.slot.Enter()
	defer func() {
		mc.slot.Leave()
		mc.slot.Stop()
		mc.ctx.rnd = nil // the slot keeps ctx: not what a random walk's source holds
		out.Points = mc.ctx.points
		out.Notes = mc.ctx.notes
		if r := recover(); r != nil {
			out.Failure = failure(r)
		}
	}()
	ev.Handler()
	out.Failure = mc.leaks.check(goroutines, ev)
	if out.Failure == nil && len(mc.Def.Refinements) > 0 {
		out.Failure = mc.refine(ev)
	}
	if out.Failure == nil && mc.Def.Seen != nil {
		mc.noteValues()
	}
}

// Guard runs f (an enabling condition, an invariant) and turns a panic in it into a Failure whose
// message says which kind and name of check it was. The message is built only on failure: guards
// run for every transition.
func (mc *Machine) Guard(kind, name string, f func() error) (fail *Failure, err error) {
	mc.slot.Enter()
	defer func() {
		mc.slot.Leave()
		if r := recover(); r != nil {
			fail = failure(r)
			fail.Message = kind + " " + name + ": " + fail.Message
		}
	}()
	return nil, f()
}

func failure(r any) *Failure {
	switch r := r.(type) {
	case *transition.AssertionFailure:
		return &Failure{Kind: "assertion", Message: r.Msg, Site: Site(r.PC)}
	case transition.Misuse:
		return &Failure{Kind: "model-error", Message: r.Msg, Site: panicSite()}
	case divergence:
		return &Failure{Kind: "diverged", Message: string(r), Site: panicSite()}
	}
	return &Failure{Kind: "panic", Message: fmt.Sprint(r), Site: panicSite()}
}

// panicSite finds the user's statement that panicked: the first frame after the runtime's panic
// machinery that is neither the runtime nor the checker's API (cmc.Choose, cmc.Assert).
func panicSite() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case !panicking || strings.HasPrefix(f.Function, "runtime."), strings.HasPrefix(f.Function, "github.com/cmc-go/cmc."),
			strings.HasPrefix(f.Function, "github.com/cmc-go/cmc/internal/transition."):
		default:
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if !more {
			return ""
		}
	}
}

// Site renders a call site's file:line.
func Site(pc uintptr) string {
	if pc == 0 {
		return ""
	}
	frames := runtime.CallersFrames([]uintptr{pc})
	f, _ := frames.Next()
	return fmt.Sprintf("%s:%d", f.File, f.Line)
}

// runCtx answers Choose calls for one run of a handler.
type runCtx struct {
	prefix []int
	rnd    func(n int) int
	points []ChoicePoint
	noting bool
	sites  bool // Choose passes its caller's pc
	notes  []transition.Note
	_      [40]byte // 128 bytes in all: written every run, it shares no cache line (padded.go)
}

type divergence string

func (c *runCtx) Choose(n int, pc uintptr) int {
	i := len(c.points)
	v := 0
	switch {
	case i < len(c.prefix):
		v = c.prefix[i]
		if v >= n {
			at := ""
			if pc != 0 {
				at = " at " + Site(pc)
			}
			panic(divergence(fmt.Sprintf("choice %d%s has %d options now, but the trace chose %d", i+1, at, n, v)))
		}
	case c.rnd != nil:
		v = c.rnd(n)
	}
	c.points = append(c.points, ChoicePoint{N: n, Value: v, PC: pc})
	return v
}

func (c *runCtx) Noting() bool { return c.noting }

func (c *runCtx) Sites() bool { return c.sites }

func (c *runCtx) Label(label string) {
	if n := len(c.points); n > 0 {
		c.points[n-1].Label = label
	}
}

func (c *runCtx) Note(n transition.Note) { c.notes = append(c.notes, n) }

// nextPrefix returns the choices of the next run of the same transition, in the order the thesis
// gives (the last choice point varies fastest), or false when every combination has run.
func nextPrefix(dst []int, points []ChoicePoint) ([]int, bool) {
	for i := len(points) - 1; i >= 0; i-- {
		if points[i].Value+1 < points[i].N {
			dst = dst[:0]
			for _, p := range points[:i] {
				dst = append(dst, p.Value)
			}
			return append(dst, points[i].Value+1), true
		}
	}
	return dst, false
}
