package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/internal/transition"
)

// Random programs against real Go. Each case is a process of a few handlers drawn from the ways
// ordinary Go changes slices, pointers and maps (append into spare capacity, reslicing, aliasing a
// slice or a pointer, copy, make, map writes), with small random operands. Real Go's state graph
// (realGoWithin, told apart by every property a handler could observe: lengths, capacities,
// elements, which slices see one array and where, which pointers are one object) must have as
// many states as cmc counts, breadth- and depth-first, with the self-check off (so that nothing
// but the capture, its footprints and its kept values decide what a transition starts from) and
// on. The hand-written fidelity cases above each test one way; these test them together.

// A random program has three components: process r (three slices, two pointers and a map), an
// environment (a counter, a queue and a set) and process q, a small value (its root alone, which
// a machine keeps several captures of).
type (
	rstate struct {
		S   [3][]int
		P   [2]*rcell
		M   map[int]int
		E   error          // nil, errRandom or another error
		Str string         //
		MP  map[int]*rcell // its cells may be P's
		N2  [][]int        // its slices may see S's arrays
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
	}
)

// errRandom is a sentinel error: a handler tells it apart by identity (errors.Is).
var errRandom = errors.New("random")

// An rop is one handler: kind picks the operation, the rest are its operands.
type rop struct{ kind, i, j, a, b, c, v int }

const ropKinds = 35

// proc is the process whose event the operation is; touches, another process it changes.
func (o rop) proc() string {
	if o.kind >= 21 && o.kind <= 23 {
		return "q"
	}
	return "r"
}

func (o rop) touches() []cmc.Option {
	if o.kind == 20 {
		return []cmc.Option{cmc.Touches("q")}
	}
	return nil
}

func (o rop) String() string {
	switch o.kind {
	case 0:
		return fmt.Sprintf("S%d = append(S%d, %d) if len < 3", o.i, o.i, o.v)
	case 1:
		return fmt.Sprintf("S%d = S%d", o.i, o.j)
	case 2:
		return fmt.Sprintf("S%d = S%d[%d:%d] if %d <= len", o.i, o.j, o.a, o.b, o.b)
	case 3:
		return fmt.Sprintf("S%d = S%d[%d:%d:%d] if %d <= len", o.i, o.j, o.a, o.b, o.c, o.c)
	case 4:
		return fmt.Sprintf("S%d[%d] = (S%d[%d]+1)%%3 if %d < len", o.i, o.a, o.i, o.a, o.a)
	case 5:
		return fmt.Sprintf("S%d = make([]int, %d, %d)", o.i, o.a, o.c)
	case 6:
		return fmt.Sprintf("copy(S%d, S%d)", o.i, o.j)
	case 7:
		return fmt.Sprintf("S%d = nil", o.i)
	case 8:
		return fmt.Sprintf("P%d = &rcell{%d}", o.i, o.v)
	case 9:
		return fmt.Sprintf("P%d = P%d", o.i, o.j)
	case 10:
		return fmt.Sprintf("P%d.V = (P%d.V+1)%%3 if P%d != nil", o.i, o.i, o.i)
	case 11:
		return fmt.Sprintf("M[%d] = %d", o.a, o.v)
	case 12:
		return fmt.Sprintf("delete(M, %d)", o.a)
	case 13:
		return fmt.Sprintf("S%d = append(S%d, Choose(2)) if len < 3", o.i, o.i)
	case 14:
		return "env.N = (env.N+1)%3"
	case 15:
		return fmt.Sprintf("env.Q = append(env.Q, %d) if len < 2", o.v)
	case 16:
		return "env.Q = env.Q[1:] if len > 0"
	case 17:
		return fmt.Sprintf("env.Set = append(env.Set, %d) if len < 3", o.v)
	case 18:
		return fmt.Sprintf("remove %d from env.Set if there", o.v)
	case 19:
		return fmt.Sprintf("S%d = append(S%d, env.N) if len < 3", o.i, o.i)
	case 20:
		return "q.X = (q.X+1)%3, from r"
	case 21:
		return "q.X = (q.X+1)%3"
	case 22:
		return "q.X = 0"
	case 23:
		return "env.N = q.X"
	case 24:
		return "E = errRandom"
	case 25:
		return "E = nil"
	case 26:
		return fmt.Sprintf("S%d = append(S%d, 2) if errors.Is(E, errRandom) and len < 3", o.i, o.i)
	case 27:
		return "Str += \"a\" if len < 2"
	case 28:
		return "Str = \"\""
	case 29:
		return fmt.Sprintf("MP[%d] = &rcell{%d}", o.a, o.v)
	case 30:
		return fmt.Sprintf("MP[%d] = P%d", o.a, o.i)
	case 31:
		return fmt.Sprintf("MP[%d].V = (MP[%d].V+1)%%3 if not nil", o.a, o.a)
	case 32:
		return fmt.Sprintf("N2 = append(N2, S%d) if len < 2", o.i)
	case 33:
		return fmt.Sprintf("N2[%d][0] = (N2[%d][0]+1)%%3 if there", o.a%2, o.a%2)
	default:
		return fmt.Sprintf("delete(MP, %d)", o.a)
	}
}

// enabled and run are the handler's guard and body on w.
func (o rop) enabled(w rworld) bool {
	st, e := w.r, w.e
	switch o.kind {
	case 0, 13, 19:
		return len(st.S[o.i]) < 3
	case 2:
		return o.b <= len(st.S[o.j])
	case 3:
		return o.c <= len(st.S[o.j])
	case 4:
		return o.a < len(st.S[o.i])
	case 10:
		return st.P[o.i] != nil
	case 15:
		return len(e.Q) < 2
	case 16:
		return len(e.Q) > 0
	case 17:
		return len(e.Set) < 3
	case 18:
		return slices.Contains(e.Set, o.v)
	case 26:
		return errors.Is(st.E, errRandom) && len(st.S[o.i]) < 3
	case 27:
		return len(st.Str) < 2
	case 31:
		return st.MP[o.a] != nil
	case 32:
		return len(st.N2) < 2
	case 33:
		return o.a%2 < len(st.N2) && len(st.N2[o.a%2]) > 0
	}
	return true
}

func (o rop) run(w rworld) {
	st, e := w.r, w.e
	switch o.kind {
	case 0:
		st.S[o.i] = append(st.S[o.i], o.v)
	case 1:
		st.S[o.i] = st.S[o.j]
	case 2:
		st.S[o.i] = st.S[o.j][o.a:o.b]
	case 3:
		st.S[o.i] = st.S[o.j][o.a:o.b:o.c]
	case 4:
		st.S[o.i][o.a] = (st.S[o.i][o.a] + 1) % 3
	case 5:
		st.S[o.i] = make([]int, o.a, o.c)
	case 6:
		copy(st.S[o.i], st.S[o.j])
	case 7:
		st.S[o.i] = nil
	case 8:
		st.P[o.i] = &rcell{V: o.v}
	case 9:
		st.P[o.i] = st.P[o.j]
	case 10:
		st.P[o.i].V = (st.P[o.i].V + 1) % 3
	case 11:
		st.M[o.a] = o.v
	case 12:
		delete(st.M, o.a)
	case 13:
		st.S[o.i] = append(st.S[o.i], cmc.Choose(2))
	case 14:
		e.N = (e.N + 1) % 3
	case 15:
		e.Q = append(e.Q, o.v)
	case 16:
		e.Q = e.Q[1:]
	case 17:
		e.Set = append(e.Set, o.v)
	case 18:
		k := slices.Index(e.Set, o.v)
		e.Set = slices.Delete(e.Set, k, k+1)
	case 19:
		st.S[o.i] = append(st.S[o.i], e.N)
	case 20, 21:
		w.q.X = (w.q.X + 1) % 3
	case 22:
		w.q.X = 0
	case 23:
		e.N = w.q.X
	case 24:
		st.E = errRandom
	case 25:
		st.E = nil
	case 26:
		st.S[o.i] = append(st.S[o.i], 2)
	case 27:
		st.Str += "a"
	case 28:
		st.Str = ""
	case 29:
		st.MP[o.a] = &rcell{V: o.v}
	case 30:
		st.MP[o.a] = st.P[o.i]
	case 31:
		st.MP[o.a].V = (st.MP[o.a].V + 1) % 3
	case 32:
		st.N2 = append(st.N2, st.S[o.i])
	case 33:
		st.N2[o.a%2][0] = (st.N2[o.a%2][0] + 1) % 3
	default:
		delete(st.MP, o.a)
	}
}

// randomOp draws an operation with operands that keep the state space small.
func randomOp(rng *rand.Rand) rop {
	o := rop{kind: rng.IntN(ropKinds), i: rng.IntN(3), j: rng.IntN(3), v: rng.IntN(3)}
	if o.kind >= 8 && o.kind <= 10 || o.kind == 30 {
		o.i, o.j = rng.IntN(2), rng.IntN(2)
	}
	o.c = rng.IntN(4)
	o.b = rng.IntN(o.c + 1)
	o.a = rng.IntN(o.b + 1)
	if o.kind == 4 || o.kind == 11 || o.kind == 12 || o.kind >= 29 {
		o.a = rng.IntN(3)
	}
	return o
}

// A rstart is how a case's state begins: whether S1 is a slice of S0's array, and whether P1 is
// P0.
type rstart struct{ sliceOfS0, sameCell bool }

// randomInvariants are what a case's model may claim of its state; each is broken in some
// programs and holds in others, and holds initially.
var randomInvariants = []func(w rworld) bool{
	func(w rworld) bool { return len(w.r.S[0]) < 3 },
	func(w rworld) bool { return w.r.P[0] == nil || w.r.P[0].V != 2 },
	func(w rworld) bool { return w.e.N != 2 },
	func(w rworld) bool { return w.q.X != 2 },
	func(w rworld) bool { return len(w.r.MP) < 2 },
	func(w rworld) bool { return len(w.r.S[1]) == 0 || w.r.S[1][0] != 0 },
}

// randomModel builds a case's model; with inv >= 0 it claims randomInvariants[inv].
func randomModel(ops []rop, start rstart, inv int) fidelityModel {
	return func() (*cmc.Model, func() string) {
		st := &rstate{M: map[int]int{0: 1}, MP: map[int]*rcell{}}
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
		w := rworld{r: st, e: &renv{Set: []int{1}}, q: &rsmall{}}
		m := cmc.NewModel("random")
		m.Environment("env", w.e)
		procs := map[string]*cmc.Proc{"r": m.Process("r", st), "q": m.Process("q", w.q)}
		for k, o := range ops {
			opts := append(o.touches(), cmc.When(func() bool { return o.enabled(w) }))
			procs[o.proc()].On(fmt.Sprintf("op%d", k), func() { o.run(w) }, opts...)
		}
		if inv >= 0 {
			m.Invariant(fmt.Sprintf("claim%d", inv), func() error {
				if !randomInvariants[inv](w) {
					return errors.New("broken")
				}
				return nil
			})
		}
		return m, func() string {
			set := slices.Sorted(slices.Values(w.e.Set)) // a set's order is not state
			return fmt.Sprint(st.observed(), "| ", w.e.N, w.e.Q == nil, len(w.e.Q), cap(w.e.Q), w.e.Q, w.e.Set == nil, set, " | ", w.q.X)
		}
	}
}

// observed says everything a handler can observe of st: for each slice (S's and N2's) nil-ness,
// length, capacity, elements, and which other slices can see its memory and where (slices whose
// capacities overlap are one array, named in order of first sight, with each slice's offset from
// the array's lowest start); for each pointer, nil or which cell and its value; the maps'
// entries; whether E is errRandom. Elements past a slice's length are not observable by these
// handlers (none reads past it), and not state either (canon restores them as zero).
func (st *rstate) observed() string {
	all := append(st.S[:len(st.S):len(st.S)], st.N2...)
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
	fmt.Fprintf(&b, " %v %v %q", st.E == nil, errors.Is(st.E, errRandom), st.Str)
	return b.String()
}

func TestFidelityRandomPrograms(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	cases, compared, states, violated := 300, 0, 0, 0
	if testing.Short() {
		cases = 60
	}
	for c := range cases {
		ops := make([]rop, 2+rng.IntN(4))
		for k := range ops {
			ops[k] = randomOp(rng)
		}
		start := rstart{sliceOfS0: rng.IntN(2) == 0, sameCell: rng.IntN(2) == 0}
		inv := rng.IntN(len(randomInvariants))
		build, claiming := randomModel(ops, start, -1), randomModel(ops, start, inv)
		g := realGoWithin(t, claiming, 16, 300)
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
			case err != nil:
				t.Fatalf("%s\nsearch %q, self-check %d, workers %d: %v", describe(), opts.Search, opts.SelfCheck, opts.Workers, err)
			case len(res.Violations) > 0:
				v := res.Violations[0].Violation
				t.Fatalf("%s\nsearch %q, self-check %d, workers %d: %s: %s", describe(), opts.Search, opts.SelfCheck, opts.Workers, v.Kind, v.Message)
			case res.States != int64(g.states):
				t.Fatalf("%s\nsearch %q, self-check %d, workers %d: cmc counts %d states, real Go reaches %d", describe(), opts.Search, opts.SelfCheck, opts.Workers, res.States, g.states)
			}
		}
		// The claim: broken exactly when real Go breaks it, breadth-first by a shortest trace, and
		// every trace, run as plain Go, ends where real Go breaks it.
		if g.violated >= 0 {
			violated++
		}
		for _, search := range []string{"bfs", "dfs"} {
			m, _ := claiming()
			res, err := Check(context.Background(), m, Options{SelfCheck: -1, Workers: 1, Search: search})
			if err != nil {
				t.Fatalf("%s\n%s with the claim: %v", describe(), search, err)
			}
			if g.violated < 0 {
				if len(res.Violations) > 0 {
					t.Fatalf("%s\n%s: the claim is broken after %d steps; real Go never breaks it", describe(), search, len(res.Violations[0].Steps))
				}
				continue
			}
			if len(res.Violations) == 0 || res.Violations[0].Violation.Kind != "invariant" {
				t.Fatalf("%s\n%s: no broken claim found; real Go breaks it after %d steps", describe(), search, g.violated)
			}
			tr := res.Violations[0]
			if search == "bfs" && len(tr.Steps) != g.violated {
				t.Fatalf("%s\nbfs: the claim is broken after %d steps; real Go breaks it after %d at the fewest", describe(), len(tr.Steps), g.violated)
			}
			if !replaysToBroken(t, claiming, tr) {
				t.Fatalf("%s\n%s: the trace %v, run as plain Go, does not end where the claim is broken", describe(), search, tr.Steps)
			}
			if k, err := replaysWithHashes(claiming, tr); err != nil {
				t.Fatalf("%s\n%s: replaying the trace on a new machine, step %d: %v", describe(), search, k, err)
			}
		}
	}
	if compared < cases/2 || violated == 0 || violated == compared {
		t.Errorf("%d of %d cases were compared, %d break their claim: the cases do not cover both", compared, cases, violated)
	}
	t.Logf("%d of %d cases compared, %d states in all; %d break their claim", compared, cases, states, violated)
}

// replaysToBroken runs tr's steps as plain Go on a fresh model and reports whether the state
// they end in breaks one of its invariants.
func replaysToBroken(t *testing.T, build fidelityModel, tr *Trace) bool {
	t.Helper()
	transition.Lock.Lock()
	defer transition.Lock.Unlock()
	m, _ := build()
	def, err := m.Definition()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range tr.Steps {
		i := slices.IndexFunc(def.Events, func(e *cmc.Event) bool { return e.Proc == st.Proc && e.Name == st.Event })
		if i < 0 {
			t.Fatalf("the trace names %s.%s, which the model lacks", st.Proc, st.Event)
		}
		var prefix []int
		for _, c := range st.Choices {
			prefix = append(prefix, c.Value)
		}
		native(t, def.Events[i], prefix)
	}
	for _, inv := range def.Invariants {
		if inv.Check() != nil {
			return true
		}
	}
	return false
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
