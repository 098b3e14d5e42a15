package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/internal/faults"
	"github.com/cmc-go/cmc/internal/transition"
)

// Fidelity: for each way ordinary Go keeps state between objects, a model of a few lines whose
// real state graph is enumerated by running its handlers as plain Go (realGo), and cmc either
// counts the same states or refuses with a message that says where and what to do.

// A fidelityModel builds a fresh model and a fingerprint of its live state, written by hand to say
// everything the handlers can observe (aliasing and capacity included).
type fidelityModel func() (*cmc.Model, func() string)

// realGo counts the states the model reaches in Go itself: every path runs from a freshly built
// model, with no capture and no restore, and states are told apart by the fingerprint. It fails
// the test unless the state space is exhausted within depth steps.
func realGo(t *testing.T, build fidelityModel, depth int) int {
	t.Helper()
	g := realGoWithin(t, build, depth, math.MaxInt, nil)
	if !g.complete {
		t.Fatalf("real Go: %d states and more after %d steps; raise the depth", g.states, depth)
	}
	return g.states
}

// A realGraph is what realGoWithin found: how many states, whether that is all of them, and the
// fewest steps to a state that breaks one of the model's invariants, or by a step that breaks one
// of its step invariants (-1: none does).
type realGraph struct {
	states   int
	complete bool
	violated int
}

// realGoWithin is realGo, stopping (incomplete) after depth steps or once more than limit states
// are found; it also runs the model's invariants in every state and its step invariants on every
// transition. It starts from the state the steps of from lead to (a search's Options.From).
func realGoWithin(t *testing.T, build fidelityModel, depth, limit int, from []pathStep) realGraph {
	t.Helper()
	transition.Lock.Lock()
	defer transition.Lock.Unlock()
	m, fp := build()
	g := realGraph{violated: -1}
	broken := func(def *cmc.Definition, d int) {
		for _, inv := range def.Invariants {
			if inv.Check() != nil && g.violated < 0 {
				g.violated = d
			}
		}
	}
	def, err := m.Definition()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range from {
		native(t, def.Events[st.event], st.values)
	}
	broken(def, 0)
	seen := map[string]bool{fp(): true}
	frontier := [][]pathStep{nil}
	for d := 0; len(frontier) > 0; d++ {
		if d == depth || len(seen) > limit {
			g.states = len(seen)
			return g
		}
		var next [][]pathStep
		for _, p := range frontier {
			m, _ := build()
			def, err := m.Definition()
			if err != nil {
				t.Fatal(err)
			}
			for ei := range def.Events {
				var prefix []int
				for {
					m, fp := build()
					def, _ := m.Definition()
					for _, st := range slices.Concat(from, p) {
						native(t, def.Events[st.event], st.values)
					}
					ev := def.Events[ei]
					if ev.Enabled != nil && !ev.Enabled() {
						break
					}
					before := make([]any, len(def.StepChecks))
					for i, sc := range def.StepChecks {
						before[i] = sc.Capture()
					}
					points := native(t, ev, prefix)
					for i, sc := range def.StepChecks {
						if sc.Check(before[i], sc.Capture()) != nil && g.violated < 0 {
							g.violated = d + 1
						}
					}
					if f := fp(); !seen[f] {
						seen[f] = true
						broken(def, d+1)
						next = append(next, append(slices.Clone(p), pathStep{event: ei, values: values(points)}))
					}
					var more bool
					if prefix, more = nextPrefix(prefix, points); !more {
						break
					}
				}
			}
		}
		frontier = next
	}
	g.states, g.complete = len(seen), true
	return g
}

// native runs a handler as plain Go, answering its Choose calls from prefix, then 0.
func native(t *testing.T, ev *cmc.Event, prefix []int) []ChoicePoint {
	ctx := &runCtx{prefix: prefix}
	slot := transition.NewSlot()
	defer slot.Release()
	slot.Set(ctx)
	defer slot.Set(nil)
	ev.Handler()
	return ctx.points
}

func checkModel(t *testing.T, build fidelityModel, opts Options) (*Result, error) {
	t.Helper()
	m, _ := build()
	if opts.SelfCheck == 0 {
		opts.SelfCheck = SelfCheckAll
	}
	return Check(context.Background(), m, opts)
}

// sameCount checks that cmc, in bfs, dfs and exact mode, counts what real Go reaches.
func sameCount(t *testing.T, build fidelityModel) {
	t.Helper()
	want := realGo(t, build, 20)
	for _, opts := range []Options{{}, {Search: "dfs"}, {Exact: true}} {
		res, err := checkModel(t, build, opts)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		if len(res.Violations) > 0 {
			t.Fatalf("%+v: %s: %s", opts, res.Violations[0].Violation.Kind, res.Violations[0].Violation.Message)
		}
		if res.States != int64(want) || !res.Complete {
			t.Errorf("%+v: cmc counts %d states (complete %v), real Go reaches %d", opts, res.States, res.Complete, want)
		}
	}
}

// refuses checks that cmc will not check the model, and says so with every fragment of want.
func refuses(t *testing.T, build fidelityModel, want ...string) {
	t.Helper()
	_, err := checkModel(t, build, Options{})
	if err == nil {
		t.Fatalf("checked; want an error saying %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q\nlacks %q", err, w)
		}
	}
}

// finds checks that the search reports a violation of kind whose message has every fragment.
func finds(t *testing.T, build fidelityModel, kind string, want ...string) {
	t.Helper()
	res, err := checkModel(t, build, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Violations) == 0 {
		t.Fatalf("no violation in %d states; want %s", res.States, kind)
	}
	v := res.Violations[0].Violation
	if v.Kind != kind {
		t.Fatalf("violation %s: %s; want %s", v.Kind, v.Message, kind)
	}
	for _, w := range want {
		if !strings.Contains(v.Message, w) {
			t.Errorf("message %q\nlacks %q", v.Message, w)
		}
	}
}

// Capacity is state: b := append(s, 1); c := append(s, 2) write one array in Go when s has room,
// and two when it has none.
type forker struct {
	A       []int
	X       int
	Trimmed bool
}

func forkModel() (*cmc.Model, func() string) {
	f := &forker{A: make([]int, 5)} // 40 bytes: the allocator would round a restored copy up to 6
	m := cmc.NewModel("fork")
	m.Process("f", f).
		On("fork", func() {
			n := len(f.A)
			b := append(f.A, 1)
			c := append(f.A, 2)
			f.X = b[n]*10 + c[n]
		}, cmc.When(func() bool { return f.X == 0 })).
		On("trim", func() { f.A, f.Trimmed = f.A[:4], true }, cmc.When(func() bool { return !f.Trimmed }))
	return m, func() string { return fmt.Sprint(len(f.A), cap(f.A), f.X, f.Trimmed) }
}

func TestFidelityCapacity(t *testing.T) { sameCount(t, forkModel) }

func TestSelfCheckFindsLooseCapacity(t *testing.T) {
	faults.LooseCapacity = true
	defer func() { faults.LooseCapacity = false }()
	finds(t, forkModel, "capture-fault", "f.fork gives a different result on the objects the last handler left than on the initial state restored", "f.X is 12 live, 22 restored")
}

// Two slices that share a backing array are captured as sharing it: an append through one writes
// what the other sees, exactly as in Go (etcd raft's log and storage share arrays this way).
type halves struct{ A, B []int }

func halvesModel() (*cmc.Model, func() string) {
	h := &halves{}
	m := cmc.NewModel("halves")
	m.Process("h", h).
		On("split", func() {
			buf := make([]int, 4)
			h.A, h.B = buf[:2], buf[2:]
		}, cmc.When(func() bool { return h.A == nil })).
		On("grow", func() { h.A = append(h.A, 7+cmc.Choose(2)) }, cmc.When(func() bool { return len(h.A) == 2 })).
		On("bump", func() { h.B[0]++ }, cmc.When(func() bool { return len(h.B) > 0 && h.B[0] < 9 }))
	return m, func() string { return fmt.Sprint(h.A, h.B, cap(h.A), cap(h.B)) }
}

func TestFidelitySharedBackingArray(t *testing.T) { sameCount(t, halvesModel) }

// A handler makes two slices share one array without changing a value (B = A, both [1]). The
// state is a new one (a write through A is now seen through B), though its plain-mode bytes are
// those of the state it ran from: the capture finds the sharing only after the component was
// emitted in plain mode, and what it recorded then must not stand for the new state.
type twins struct{ A, B []int }

func twinsModel() (*cmc.Model, func() string) {
	h := &twins{A: []int{1}, B: []int{1}}
	m := cmc.NewModel("twins")
	m.Process("h", h).
		On("alias", func() { h.B = h.A }).
		On("write", func() { h.A[0]++ }, cmc.When(func() bool { return h.A[0] < 2 }))
	return m, func() string { return fmt.Sprint(h.A, h.B, &h.A[0] == &h.B[0], cap(h.A), cap(h.B)) }
}

func TestFidelitySharingWithoutAChange(t *testing.T) {
	sameCount(t, twinsModel)
	want := realGo(t, twinsModel, 20)
	for _, search := range []string{"bfs", "dfs"} {
		m, _ := twinsModel()
		res, err := Check(context.Background(), m, Options{SelfCheck: -1, Search: search})
		if err != nil {
			t.Fatal(err)
		}
		if res.States != int64(want) {
			t.Errorf("%s without the self-check: %d states, real Go reaches %d", search, res.States, want)
		}
	}
}

// The initial state's probe runs on the objects the model's builder made, and an event that
// leaves the map as it was (deleting a key it lacks) has the machine record a footprint of them.
// The self-check then keeps the builder's objects, to catch handlers that write them after a
// restore detached them: a restore must not attach them again from that footprint, or a handler
// writing the map through the root is reported as writing a builder's object.
type mapHolder struct{ M map[int]int }

func mapHolderModel() (*cmc.Model, func() string) {
	h := &mapHolder{M: map[int]int{0: 1}}
	m := cmc.NewModel("mapholder")
	m.Process("h", h).
		On("noop", func() { delete(h.M, 2) }).
		On("set", func() { h.M[2] = 0 }, cmc.When(func() bool { _, ok := h.M[2]; return !ok }))
	return m, func() string { return fmt.Sprint(h.M) }
}

func TestSelfCheckAfterAProbeThatChangedNothing(t *testing.T) { sameCount(t, mapHolderModel) }

// An object a process keeps and also put into the network is refused: components are restored
// one by one.
type (
	box    struct{ V int }
	keeper struct{ Keep *box }
	wire   struct{ Msgs []*box }
)

func sharedModel() (*cmc.Model, func() string) {
	a, n := &keeper{}, &wire{}
	m := cmc.NewModel("shared")
	m.Environment("net", n)
	m.Process("a", a).On("send", func() {
		b := &box{}
		a.Keep = b
		n.Msgs = append(n.Msgs, b)
	}, cmc.When(func() bool { return a.Keep == nil }))
	return m, func() string { return fmt.Sprint(a.Keep != nil) }
}

func TestFidelitySharedAcrossComponents(t *testing.T) {
	refuses(t, sharedModel, "a.Keep: this *engine.box is also net.Msgs[0]", "send a value, not a pointer")
}

// Two components on one root are refused when the model is captured first.
func TestFidelityOneRootTwice(t *testing.T) {
	refuses(t, func() (*cmc.Model, func() string) {
		c := &counter{}
		m := cmc.NewModel("twice")
		m.Process("a", c).On("inc", func() { c.X++ }, cmc.When(func() bool { return c.X < 1 }))
		m.Process("b", c)
		return m, nil
	}, "initial state: b: this is the root of another component (a) too")
}

// A handler that writes a process it did not declare with cmc.Touches is found by the self-check.
func TestFidelityUndeclaredTouch(t *testing.T) {
	refuses(t, func() (*cmc.Model, func() string) {
		a, b := &counter{}, &counter{}
		m := cmc.NewModel("touch")
		m.Process("a", a).On("poke", func() { b.X++ }, cmc.When(func() bool { return b.X < 1 }))
		m.Process("b", b)
		return m, nil
	}, "event a.poke changed b, which it does not declare (b.X is 0 before, 1 after): add cmc.Touches(\"b\")")
}

// A closure over part of a component writes the object the builder made, which a restore
// replaces: the self-check finds it at the initial state.
type holder struct{ Node *box }

func closureModel() (*cmc.Model, func() string) {
	s := &holder{Node: &box{}}
	n := s.Node
	m := cmc.NewModel("closure")
	m.Process("s", s).On("inc", func() { n.V++ }, cmc.When(func() bool { return s.Node.V < 2 }))
	return m, func() string { return fmt.Sprint(s.Node.V) }
}

// The same closure behind another event that is enabled first: the probe of the initial state runs
// "other", and the closure's handler is found writing the builder's object when it first runs.
func TestSelfCheckFindsClosureBehindAnotherEvent(t *testing.T) {
	finds(t, func() (*cmc.Model, func() string) {
		s := &holder{Node: &box{}}
		n := s.Node
		other := &counter{}
		m := cmc.NewModel("closure-later")
		m.Process("o", other).On("other", func() { other.X++ }, cmc.When(func() bool { return other.X < 1 }))
		m.Process("s", s).On("inc", func() { n.V++ }, cmc.When(func() bool { return s.Node.V < 2 }))
		return m, nil
	}, "capture-fault", "s.inc wrote to an object the model's builder made that the state no longer holds", "n := s.Node")
}

func TestSelfCheckFindsClosureOverPart(t *testing.T) {
	finds(t, closureModel, "capture-fault", "s.inc gives a different result on the objects the last handler left than on the initial state restored", "s.Node.V is 1 live, 0 restored", "a closure over part of a component")
}

// Taking "the first key" of a range over a map is nondeterministic in Go itself: the self-check
// reports it rather than exploring one order per run.
type picker struct {
	Keys  map[string]bool
	First string
}

func TestSelfCheckFindsMapOrder(t *testing.T) {
	finds(t, func() (*cmc.Model, func() string) {
		p := &picker{Keys: map[string]bool{}}
		for i := range 64 {
			p.Keys[fmt.Sprintf("k%02d", i)] = true
		}
		m := cmc.NewModel("maporder")
		m.Process("p", p).On("pick", func() {
			for k := range p.Keys {
				p.First = k
				break
			}
		}, cmc.When(func() bool { return p.First == "" }))
		return m, nil
	}, "nondeterminism", "p.pick run twice on the initial state gives two different results", "map iteration order")
}

// The counts of models written the way the examples are stay exact, in real Go as in cmc.
func TestFidelityPlainModel(t *testing.T) {
	sameCount(t, func() (*cmc.Model, func() string) {
		a, b := &pinger{}, &pinger{}
		m := cmc.NewModel("plain")
		m.Process("a", a).On("send", func() { a.Sent += 1 + cmc.Choose(2) }, cmc.When(func() bool { return a.Sent < 4 }))
		m.Process("b", b).On("got", func() { b.Got++ }, cmc.When(func() bool { return b.Got < a.Sent }))
		return m, func() string { return fmt.Sprint(a.Sent, b.Got) }
	})
}

// A handler that reads a package-level counter (as code that reads the clock does) makes the
// search report a trace that a re-run does not reproduce: with the self-check off, the trace's
// verification reports it as nondeterminism instead of storing a trace that contradicts itself.
var ticks int

type stamped struct{ N, Stamp int }

func TestReportedTraceIsVerified(t *testing.T) {
	ticks = 0
	p := &stamped{}
	m := cmc.NewModel("stamp")
	m.Process("p", p).On("stamp", func() { p.N++; p.Stamp = ticks; ticks++ }, cmc.When(func() bool { return p.N < 3 }))
	m.Invariant("stamp-below-2", func() error {
		if p.Stamp >= 2 {
			return fmt.Errorf("stamp %d", p.Stamp)
		}
		return nil
	})
	tr := oneViolation(t, m)
	want := `the trace to invariant "stamp 2" does not reproduce: step 1 (p.stamp) it reaches a state the search never reached; the handler depends on something that is not state`
	if v := tr.Violation; v.Kind != "nondeterminism" || !strings.HasPrefix(v.Message, want) {
		t.Fatalf("violation %s: %s\nwant nondeterminism: %s", v.Kind, v.Message, want)
	}
	if len(tr.Steps) != 1 {
		t.Fatalf("the trace has %d steps, want 1 (up to the step that does not reproduce)", len(tr.Steps))
	}
}

// A sentinel error keeps its identity: errors.Is and == find it after a restore, and the handler
// for that error runs.
var errTimeout = errors.New("timeout")

type waiter struct {
	Err     error
	Handled int
}

func sentinelModel() (*cmc.Model, func() string) {
	w := &waiter{}
	m := cmc.NewModel("sentinel")
	m.Process("w", w).
		On("fail", func() { w.Err = errTimeout }, cmc.When(func() bool { return w.Err == nil && w.Handled < 2 })).
		On("handle", func() { w.Err, w.Handled = nil, w.Handled+1 }, cmc.When(func() bool { return errors.Is(w.Err, errTimeout) }))
	return m, func() string { return fmt.Sprint(w.Err == errTimeout, w.Err != nil, w.Handled) }
}

func TestFidelitySentinelError(t *testing.T) { sameCount(t, sentinelModel) }

func TestSelfCheckFindsCopiedSentinel(t *testing.T) {
	faults.NoGlobals = true
	defer func() { faults.NoGlobals = false }()
	finds(t, sentinelModel, "capture-fault", "on the state after w.fail, the events enabled on the objects the last handler left (w.handle) differ from those enabled on its restored copy (none)")
}

// netip.Addr keeps its address family in a unique.Handle, compared by identity: after a restore
// Is4 and Is6 still answer, and a zone survives.
type host struct {
	Addr   netip.Addr
	Family string
	Same   bool // == to the address parsed again
}

func addrModel(addrs ...string) fidelityModel {
	return func() (*cmc.Model, func() string) {
		h := &host{}
		m := cmc.NewModel("netip")
		m.Process("h", h).
			On("assign", func() { h.Addr = netip.MustParseAddr(addrs[cmc.Choose(len(addrs))]) }, cmc.When(func() bool { return !h.Addr.IsValid() })).
			On("probe", func() {
				switch {
				case h.Addr.Is4():
					h.Family = "4"
				case h.Addr.Is6():
					h.Family = "6%" + h.Addr.Zone()
				default:
					h.Family = "?"
				}
				h.Same = h.Addr == netip.MustParseAddr(h.Addr.String())
			}, cmc.When(func() bool { return h.Addr.IsValid() && h.Family == "" }))
		return m, func() string { return fmt.Sprint(h.Addr, h.Family, h.Same) }
	}
}

func TestFidelityNetipAddr(t *testing.T) {
	sameCount(t, addrModel("10.0.0.1", "fe80::1", "fe80::1%eth0"))
}

func TestSelfCheckFindsCopiedHandle(t *testing.T) {
	faults.NoHandles = true
	defer func() { faults.NoHandles = false }()
	finds(t, addrModel("fe80::1%eth0"), "capture-fault", "h.probe gives a different result on the objects the last handler left than on the state after h.assign restored", "h.Same is true live, false restored")
}

// Func values, as etcd raft keeps them: step is a top-level function the state switches between,
// tick a method value bound to the object that holds it. Both are captured by what they name, and
// tick is bound again to the restored object.
type fsm struct {
	State string
	N     int
	step  func(*fsm)
	tick  func()
}

type fsmHolder struct{ M *fsm }

func stepFollower(m *fsm)  { m.State, m.step = "candidate", stepCandidate }
func stepCandidate(m *fsm) { m.State, m.step = "leader", stepLeader }
func stepLeader(m *fsm)    { m.N++ }

func (m *fsm) tickElection()  { m.N += 10; m.tick = m.tickHeartbeat }
func (m *fsm) tickHeartbeat() { m.N++ }

func funcModel() (*cmc.Model, func() string) {
	h := &fsmHolder{M: &fsm{State: "follower"}}
	h.M.step, h.M.tick = stepFollower, h.M.tickElection
	m := cmc.NewModel("funcs")
	m.Process("h", h).
		On("step", func() { h.M.step(h.M) }, cmc.When(func() bool { return h.M.N < 3 })).
		On("tick", func() { h.M.tick() }, cmc.When(func() bool { return h.M.N < 12 }))
	return m, func() string {
		name := func(f any) string { return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name() }
		return fmt.Sprint(h.M.State, h.M.N, name(h.M.step), name(h.M.tick))
	}
}

func TestFidelityFuncValues(t *testing.T) { sameCount(t, funcModel) }

// A closure kept in the state is refused with its name.
func TestFidelityClosureInState(t *testing.T) {
	refuses(t, func() (*cmc.Model, func() string) {
		x := 0
		h := &fsmHolder{M: &fsm{step: func(*fsm) { x++ }}}
		m := cmc.NewModel("closure-state")
		m.Process("h", h).On("step", func() { h.M.step(h.M) }, cmc.When(func() bool { return x < 1 }))
		return m, nil
	}, "h.M.step: func(*engine.fsm) is a closure (github.com/cmc-go/cmc/engine.TestFidelityClosureInState.func1.1)", "use a top-level function")
}

// Rules do what tags do for types that cannot carry them: this "library" type keeps a logger
// closure and an unordered inbox.
type libNode struct {
	N     int
	Inbox []int
	log   func(string)
}

func ruleModel(rules func(m *cmc.Model)) fidelityModel {
	return func() (*cmc.Model, func() string) {
		x := 0
		n := &libNode{log: func(string) { x++ }}
		m := cmc.NewModel("rules")
		rules(m)
		m.Process("n", n).On("recv", func() {
			n.Inbox = append(n.Inbox, cmc.Choose(3))
			n.log("got")
		}, cmc.When(func() bool { return len(n.Inbox) < 2 }))
		return m, func() string { return fmt.Sprint(n.Inbox) }
	}
}

func TestRules(t *testing.T) {
	typ := cmc.TypeName[libNode]()
	if typ != "github.com/cmc-go/cmc/engine.libNode" {
		t.Fatalf("TypeName = %q", typ)
	}
	refuses(t, ruleModel(func(m *cmc.Model) {}), "n.log: func(string) is a closure")
	res, err := checkModel(t, ruleModel(func(m *cmc.Model) { m.Omit(typ, "log") }), Options{})
	if err != nil || res.States != 1+3+9 {
		t.Fatalf("omit log: %v, %d states; want 13 (inbox as a sequence)", err, res.States)
	}
	res, err = checkModel(t, ruleModel(func(m *cmc.Model) { m.Omit(typ, "log"); m.Unordered(typ, "Inbox") }), Options{})
	if err != nil || res.States != 1+3+6 || !slices.Equal(res.Rules, []string{"omit " + typ + ".log", "set " + typ + ".Inbox"}) {
		t.Fatalf("set inbox: %v, %d states, rules %q; want 10 (inbox as a multiset) and both rules", err, res.States, res.Rules)
	}
	refuses(t, ruleModel(func(m *cmc.Model) { m.Omit(typ, "log"); m.Omit(typ+"x", "log") }),
		"rule omit github.com/cmc-go/cmc/engine.libNodex.log matched nothing")
}

// Every transition starts from what restoring its state gives, even where the engine keeps the
// live objects instead of restoring them (the component was left as decoding its bytes would give
// it, or is unchanged): a field that is not state, which a restore makes zero, never leaks from one
// transition into the next. Each of these models fails an assertion if it does. The self-check is
// off, since it would report the hidden fields first.
type scratchpad struct {
	N    int
	Seen int `cmc:"-"`
}

type withScratch struct {
	Pad *scratchpad // elsewhere than the root: restored with Seen = 0
	Set []int       `cmc:"set"`
}

func TestKeptObjectsAreAsRestored(t *testing.T) {
	for _, c := range []struct {
		name    string
		handler func(w *withScratch)
	}{
		// The handler changes nothing that is state: the component is unchanged, but not as decoded.
		{"hidden field", func(w *withScratch) { w.Pad.Seen++ }},
		// The set's elements stay, in another order: Decode would sort them.
		{"set order", func(w *withScratch) { slices.Reverse(w.Set) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := &withScratch{Pad: &scratchpad{}, Set: []int{1, 2}}
			env := &pinger{}
			m := cmc.NewModel("kept")
			m.Process("w", w).On("poke", func() {
				cmc.Assert(w.Pad.Seen == 0 && slices.IsSorted(w.Set), "a transition saw the live objects of another")
				c.handler(w)
			})
			m.Process("e", env).On("tick", func() { env.Sent = (env.Sent + 1) % 3 })
			res, err := Check(context.Background(), m, Options{SelfCheck: -1})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Violations) > 0 {
				t.Fatalf("%s: %s", res.Violations[0].Violation.Kind, res.Violations[0].Violation.Message)
			}
			if res.States != 3 || !res.Complete {
				t.Errorf("states %d complete %v, want 3 and complete", res.States, res.Complete)
			}
		})
	}
}

// inPlace is a component a handler changes in place: an append into spare capacity, a pointee, a
// pointee's field that is not state, and a field of the root that is not state.
type inPlace struct {
	Buf  []int
	P    *int
	Pad  *scratchpad
	Seen int `cmc:"-"` // in the root: Decode leaves it as it is, and so must a restore
}

// A transition starts from its state as decoding would give it, even when the transition before
// it, from the same state, changed the component's own objects in place: a restore copies the
// memory back (canon.Footprint.Restore), and leaves the root's fields that are not state alone.
func TestRestoreUndoesChangesInPlace(t *testing.T) {
	build := func() *cmc.Model {
		w := &inPlace{Buf: make([]int, 1, 2), P: new(int), Pad: &scratchpad{}}
		grows := 0 // not state: how many times a grow ran, which w.Seen follows
		m := cmc.NewModel("in place")
		p := m.Process("w", w)
		grow := func() {
			w.Buf = append(w.Buf, 7) // writes the spare element in place
			w.Buf[0] = 9
			*w.P = 5
			w.Pad.N, w.Pad.Seen = 1, 3
			grows++
			w.Seen = grows
		}
		look := func() {
			cmc.Assert(w.Seen == grows, "the root's field that is not state is %d, not %d", w.Seen, grows)
			if len(w.Buf) == 1 {
				cmc.Assert(w.Buf[0] == 0 && w.Buf[:2][1] == 0 && *w.P == 0 && w.Pad.N == 0 && w.Pad.Seen == 0,
					"a transition saw what the one before it wrote: %v %d %+v", w.Buf[:2], *w.P, *w.Pad)
			}
		}
		// Twice: the first restore of a state decodes it, the next ones copy its footprint back.
		p.On("grow", grow, cmc.When(func() bool { return len(w.Buf) == 1 }))
		p.On("look", look)
		p.On("grow again", grow, cmc.When(func() bool { return len(w.Buf) == 1 }))
		p.On("look again", look)
		return m
	}
	for _, search := range []string{"bfs", "dfs"} {
		res, err := Check(context.Background(), build(), Options{SelfCheck: -1, Search: search})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Violations) > 0 {
			t.Fatalf("%s: %s: %s", search, res.Violations[0].Violation.Kind, res.Violations[0].Violation.Message)
		}
		if res.States != 2 || res.Transitions != 6 || !res.Complete {
			t.Errorf("%s: states %d transitions %d complete %v, want 2, 6 and complete", search, res.States, res.Transitions, res.Complete)
		}
	}
}

// oneViolation checks m without the self-check and returns its only counterexample.
func oneViolation(t *testing.T, m *cmc.Model) *Trace {
	t.Helper()
	res, err := Check(context.Background(), m, Options{SelfCheck: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Violations) != 1 {
		t.Fatalf("%d violations, want 1", len(res.Violations))
	}
	return res.Violations[0]
}
