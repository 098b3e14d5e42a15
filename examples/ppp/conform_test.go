package ppp

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/conform"
	"github.com/cmc-go/cmc/examples/ppp/lcp"
	"github.com/cmc-go/cmc/examples/ppp/rfc1661"
)

// A real run of two ends, without the checker: packets wait in an inbox per end and are
// delivered in the order the run says (a link that reorders), and each end's steps are written
// as a JSON-lines log, which package conform checks against RFC 1661's table.

type end struct {
	inbox []lcp.Packet
	peer  *end
	timer bool
}

func (e *end) Send(p lcp.Packet) { e.peer.inbox = append(e.peer.inbox, p) }
func (e *end) StartTimer()       { e.timer = true }
func (e *end) StopTimer()        { e.timer = false }
func (e *end) Up()               {}
func (e *end) Down()             {}
func (e *end) Started()          {}
func (e *end) Finished()         {}

// logTracer writes an end's steps (lcp.Tracer) to a log.
type logTracer struct{ w *conform.Writer }

func (l logTracer) Step(event string, actions []string, to lcp.State) {
	l.w.Write(event, actions, to.String())
}

// run plays the scenario of the checker's trace for pppd 2.4.0: A's first request reaches B
// while B is Closed, and B's Terminate-Ack reaches A only after A is Opened. It returns A's log.
func run(t *testing.T, pppd bool) string {
	var log strings.Builder
	w := &conform.Writer{W: &log}
	ea, eb := &end{}, &end{}
	ea.peer, eb.peer = eb, ea
	cfg := lcp.Config{MaxConfigure: 2, MaxTerminate: 2, PPPD240RTA: pppd}
	a, b := lcp.New(cfg, ea, logTracer{w}), lcp.New(cfg, eb, nil)
	deliver := func(f *lcp.FSM, e *end, code lcp.Code, id uint8) {
		i := slices.IndexFunc(e.inbox, func(p lcp.Packet) bool { return p.Code == code && p.ID == id })
		if i < 0 {
			t.Fatalf("no %v id=%d in %v", code, id, e.inbox)
		}
		p := e.inbox[i]
		e.inbox = slices.Delete(e.inbox, i, i+1)
		f.Input(p)
	}
	a.Up()
	a.Open()
	a.Timeout()
	b.Up()
	deliver(b, eb, lcp.ConfReq, 1) // B is Closed: Terminate-Ack
	b.Open()
	deliver(b, eb, lcp.ConfReq, 2) // B acks A's second request
	deliver(a, ea, lcp.ConfAck, 2)
	deliver(a, ea, lcp.ConfReq, 1) // A acks B's request: Opened
	deliver(a, ea, lcp.TermAck, 1) // the late Terminate-Ack
	if w.Err != nil {
		t.Fatal(w.Err)
	}
	return log.String()
}

func conformance(t *testing.T, log string) (int, error) {
	steps, err := conform.Read(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	return conform.Check(rfc1661.Spec("ppp", rfc1661.Counts{MaxConfigure: 2, MaxTerminate: 2}).Refinement(), steps)
}

// TestLogs: the logs in testdata/ are these runs' (cmcdap conform and docs/refinement.md use them).
func TestLogs(t *testing.T) {
	for file, pppd := range map[string]bool{"testdata/run.jsonl": false, "testdata/run-pppd240.jsonl": true} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if log := run(t, pppd); string(b) != log {
			t.Errorf("%s is not the run's log; the run wrote:\n%s", file, log)
		}
	}
}

func TestLogConforms(t *testing.T) {
	log := run(t, false)
	if n, err := conformance(t, log); err != nil || n != 6 {
		t.Fatalf("the log of a correct end: %d steps conform, %v; want 6, nil\n%s", n, err, log)
	}
}

func TestPPPD240LogDoesNotConform(t *testing.T) {
	log := run(t, true)
	n, err := conformance(t, log)
	var r *conform.Refusal
	if !errors.As(err, &r) || n != 5 || r.Line != 6 {
		t.Fatalf("pppd 2.4.0's log: %d steps conform, %v; want a refusal of line 6\n%s", n, err, log)
	}
	want := "spec ppp in Opened: observed RTA with tld,scr reaching Opened; the spec allows tld,scr/Req-Sent"
	if r.Message != want {
		t.Fatalf("refusal:\n got %s\nwant %s", r.Message, want)
	}
	if got := strings.Split(log, "\n")[5]; got != `{"event":"RTA","actions":["tld","scr"],"state":"Opened"}` {
		t.Fatalf("line 6 of the log is %s", got)
	}
}
