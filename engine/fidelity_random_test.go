package engine

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
	"github.com/cmc-go/cmc/internal/transition"
)

// Random programs against real Go. Each case is a model of a few handlers drawn from the ways
// ordinary Go changes its state (ropKinds: append into spare capacity, reslicing, aliasing a slice
// or a pointer, copy, make, map writes, a sentinel error, an interface, a method value, a set,
// another process through cmc.Touches, messages on an env.Network, env.Timers), with small random
// operands. Real Go's state graph (realGoWithin, told apart by every property a handler could
// observe: lengths, capacities, elements, which slices see one array and where, which pointers are
// one object) must have as many states as cmc counts, in every search, on one worker or two and in
// three partitions (a cluster's processes, in memory), with the self-check off (so that nothing
// but the capture, its footprints and its kept values decide what a transition starts from) and
// on. Each case also claims an invariant or a step invariant, which cmc must find broken exactly
// when real Go breaks it, by a trace that, run as plain Go, breaks it, and that a new machine
// replays with the hashes the search stored; a search from halfway along it must reach what real
// Go reaches from there. The hand-written fidelity cases test one way each; these test them
// together.

// A random program has three components: process r (slices, pointers, maps, an interface, a
// method value, a float), an environment (a counter, a queue and a set) and process q, a small
// value (its root alone, which a machine keeps several captures of).
type (
	rstate struct {
		S     [3][]int
		P     [2]*rcell
		M     map[int]int
		E     error // nil or errRandom
		Str   string
		MP    map[int]*rcell // its cells may be P's
		N2    [][]int        // its slices may see S's arrays
		I     any            // nil, an int, a *rcell (P's), an rcell, or a []int (seeing S's array)
		F     func()         // nil or a cell's inc, bound to it
		FRecv *rcell         `cmc:"-"` // F's cell: for observed only, as Go cannot say which
		Big   map[int][20]int
		Fl    float64 // 0, -0 or NaN
	}
	rcell struct{ V int }
	renv  struct {
		N   int
		Q   []int
		Set []int `cmc:"set"`
	}
	rsmall struct{ X int }
	rworld struct {
		r *rstate
		e *renv
		q *rsmall
		n *env.Network[int] // r is address 0, q address 1
		t *env.Timers       // r's timers t0 and t1
	}
)

func (c *rcell) inc() { c.V = (c.V + 1) % 3 }

// errRandom is a sentinel error: a handler tells it apart by identity (errors.Is).
var errRandom = errors.New("random")

// An rop is one handler: kind indexes ropKinds, the rest are its operands: i and j a slice of S
// (or a cell of P), a <= b <= c bounds for slicing, k an index or key, v a value.
type rop struct{ kind, i, j, a, b, c, k, v int }

// A ropKind is one way of changing the state: what it says (with {i}, {j}, {a}, {b}, {c}, {k},
// {k2} for k%2 and {v} for the operands), when it is enabled (nil: always), what it does, which
// process's event it is (q, or r when empty) and another process it changes.
type ropKind struct {
	say   string
	when  func(o rop, st *rstate, w rworld) bool
	run   func(o rop, st *rstate, w rworld)
	proc  string
	touch string
	cells bool // i and j index P, not S
}

// room says whether a slice may grow: lengths stay under 3.
func room(s []int) bool { return len(s) < 3 }

var ropKinds = []ropKind{
	{say: "S{i} = append(S{i}, {v}) if len < 3", when: func(o rop, st *rstate, _ rworld) bool { return room(st.S[o.i]) },
		run: func(o rop, st *rstate, _ rworld) { st.S[o.i] = append(st.S[o.i], o.v) }},
	{say: "S{i} = S{j}", run: func(o rop, st *rstate, _ rworld) { st.S[o.i] = st.S[o.j] }},
	{say: "S{i} = S{j}[{a}:{b}] if {b} <= len", when: func(o rop, st *rstate, _ rworld) bool { return o.b <= len(st.S[o.j]) },
		run: func(o rop, st *rstate, _ rworld) { st.S[o.i] = st.S[o.j][o.a:o.b] }},
	{say: "S{i} = S{j}[{a}:{b}:{c}] if {c} <= len", when: func(o rop, st *rstate, _ rworld) bool { return o.c <= len(st.S[o.j]) },
		run: func(o rop, st *rstate, _ rworld) { st.S[o.i] = st.S[o.j][o.a:o.b:o.c] }},
	{say: "S{i}[{k}] = (S{i}[{k}]+1)%3 if {k} < len", when: func(o rop, st *rstate, _ rworld) bool { return o.k < len(st.S[o.i]) },
		run: func(o rop, st *rstate, _ rworld) { st.S[o.i][o.k] = (st.S[o.i][o.k] + 1) % 3 }},
	{say: "S{i} = make([]int, {a}, {c})", run: func(o rop, st *rstate, _ rworld) { st.S[o.i] = make([]int, o.a, o.c) }},
	{say: "copy(S{i}, S{j})", run: func(o rop, st *rstate, _ rworld) { copy(st.S[o.i], st.S[o.j]) }},
	{say: "S{i} = nil", run: func(o rop, st *rstate, _ rworld) { st.S[o.i] = nil }},
	{say: "P{i} = &rcell{{v}}", cells: true, run: func(o rop, st *rstate, _ rworld) { st.P[o.i] = &rcell{V: o.v} }},
	{say: "P{i} = P{j}", cells: true, run: func(o rop, st *rstate, _ rworld) { st.P[o.i] = st.P[o.j] }},
	{say: "P{i}.inc() if P{i} != nil", cells: true, when: func(o rop, st *rstate, _ rworld) bool { return st.P[o.i] != nil },
		run: func(o rop, st *rstate, _ rworld) { st.P[o.i].inc() }},
	{say: "M[{k}] = {v}", run: func(o rop, st *rstate, _ rworld) { st.M[o.k] = o.v }},
	{say: "delete(M, {k})", run: func(o rop, st *rstate, _ rworld) { delete(st.M, o.k) }},
	{say: "S{i} = append(S{i}, Choose(2)) if len < 3", when: func(o rop, st *rstate, _ rworld) bool { return room(st.S[o.i]) },
		run: func(o rop, st *rstate, _ rworld) { st.S[o.i] = append(st.S[o.i], cmc.Choose(2)) }},
	{say: "env.N = (env.N+1)%3", run: func(_ rop, _ *rstate, w rworld) { w.e.N = (w.e.N + 1) % 3 }},
	{say: "env.Q = append(env.Q, {v}) if len < 2", when: func(_ rop, _ *rstate, w rworld) bool { return len(w.e.Q) < 2 },
		run: func(o rop, _ *rstate, w rworld) { w.e.Q = append(w.e.Q, o.v) }},
	{say: "env.Q = env.Q[1:] if len > 0", when: func(_ rop, _ *rstate, w rworld) bool { return len(w.e.Q) > 0 },
		run: func(_ rop, _ *rstate, w rworld) { w.e.Q = w.e.Q[1:] }},
	{say: "env.Set = append(env.Set, {v}) if len < 3", when: func(_ rop, _ *rstate, w rworld) bool { return room(w.e.Set) },
		run: func(o rop, _ *rstate, w rworld) { w.e.Set = append(w.e.Set, o.v) }},
	{say: "remove {v} from env.Set if there", when: func(o rop, _ *rstate, w rworld) bool { return slices.Contains(w.e.Set, o.v) },
		run: func(o rop, _ *rstate, w rworld) {
			k := slices.Index(w.e.Set, o.v)
			w.e.Set = slices.Delete(w.e.Set, k, k+1)
		}},
	{say: "S{i} = append(S{i}, env.N) if len < 3", when: func(o rop, st *rstate, _ rworld) bool { return room(st.S[o.i]) },
		run: func(o rop, st *rstate, w rworld) { st.S[o.i] = append(st.S[o.i], w.e.N) }},
	{say: "q.X = (q.X+1)%3, from r", touch: "q", run: func(_ rop, _ *rstate, w rworld) { w.q.X = (w.q.X + 1) % 3 }},
	{say: "q.X = (q.X+1)%3", proc: "q", run: func(_ rop, _ *rstate, w rworld) { w.q.X = (w.q.X + 1) % 3 }},
	{say: "q.X = 0", proc: "q", run: func(_ rop, _ *rstate, w rworld) { w.q.X = 0 }},
	{say: "env.N = q.X", proc: "q", run: func(_ rop, _ *rstate, w rworld) { w.e.N = w.q.X }},
	{say: "E = errRandom", run: func(_ rop, st *rstate, _ rworld) { st.E = errRandom }},
	{say: "E = nil", run: func(_ rop, st *rstate, _ rworld) { st.E = nil }},
	{say: "S{i} = append(S{i}, 2) if errors.Is(E, errRandom) and len < 3",
		when: func(o rop, st *rstate, _ rworld) bool { return errors.Is(st.E, errRandom) && room(st.S[o.i]) },
		run:  func(o rop, st *rstate, _ rworld) { st.S[o.i] = append(st.S[o.i], 2) }},
	{say: `Str += "a" if len < 2`, when: func(_ rop, st *rstate, _ rworld) bool { return len(st.Str) < 2 },
		run: func(_ rop, st *rstate, _ rworld) { st.Str += "a" }},
	{say: `Str = ""`, run: func(_ rop, st *rstate, _ rworld) { st.Str = "" }},
	{say: "MP[{k}] = &rcell{{v}}", run: func(o rop, st *rstate, _ rworld) { st.MP[o.k] = &rcell{V: o.v} }},
	{say: "MP[{k}] = P{i}", cells: true, run: func(o rop, st *rstate, _ rworld) { st.MP[o.k] = st.P[o.i] }},
	{say: "MP[{k}].inc() if not nil", when: func(o rop, st *rstate, _ rworld) bool { return st.MP[o.k] != nil },
		run: func(o rop, st *rstate, _ rworld) { st.MP[o.k].inc() }},
	{say: "delete(MP, {k})", run: func(o rop, st *rstate, _ rworld) { delete(st.MP, o.k) }},
	{say: "N2 = append(N2, S{i}) if len < 2", when: func(_ rop, st *rstate, _ rworld) bool { return len(st.N2) < 2 },
		run: func(o rop, st *rstate, _ rworld) { st.N2 = append(st.N2, st.S[o.i]) }},
	{say: "N2[{k2}][0] = (N2[{k2}][0]+1)%3 if there",
		when: func(o rop, st *rstate, _ rworld) bool { return o.k%2 < len(st.N2) && len(st.N2[o.k%2]) > 0 },
		run:  func(o rop, st *rstate, _ rworld) { st.N2[o.k%2][0] = (st.N2[o.k%2][0] + 1) % 3 }},
	{say: "I = P{i}", cells: true, run: func(o rop, st *rstate, _ rworld) { st.I = st.P[o.i] }}, // a nil *rcell is a non-nil I
	{say: "I = *P{i} if P{i} != nil", cells: true, when: func(o rop, st *rstate, _ rworld) bool { return st.P[o.i] != nil },
		run: func(o rop, st *rstate, _ rworld) { st.I = *st.P[o.i] }},
	{say: "I = S{i}", run: func(o rop, st *rstate, _ rworld) { st.I = st.S[o.i] }},
	{say: "I = {v}", run: func(o rop, st *rstate, _ rworld) { st.I = o.v }},
	{say: "I.(*rcell).inc() if it is one, not nil", when: func(_ rop, st *rstate, _ rworld) bool { p, ok := st.I.(*rcell); return ok && p != nil },
		run: func(_ rop, st *rstate, _ rworld) { st.I.(*rcell).inc() }},
	{say: "I.([]int)[0] = (I.([]int)[0]+1)%3 if it is one, not empty",
		when: func(_ rop, st *rstate, _ rworld) bool { s, ok := st.I.([]int); return ok && len(s) > 0 },
		run:  func(_ rop, st *rstate, _ rworld) { s := st.I.([]int); s[0] = (s[0] + 1) % 3 }},
	{say: "F = P{i}.inc if P{i} != nil", cells: true, when: func(o rop, st *rstate, _ rworld) bool { return st.P[o.i] != nil },
		run: func(o rop, st *rstate, _ rworld) { st.F, st.FRecv = st.P[o.i].inc, st.P[o.i] }},
	{say: "F() if F != nil", when: func(_ rop, st *rstate, _ rworld) bool { return st.F != nil },
		run: func(_ rop, st *rstate, _ rworld) { st.F() }},
	{say: "F = nil", run: func(_ rop, st *rstate, _ rworld) { st.F, st.FRecv = nil, nil }},
	{say: "Big[{k}] = [20]int{{v}}", run: func(o rop, st *rstate, _ rworld) { st.Big[o.k] = [20]int{o.v} }},
	{say: "S{i} = append(S{i}, Big[{k}][0]) if len < 3", when: func(o rop, st *rstate, _ rworld) bool { return room(st.S[o.i]) },
		run: func(o rop, st *rstate, _ rworld) { st.S[o.i] = append(st.S[o.i], st.Big[o.k][0]) }},
	{say: "Fl = -0.0", run: func(_ rop, st *rstate, _ rworld) { st.Fl = math.Copysign(0, -1) }},
	{say: "Fl = 0", run: func(_ rop, st *rstate, _ rworld) { st.Fl = 0 }},
	{say: "Fl = NaN", run: func(_ rop, st *rstate, _ rworld) { st.Fl = math.NaN() }},
	{say: "send {v} from r to q", run: func(o rop, _ *rstate, w rworld) { _ = w.n.Send(0, 1, o.v) }},
	{say: "send q.X from q to r", proc: "q", run: func(_ rop, _ *rstate, w rworld) { _ = w.n.Send(1, 0, w.q.X) }},
	{say: "q.X = a message for q", proc: "q", when: func(_ rop, _ *rstate, w rworld) bool { return w.n.Waiting(1) },
		run: func(_ rop, _ *rstate, w rworld) {
			if p, ok := w.n.Receive(1); ok {
				w.q.X = p.Msg % 3
			}
		}},
	{say: "S{i} = append(S{i}, a message for r) if len < 3",
		when: func(o rop, st *rstate, w rworld) bool { return w.n.Waiting(0) && room(st.S[o.i]) },
		run: func(o rop, st *rstate, w rworld) {
			if p, ok := w.n.Receive(0); ok {
				st.S[o.i] = append(st.S[o.i], p.Msg)
			}
		}},
	{say: "arm timer t{k2}", run: func(o rop, _ *rstate, w rworld) { w.t.Set(0, timerNames[o.k%2]) }},
	{say: "cancel timer t{k2}", run: func(o rop, _ *rstate, w rworld) { w.t.Cancel(0, timerNames[o.k%2]) }},
	{say: "S{i} = append(S{i}, {v}) when timer t{k2} fires, if len < 3",
		when: func(o rop, st *rstate, w rworld) bool { return w.t.IsSet(0, timerNames[o.k%2]) && room(st.S[o.i]) },
		run: func(o rop, st *rstate, w rworld) {
			if w.t.Fire(0, timerNames[o.k%2]) {
				st.S[o.i] = append(st.S[o.i], o.v)
			}
		}},
	{say: "S{i} = append(S{i}, 2 if Fl is NaN, 1 if -0, else 0) if len < 3", when: func(o rop, st *rstate, _ rworld) bool { return room(st.S[o.i]) },
		run: func(o rop, st *rstate, _ rworld) {
			x := 0
			switch {
			case st.Fl != st.Fl:
				x = 2
			case math.Signbit(st.Fl):
				x = 1
			}
			st.S[o.i] = append(st.S[o.i], x)
		}},
}

var timerNames = [2]string{"t0", "t1"}

func (o rop) String() string {
	n := strconv.Itoa
	return strings.NewReplacer("{i}", n(o.i), "{j}", n(o.j), "{a}", n(o.a), "{b}", n(o.b), "{c}", n(o.c),
		"{k}", n(o.k), "{k2}", n(o.k%2), "{v}", n(o.v)).Replace(ropKinds[o.kind].say)
}

// randomOp draws an operation with operands that keep the state space small.
func randomOp(rng *rand.Rand) rop {
	o := rop{kind: rng.IntN(len(ropKinds)), i: rng.IntN(3), j: rng.IntN(3), k: rng.IntN(3), v: rng.IntN(3)}
	if ropKinds[o.kind].cells {
		o.i, o.j = rng.IntN(2), rng.IntN(2)
	}
	o.c = rng.IntN(4)
	o.b = rng.IntN(o.c + 1)
	o.a = rng.IntN(o.b + 1)
	return o
}

// A rstart is how a case's state begins: whether S1 is a slice of S0's array, whether P1 is P0,
// and whether the network may lose and duplicate messages.
type rstart struct{ sliceOfS0, sameCell, loss, dup bool }

// randomInvariants are what a case's model may claim of its state; each is broken in some
// programs and holds in others, and holds initially.
var randomInvariants = []func(w rworld) bool{
	func(w rworld) bool { return len(w.r.S[0]) < 3 },
	func(w rworld) bool { return w.r.P[0] == nil || w.r.P[0].V != 2 },
	func(w rworld) bool { return w.e.N != 2 },
	func(w rworld) bool { return w.q.X != 2 },
	func(w rworld) bool { return len(w.r.MP) < 2 },
	func(w rworld) bool { return len(w.r.S[1]) == 0 || w.r.S[1][0] != 0 },
	func(w rworld) bool { p, ok := w.r.I.(*rcell); return !ok || p == nil || p.V != 2 },
	func(w rworld) bool { return w.r.Fl == w.r.Fl },
}

// randomSteps are what a case's model may claim of each step (cmc.StepInvariant): a function of
// the state before and after it, which holds when it returns true.
var randomSteps = []struct {
	capture func(w rworld) int
	holds   func(before, after int) bool
}{
	{func(w rworld) int { return len(w.r.S[0]) }, func(b, a int) bool { return a >= b }},   // S0 never shrinks
	{func(w rworld) int { return w.e.N }, func(b, a int) bool { return b != 2 || a != 0 }}, // env.N never goes from 2 to 0
}

// randomModel builds a case's model; with inv >= 0 it claims randomInvariants[inv], or of each
// step randomSteps[inv-len(randomInvariants)].
func randomModel(ops []rop, start rstart, inv int) fidelityModel {
	return func() (*cmc.Model, func() string) {
		st := &rstate{M: map[int]int{0: 1}, MP: map[int]*rcell{}, Big: map[int][20]int{}}
		st.S[0] = []int{1, 2}
		if start.sliceOfS0 {
			st.S[1] = st.S[0][1:]
		} else {
			st.S[1] = []int{2}
		}
		st.P[0] = &rcell{V: 1}
		if start.sameCell {
			st.P[1] = st.P[0]
		}
		w := rworld{r: st, e: &renv{Set: []int{1}}, q: &rsmall{}, n: &env.Network[int]{Bound: 2, Loss: start.loss, Dup: start.dup}, t: &env.Timers{}}
		m := cmc.NewModel("random")
		m.Environment("env", w.e)
		m.Environment("net", w.n)
		m.Environment("timers", w.t)
		procs := map[string]*cmc.Proc{"r": m.Process("r", st), "q": m.Process("q", w.q)}
		for k, o := range ops {
			kind := ropKinds[o.kind]
			var opts []cmc.Option
			if kind.touch != "" {
				opts = append(opts, cmc.Touches(kind.touch))
			}
			if kind.when != nil {
				opts = append(opts, cmc.When(func() bool { return kind.when(o, st, w) }))
			}
			proc := kind.proc
			if proc == "" {
				proc = "r"
			}
			procs[proc].On(fmt.Sprintf("op%d", k), func() { kind.run(o, st, w) }, opts...)
		}
		switch {
		case inv >= len(randomInvariants):
			c := randomSteps[inv-len(randomInvariants)]
			cmc.StepInvariant(m, fmt.Sprintf("claim%d", inv), func() int { return c.capture(w) }, func(before, after int) error {
				if !c.holds(before, after) {
					return errors.New("broken")
				}
				return nil
			})
		case inv >= 0:
			m.Invariant(fmt.Sprintf("claim%d", inv), func() error {
				if !randomInvariants[inv](w) {
					return errors.New("broken")
				}
				return nil
			})
		}
		return m, func() string {
			set := slices.Sorted(slices.Values(w.e.Set)) // a set's order is not state
			pending := slices.SortedFunc(slices.Values(w.n.Pending), func(a, b env.Packet[int]) int {
				return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Msg, b.Msg))
			})
			armed := slices.SortedFunc(slices.Values(w.t.Armed), func(a, b env.Timer) int { return cmp.Compare(a.Name, b.Name) })
			return fmt.Sprint(st.observed(), "| ", w.e.N, w.e.Q == nil, len(w.e.Q), cap(w.e.Q), w.e.Q, w.e.Set == nil, set,
				" | ", w.q.X, " | ", w.n.Pending == nil, pending, " | ", w.t.Armed == nil, armed)
		}
	}
}

// observed says everything a handler can observe of st: for each slice (S's, N2's, I's) nil-ness,
// length, capacity, elements, and which other slices can see its memory and where (slices whose
// capacities overlap are one array, named in order of first sight, with each slice's offset from
// the array's lowest start); for each pointer (P, MP, I, F's cell), nil or which cell and its
// value; the maps' entries; whether E is errRandom; I's type and value; whether Fl is NaN or -0.
// Elements past a slice's length are not observable by these handlers (none reads past it), and
// not state either (canon restores them as zero).
func (st *rstate) observed() string {
	all := append(st.S[:len(st.S):len(st.S)], st.N2...)
	if s, ok := st.I.([]int); ok {
		all = append(all, s)
	}
	type mem struct{ lo, hi uintptr }
	ms := make([]mem, len(all))
	group := make([]int, len(all))
	find := func(i int) int {
		for group[i] != i {
			i = group[i]
		}
		return i
	}
	for i, s := range all {
		group[i] = i
		if cap(s) > 0 {
			lo := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
			ms[i] = mem{lo, lo + uintptr(cap(s))*unsafe.Sizeof(0)}
		}
	}
	for i := range ms {
		for j := range i {
			if ms[i].hi > 0 && ms[j].hi > 0 && ms[i].lo < ms[j].hi && ms[j].lo < ms[i].hi {
				group[find(i)] = find(j)
			}
		}
	}
	low := map[int]uintptr{}
	for i := range ms {
		if ms[i].hi > 0 {
			g := find(i)
			if l, ok := low[g]; !ok || ms[i].lo < l {
				low[g] = ms[i].lo
			}
		}
	}
	var b strings.Builder
	names := map[int]int{}
	for i, s := range all {
		switch {
		case s == nil:
			b.WriteString("nil ")
		case cap(s) == 0:
			fmt.Fprintf(&b, "empty ")
		default:
			g := find(i)
			if _, ok := names[g]; !ok {
				names[g] = len(names)
			}
			fmt.Fprintf(&b, "a%d+%d:%d/%d%v ", names[g], (ms[i].lo-low[g])/unsafe.Sizeof(0), len(s), cap(s), s)
		}
	}
	fmt.Fprintf(&b, "n2 %v %d/%d ", st.N2 == nil, len(st.N2), cap(st.N2))
	cells := map[*rcell]int{}
	cell := func(p *rcell) {
		if p == nil {
			b.WriteString("nil ")
			return
		}
		if _, ok := cells[p]; !ok {
			cells[p] = len(cells)
		}
		fmt.Fprintf(&b, "c%d=%d ", cells[p], p.V)
	}
	for _, p := range st.P {
		cell(p)
	}
	for _, k := range slices.Sorted(maps.Keys(st.MP)) {
		fmt.Fprintf(&b, "mp%d:", k)
		cell(st.MP[k])
	}
	for _, k := range slices.Sorted(maps.Keys(st.M)) {
		fmt.Fprintf(&b, "%d:%d,", k, st.M[k])
	}
	fmt.Fprintf(&b, " %v %v %q ", st.E == nil, errors.Is(st.E, errRandom), st.Str)
	switch i := st.I.(type) {
	case *rcell:
		b.WriteString("I *rcell ")
		cell(i)
	case []int:
		b.WriteString("I []int, last above ")
	default:
		fmt.Fprintf(&b, "I %T %v ", i, i)
	}
	if st.F != nil {
		b.WriteString("F ")
		cell(st.FRecv)
	}
	for _, k := range slices.Sorted(maps.Keys(st.Big)) {
		fmt.Fprintf(&b, "big%d:%d,", k, st.Big[k][0])
	}
	fmt.Fprintf(&b, " %v %v", st.Fl != st.Fl, math.Signbit(st.Fl))
	return b.String()
}

// The seed, how many models, and larger ones (4-9 handlers, up to 3,000 states: about 15 minutes
// for 3,000 models here, the stress runs docs/architecture.md reports).
var (
	randomSeed  = flag.Uint64("random-seed", 0, "seed of TestFidelityRandomPrograms (0: the clock)")
	randomCases = flag.Int("random-cases", 300, "how many models TestFidelityRandomPrograms draws")
	randomLarge = flag.Bool("random-large", false, "TestFidelityRandomPrograms draws 4-9 handlers a model, not 2-6, and up to 3,000 states")
)

func TestFidelityRandomPrograms(t *testing.T) {
	seed := *randomSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (again: go test ./engine -run TestFidelityRandomPrograms -random-seed %d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	cases, compared, states, violated, refused, fromChecked, fromFewer := *randomCases, 0, 0, 0, 0, 0, 0
	if testing.Short() {
		cases = min(cases, 60)
	}
	handlers, most := 2, 300
	if *randomLarge {
		handlers, most = 4, 3000
	}
cases:
	for c := range cases {
		ops := make([]rop, handlers+rng.IntN(4+handlers/2))
		for k := range ops {
			ops[k] = randomOp(rng)
		}
		start := rstart{sliceOfS0: rng.IntN(2) == 0, sameCell: rng.IntN(2) == 0, loss: rng.IntN(2) == 0, dup: rng.IntN(2) == 0}
		inv := rng.IntN(len(randomInvariants) + len(randomSteps))
		build, claiming := randomModel(ops, start, -1), randomModel(ops, start, inv)
		g := realGoWithin(t, claiming, 24, most, nil)
		if !g.complete {
			continue // too many states for real Go's enumeration to be quick
		}
		compared++
		states += g.states
		describe := func() string {
			var lines []string
			for k, o := range ops {
				lines = append(lines, fmt.Sprintf("op%d: %v", k, o))
			}
			return fmt.Sprintf("case %d (seed %d), start %+v, claim %d:\n\t%s", c, seed, start, inv, strings.Join(lines, "\n\t"))
		}
		another := func() (*cmc.Model, error) { m, _ := build(); return m, nil }
		for _, opts := range []Options{
			{SelfCheck: -1, Workers: 1}, {SelfCheck: -1, Workers: 1, Search: "dfs"}, {SelfCheck: SelfCheckAll, Workers: 1},
			{SelfCheck: -1, Workers: 2, Build: another}, {SelfCheck: -1, Workers: 2, Build: another, Search: "dfs"},
			{SelfCheck: -1, Workers: 1, Exact: true}, {SelfCheck: -1, Workers: 1, Search: "deepen"}, {SelfCheck: -1, Workers: 1, Search: "best"},
		} {
			m, _ := build()
			res, err := Check(context.Background(), m, opts)
			switch {
			case err != nil && strings.Contains(err.Error(), "r.F: func() is the method value"):
				// F bound to a cell nothing else holds: a limit canon states (funcs.go), and the
				// same for every search.
				refused++
				continue cases
			case err != nil:
				t.Fatalf("%s\nsearch %q, self-check %d, workers %d: %v", describe(), opts.Search, opts.SelfCheck, opts.Workers, err)
			case len(res.Violations) > 0:
				v := res.Violations[0].Violation
				t.Fatalf("%s\nsearch %q, self-check %d, workers %d: %s: %s", describe(), opts.Search, opts.SelfCheck, opts.Workers, v.Kind, v.Message)
			case res.States != int64(g.states):
				t.Fatalf("%s\nsearch %q, self-check %d, workers %d: cmc counts %d states, real Go reaches %d", describe(), opts.Search, opts.SelfCheck, opts.Workers, res.States, g.states)
			}
		}
		// Three partitions, each with its own instance and pool, as a cluster's processes.
		if res := partitioned(t, func() *cmc.Model { m, _ := build(); return m }, Options{SelfCheck: -1}, 3); res.States != int64(g.states) {
			t.Fatalf("%s\nthree partitions: cmc counts %d states, real Go reaches %d", describe(), res.States, g.states)
		}
		// The claim: broken exactly when real Go breaks it, breadth-first by a shortest trace, and
		// every trace, run as plain Go, ends where real Go breaks it.
		if g.violated >= 0 {
			violated++
		}
		var shortest *Trace
		for _, search := range []string{"bfs", "dfs", "partitions"} {
			var res *Result
			if search == "partitions" {
				res = partitioned(t, func() *cmc.Model { m, _ := claiming(); return m }, Options{SelfCheck: -1}, 3)
			} else {
				m, _ := claiming()
				var err error
				if res, err = Check(context.Background(), m, Options{SelfCheck: -1, Workers: 1, Search: search}); err != nil {
					t.Fatalf("%s\n%s with the claim: %v", describe(), search, err)
				}
			}
			if g.violated < 0 {
				if len(res.Violations) > 0 {
					t.Fatalf("%s\n%s: the claim is broken after %d steps; real Go never breaks it", describe(), search, len(res.Violations[0].Steps))
				}
				continue
			}
			if len(res.Violations) == 0 || !strings.HasSuffix(res.Violations[0].Violation.Kind, "invariant") {
				t.Fatalf("%s\n%s: no broken claim found; real Go breaks it after %d steps", describe(), search, g.violated)
			}
			tr := res.Violations[0]
			if search == "bfs" {
				shortest = tr
			}
			if search != "dfs" && len(tr.Steps) != g.violated {
				t.Fatalf("%s\n%s: the claim is broken after %d steps; real Go breaks it after %d at the fewest", describe(), search, len(tr.Steps), g.violated)
			}
			if !replaysToBroken(t, claiming, tr) {
				t.Fatalf("%s\n%s: the trace %v, run as plain Go, does not end where the claim is broken", describe(), search, tr.Steps)
			}
			if k, err := replaysWithHashes(claiming, tr); err != nil {
				t.Fatalf("%s\n%s: replaying the trace on a new machine, step %d: %v", describe(), search, k, err)
			}
		}
		// A search from halfway along the shortest trace (Options.From, as a bookmark's re-check)
		// reaches what real Go reaches from there.
		if shortest != nil && len(shortest.Steps) >= 2 {
			k := len(shortest.Steps) / 2
			gf := realGoWithin(t, build, 24, most, pathOfSteps(t, build, shortest.Steps[:k]))
			if !gf.complete {
				continue
			}
			m, _ := build()
			res, err := Check(context.Background(), m, Options{SelfCheck: -1, Workers: 1, From: shortest, FromSteps: k})
			switch {
			case err != nil:
				t.Fatalf("%s\nfrom step %d of %v: %v", describe(), k, shortest.Steps, err)
			case res.PrefixNote != "":
				t.Fatalf("%s\nfrom step %d of %v: %s", describe(), k, shortest.Steps, res.PrefixNote)
			case res.States != int64(gf.states):
				t.Fatalf("%s\nfrom step %d of %v: cmc counts %d states, real Go reaches %d", describe(), k, shortest.Steps, res.States, gf.states)
			}
			fromChecked++
			if gf.states < g.states {
				fromFewer++
			}
		}
	}
	// Of 300 cases 4-11% break their claim: none would be chance about once in 200,000 runs.
	if cases >= 300 && (compared-refused < cases/2 || violated == 0 || violated == compared) {
		t.Errorf("%d of %d cases were compared (%d refused), %d break their claim: the cases do not cover both", compared, cases, refused, violated)
	}
	t.Logf("%d of %d cases compared, %d of them refused, %d states in all; %d break their claim, %d searched again from halfway (%d of them reaching fewer states than the initial state)", compared, cases, refused, states, violated, fromChecked, fromFewer)
}

// pathOfSteps names steps' events by their index in a model build makes.
func pathOfSteps(t *testing.T, build fidelityModel, steps []Step) []pathStep {
	t.Helper()
	m, _ := build()
	def, err := m.Definition()
	if err != nil {
		t.Fatal(err)
	}
	var p []pathStep
	for _, st := range steps {
		i := slices.IndexFunc(def.Events, func(e *cmc.Event) bool { return e.Proc == st.Proc && e.Name == st.Event })
		if i < 0 {
			t.Fatalf("the trace names %s.%s, which the model lacks", st.Proc, st.Event)
		}
		p = append(p, pathStep{event: i, values: st.Values()})
	}
	return p
}

// replaysToBroken runs tr's steps as plain Go on a fresh model and reports whether the state
// they end in breaks one of its invariants, or the last step one of its step invariants.
func replaysToBroken(t *testing.T, build fidelityModel, tr *Trace) bool {
	t.Helper()
	transition.Lock.Lock()
	defer transition.Lock.Unlock()
	m, _ := build()
	def, err := m.Definition()
	if err != nil {
		t.Fatal(err)
	}
	broken := false
	for _, st := range pathOfSteps(t, build, tr.Steps) {
		before := make([]any, len(def.StepChecks))
		for i, sc := range def.StepChecks {
			before[i] = sc.Capture()
		}
		native(t, def.Events[st.event], st.values)
		broken = false // the last step's verdict stands
		for i, sc := range def.StepChecks {
			broken = broken || sc.Check(before[i], sc.Capture()) != nil
		}
	}
	for _, inv := range def.Invariants {
		broken = broken || inv.Check() != nil
	}
	return broken
}

// replaysWithHashes replays tr on a new machine, as the debugger does, and returns the first step
// whose state's hash is not the one tr stored, with why.
func replaysWithHashes(build fidelityModel, tr *Trace) (int, error) {
	m, _ := build()
	mc, s, err := NewMachine(m)
	if err != nil {
		return 0, err
	}
	defer mc.Close()
	if Hash(mc.Hash(s)) != tr.InitHash {
		return 0, fmt.Errorf("the initial state's hash differs")
	}
	for i := range tr.Steps {
		st := &tr.Steps[i]
		next, out, err := mc.Apply(s, i+1, st, false)
		switch {
		case err != nil:
			return i + 1, err
		case out.Failure != nil:
			return i + 1, fmt.Errorf("%s", out.Failure.Message)
		case Hash(mc.Hash(next)) != st.Hash:
			return i + 1, fmt.Errorf("the state's hash differs from the trace's")
		}
		s = next
	}
	return 0, nil
}
