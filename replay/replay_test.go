package replay

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
)

// TestReplay runs the transcripts in testdata/. Commands:
//
//	open model=NAME [K=V]... [search=bfs|dfs|random] [steps=N] [seed=N] [selfcheck=N] [against=NAME] [to=N]
//	    check NAME, take its first violation's trace (or the random walk), and replay it on
//	    model against (default: the same); prints what replay proved
//	trace                    the trace's steps and choices
//	goto N | step | back | stepin | stepout
//	                         move the cursor; prints where it is, or the error
//	view [graph] [leaves]    the view at the cursor: position, choices, notes, diff, environment;
//	                         graph and leaves add those
//	choices N                step N's Choose calls
//	minimize                 Minimize the trace; prints its length, signature and steps
//
// Regenerate with: go test ./replay -run TestReplay -rewrite
func TestReplay(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		r := &runner{}
		defer r.close()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return r.run(t, d)
		})
	})
}

type runner struct {
	s      *Session
	t      *engine.Trace
	model  string
	params map[string]string
}

func (r *runner) close() {
	if r.s != nil {
		r.s.Close()
		r.s = nil
	}
}

func (r *runner) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "open":
		return r.open(t, d)
	case "trace":
		return traceText(r.t)
	case "goto", "step", "back", "stepin", "stepout":
		var err error
		switch d.Cmd {
		case "goto":
			n, _ := strconv.Atoi(d.CmdArgs[0].Key)
			err = r.s.GoTo(n)
		case "step":
			err = r.s.Step()
		case "back":
			err = r.s.Back()
		case "stepin":
			err = r.s.StepIn()
		case "stepout":
			err = r.s.StepOut()
		}
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return r.where() + "\n"
	case "view":
		v, err := r.s.View()
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return viewText(v, d)
	case "choices":
		n, _ := strconv.Atoi(d.CmdArgs[0].Key)
		var b strings.Builder
		for _, c := range r.s.Choices(n) {
			fmt.Fprintf(&b, "%d: %d of %d at %s\n", c.Index, c.Value, c.N, ShortSite(c.Site))
		}
		return b.String()
	case "minimize":
		build := func() *cmc.Model {
			m, err := cmc.Build(r.model, r.params)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		m, _, err := Minimize(build, r.t, 0)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return fmt.Sprintf("%d steps -> %d steps, %s\n", len(r.t.Steps), len(m.Steps), m.Violation.Signature) + traceText(m)
	}
	t.Fatalf("unknown command %s", d.Cmd)
	return ""
}

func (r *runner) open(t *testing.T, d *datadriven.TestData) string {
	r.close()
	r.params = map[string]string{}
	var opts engine.Options
	against, to := "", 0
	for _, a := range d.CmdArgs {
		v := ""
		if len(a.Vals) > 0 {
			v = a.Vals[0]
		}
		n, _ := strconv.Atoi(v)
		switch a.Key {
		case "model":
			r.model = v
		case "search":
			opts.Search = v
		case "steps":
			opts.Steps, opts.Keep = n, true
		case "seed":
			opts.Seed = uint64(n)
		case "selfcheck":
			opts.SelfCheck = int64(n)
		case "against":
			against = v
		case "to":
			to = n
		default:
			r.params[a.Key] = v
		}
	}
	m, err := cmc.Build(r.model, r.params)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Check(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(res.Violations) > 0:
		r.t = res.Violations[0]
	case res.Walk != nil:
		r.t = res.Walk
	default:
		t.Fatalf("model %s: no violation and no walk to replay", r.model)
	}
	r.t.Params = r.params
	if against == "" {
		against = r.model
	}
	m, err = cmc.Build(against, r.params)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenTo(m, r.t, to)
	if s == nil {
		t.Fatal(err)
	}
	var div *Divergence
	if err != nil && !errors.As(err, &div) {
		t.Fatalf("open returned %v, want a *Divergence", err)
	}
	r.s = s
	sum := s.Summary()
	if (div != nil) != !sum.OK() {
		t.Fatalf("Open's error %v and the summary disagree", err)
	}
	return sum.Describe("the trace of "+r.model) + "\n"
}

// where describes the cursor.
func (r *runner) where() string {
	p := r.s.Position()
	if p.Step == 0 {
		return "at the initial state"
	}
	st := r.t.Steps[p.Step-1]
	if c := r.t.Call(p); c != nil {
		return fmt.Sprintf("%s (%s.%s), at Choose(%d) -> %d, %s", p, st.Proc, st.Event, c.N, c.Value, ShortSite(c.Site))
	}
	return fmt.Sprintf("%s (%s.%s)", p, st.Proc, st.Event)
}

func traceText(t *engine.Trace) string {
	var b strings.Builder
	for i, s := range t.Steps {
		fmt.Fprintf(&b, "%d %s.%s", i+1, s.Proc, s.Event)
		for _, c := range s.Choices {
			fmt.Fprintf(&b, " %d/%d", c.Value, c.N)
		}
		b.WriteByte('\n')
	}
	if t.Violation != nil {
		fmt.Fprintf(&b, "violation: %s\n", describeViolation(t.Violation))
	}
	return b.String()
}

func viewText(v *View, d *datadriven.TestData) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %d steps", v.Position, v.Steps)
	if v.Proc != "" {
		fmt.Fprintf(&b, " (%s.%s) at %s", v.Proc, v.Event, ShortSite(v.Site))
	}
	b.WriteByte('\n')
	for _, c := range v.Choices {
		mark := ""
		if c.Index == v.Position.Choice {
			mark = "  <- here"
		}
		fmt.Fprintf(&b, "choice %d: %d of %d at %s%s\n", c.Index, c.Value, c.N, ShortSite(c.Site), mark)
	}
	for _, n := range v.Notes {
		fmt.Fprintf(&b, "note %s %s->%s %s\n", n.Kind, n.From, n.To, n.Msg)
	}
	for _, c := range v.Diff {
		fmt.Fprintf(&b, "%s %s: %s -> %s\n", c.Kind, c.Path, c.Old, c.New)
	}
	for _, c := range v.Environment {
		fmt.Fprintf(&b, "env %s:", c.Name)
		for _, l := range c.Leaves {
			fmt.Fprintf(&b, " %s=%s", l.Path, l.Value)
		}
		b.WriteByte('\n')
	}
	if v.Failure != nil {
		fmt.Fprintf(&b, "failure: %s\n", describeFailure(v.Failure))
	}
	if v.Violation != nil {
		fmt.Fprintf(&b, "violation: %s\n", describeViolation(v.Violation))
	}
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "graph":
			for _, o := range v.Graph.Objects {
				mark := ""
				if o.Changed {
					mark = " (changed)"
				}
				fmt.Fprintf(&b, "object %d %s %s%s:", o.ID, o.Type, o.Path, mark)
				for _, f := range o.Fields {
					if f.Ref != 0 {
						fmt.Fprintf(&b, " %s->%d", f.Name, f.Ref)
					} else {
						fmt.Fprintf(&b, " %s=%s", f.Name, f.Scalar)
					}
				}
				b.WriteByte('\n')
			}
		case "leaves":
			for _, l := range v.Leaves {
				fmt.Fprintf(&b, "leaf %s = %s\n", l.Path, l.Value)
			}
		}
	}
	return b.String()
}
