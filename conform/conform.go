// Package conform checks recorded behaviour against a specification without model checking: a
// log of steps written by a real run of an implementation (or a stored trace turned into steps)
// is replayed against a cmc.Spec, step by step, with the judgement the engine makes on every
// explored transition (engine.Judge), and the first step the specification does not allow is
// reported with its line.
//
// The log format is JSON lines, one step per line:
//
//	{"event":"RCA","actions":["irc"],"state":"Ack-Rcvd"}
//
// event is the specification event the implementation handled ("" or absent: none), actions the
// actions it took, in any order, and state the specification state it reached, named as the
// specification's state prints (its String method). A line without "state" is a step that leaves the implementation between
// two specification states: its event and actions are held and checked with the next line that
// has a state (the engine's held steps). A line with a state and neither event nor actions says
// where the implementation is (the first line of a log may give the initial state). Other fields
// (a timestamp, a process name) are ignored, so a log may carry what its writer likes; blank
// lines are skipped.
package conform

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
)

// A Step is one line of a log.
type Step struct {
	Event   string   `json:"event,omitempty"`
	Actions []string `json:"actions,omitempty"`
	State   *string  `json:"state,omitempty"` // nil: between two specification states
	Line    int      `json:"-"`               // where it was read, from 1
	Where   string   `json:"-"`               // the same, for people: "log line 6", "ITF state 5"
}

// Read reads a JSON-lines log.
func Read(r io.Reader) ([]Step, error) {
	var steps []Step
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var s Step
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			return nil, fmt.Errorf("log line %d: %w; each line must be one JSON object such as {\"event\":\"RCA\",\"actions\":[\"irc\"],\"state\":\"Ack-Rcvd\"}", n, err)
		}
		s.Line, s.Where = n, fmt.Sprintf("log line %d", n)
		steps = append(steps, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read log: %w", err)
	}
	return steps, nil
}

// A Writer writes a log, one Step a line: give it to an implementation's tracing hook.
type Writer struct {
	W   io.Writer
	Err error // the first write error; later steps are not written
}

// Write writes one step; state "" writes a step between two specification states.
func (w *Writer) Write(event string, actions []string, state string) {
	if w.Err != nil {
		return
	}
	s := Step{Event: event, Actions: actions}
	if state != "" {
		s.State = &state
	}
	b, err := json.Marshal(s)
	if err == nil {
		_, err = w.W.Write(append(b, '\n'))
	}
	w.Err = err
}

// A Refusal is the first step that does not conform.
type Refusal struct {
	Line    int    // Step.Line
	Where   string // Step.Where
	Message string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s does not conform: %s", r.Where, r.Message)
}

// Check replays steps against the specification r (cmc.Spec.Refinement, or a model's
// Definition().Refinements) from its initial state. A log names a state as the specification's
// visible state prints (fmt.Sprint, so its String method): Visible(s) is compared by name. It
// returns how many steps conformed and, if one did not, a *Refusal.
func Check(r *cmc.Refinement, steps []Step) (int, error) {
	named := *r
	named.Visible = func(s any) any { return r.Name(r.Visible(s)) }
	named.Witness = nil // a log shows no private variables to take
	cur, held := r.Init, cmc.Observed{}
	for i, s := range steps {
		var impl any
		settled := s.State != nil
		if settled {
			impl = *s.State
		}
		next, hold, why := engine.Judge(&named, cur, held, cmc.Observed{Event: s.Event, Actions: s.Actions}, impl, settled)
		if why != "" {
			return i, &Refusal{Line: s.Line, Where: s.Where, Message: why}
		}
		cur, held = next, hold
	}
	return len(steps), nil
}
