// Command gen makes the trace database the views' browser tests browse: it checks the
// viewsmodel (package ../model) and stores what it finds, and prints the trace ids as JSON.
//
//	go run ./test/views/gen -db /tmp/views.db
//
// It stores six traces: "bfs", the shortest violation the checker finds; "tour", a violation
// reached through a lost and a duplicated message (so the chart has arrows of every kind),
// recorded step by step from chosen Choose values; "big", the violation with 100 padding
// objects per node (a heap of about 320 objects, for the timing of the heap graph); and "aodv",
// the routing loop of examples/aodv's AODVSpecBug as depth-first search finds it (20 steps, in
// about a second; breadth-first search's 16-step loop takes 20 s to find); "whatif", that loop
// with another step 17 (engine.Branch), to compare with it; and "walk", a random walk of 1,000
// steps of the fixed AODV model, longer than the chart draws at once; "ppp", pppd 2.4.0's
// Terminate-Ack in Opened refused by the RFC 1661 specification (examples/ppp: a refinement
// violation, for the Specification section); and "redis", examples/redis's retried INCR counted
// twice, against the example's in-process fake server (so no redis-server is needed; for the
// Connections section).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	_ "github.com/cmc-go/cmc/examples/aodv"  // registers AODVSpecBug
	_ "github.com/cmc-go/cmc/examples/ppp"   // registers PPP
	_ "github.com/cmc-go/cmc/examples/redis" // registers RedisCounter
	"github.com/cmc-go/cmc/store"
	_ "github.com/cmc-go/cmc/test/views/model" // registers ViewsDemo
)

func main() {
	db := flag.String("db", "", "trace database to write (created)")
	flag.Parse()
	if *db == "" {
		fmt.Fprintln(os.Stderr, "gen: give -db FILE")
		os.Exit(2)
	}
	if err := run(*db); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	st, err := store.Open(path)
	if err != nil {
		return err
	}
	defer st.Close()
	ids := map[string]int64{}
	for _, c := range []struct {
		name   string
		params map[string]string
	}{
		{"bfs", map[string]string{"nodes": "3"}},
		{"big", map[string]string{"nodes": "3", "pad": "100"}},
	} {
		t, err := check("ViewsDemo", c.params, engine.Options{})
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if ids[c.name], err = st.AddTrace(0, t, time.Time{}); err != nil {
			return err
		}
	}
	t, err := tour()
	if err != nil {
		return fmt.Errorf("tour: %w", err)
	}
	if ids["tour"], err = st.AddTrace(0, t, time.Time{}); err != nil {
		return err
	}
	if t, err = check("AODVSpecBug", nil, engine.Options{Search: "dfs", MaxDepth: 200}); err != nil {
		return fmt.Errorf("aodv: %w", err)
	}
	if ids["aodv"], err = st.AddTrace(0, t, time.Time{}); err != nil {
		return err
	}
	if ids["whatif"], err = whatIf(st, ids["aodv"], t); err != nil {
		return fmt.Errorf("whatif: %w", err)
	}
	if t, err = walk(); err != nil {
		return fmt.Errorf("walk: %w", err)
	}
	if ids["walk"], err = st.AddTrace(0, t, time.Time{}); err != nil {
		return err
	}
	for _, c := range []struct {
		name, model string
		params      map[string]string
	}{
		{"ppp", "PPP", map[string]string{"ops": "2", "bound": "2", "maxid": "3", "loss": "0", "pppd": "1"}},
		{"redis", "RedisCounter", map[string]string{"fake": "true"}},
	} {
		t, err := check(c.model, c.params, engine.Options{})
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if ids[c.name], err = st.AddTrace(0, t, time.Time{}); err != nil {
			return err
		}
	}
	return json.NewEncoder(os.Stdout).Encode(ids)
}

// check checks a model and returns its first violation.
func check(model string, params map[string]string, opts engine.Options) (*engine.Trace, error) {
	m, err := cmc.Build(model, params)
	if err != nil {
		return nil, err
	}
	res, err := engine.Check(context.Background(), m, opts)
	if err != nil {
		return nil, err
	}
	if len(res.Violations) == 0 {
		return nil, fmt.Errorf("no violation found in %d states", res.States)
	}
	t := res.Violations[0]
	t.Params = params
	return t, nil
}

// whatIf stores the loop's first alternative at step 17 (another router's packet received instead
// of A's stale RERR), derived from it: two traces that part at step 17, to compare.
func whatIf(st *store.Store, from int64, t *engine.Trace) (int64, error) {
	m := func() *cmc.Model { m, _ := cmc.Build("AODVSpecBug", nil); return m }
	alts, err := engine.Alternatives(m(), t, 17)
	if err != nil || len(alts) == 0 {
		return 0, fmt.Errorf("no alternative at step 17: %v", err)
	}
	b, err := engine.Branch(m(), t, 17, alts[0])
	if err != nil {
		return 0, err
	}
	return st.AddDerived(from, "what if step 17: "+alts[0].What, b, time.Time{})
}

// walk is a kept random walk of AODV without bounds (as the replay benchmarks walk it).
func walk() (*engine.Trace, error) {
	params := map[string]string{"requests": "-1", "faults": "-1", "seq": "1000000", "rreq": "1000000", "forget": "true"}
	m, err := cmc.Build("AODV", params)
	if err != nil {
		return nil, err
	}
	res, err := engine.Check(context.Background(), m, engine.Options{Search: "random", Steps: 1000, Seed: 1, Keep: true})
	if err != nil {
		return nil, err
	}
	if res.Walk == nil || len(res.Walk.Steps) != 1000 {
		return nil, fmt.Errorf("the walk stopped early")
	}
	res.Walk.Params = params
	return res.Walk, nil
}

// tour records a chosen path: A sends requests to B and C; C's is lost; B acknowledges; the
// acknowledgement is duplicated on delivery, and its copy delivered again: A counts two acks.
func tour() (*engine.Trace, error) {
	params := map[string]string{"nodes": "3"}
	m, err := cmc.Build("ViewsDemo", params)
	if err != nil {
		return nil, err
	}
	mc, init, err := engine.NewMachine(m)
	if err != nil {
		return nil, err
	}
	defer mc.Close()
	step := func(proc, event string, values ...int) engine.Step {
		s := engine.Step{Proc: proc, Event: event}
		for _, v := range values {
			s.Choices = append(s.Choices, engine.Choice{Value: v})
		}
		return s
	}
	// A receive chooses: duplicate (1) or not, then lose (1) or not.
	t, last, _, err := mc.Record(init, []engine.Step{
		step("A", "start"),
		step("C", "recv", 0, 1),
		step("B", "recv", 0, 0),
		step("A", "recv", 1, 0),
		step("A", "recv", 0, 0),
	})
	if err != nil {
		return nil, err
	}
	if t.Violation, err = mc.Verdict(last, nil); err != nil {
		return nil, err
	}
	if t.Violation == nil {
		return nil, fmt.Errorf("the tour ends in no violation")
	}
	t.Params = params
	return t, nil
}
