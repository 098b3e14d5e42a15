// Package rfc1661 is the PPP option negotiation automaton of RFC 1661 section 4.1, transcribed
// from the RFC's state transition table, as a specification to check implementations against
// (cmc.Refines, package conform). It knows nothing of any implementation.
//
// Each cell of the table is a list of actions and a new state. The RFC says of a cell with more
// than one action that they are executed in any order, so a Move's actions are a set. The events
// RUC, RXJ+, RXJ- and RXR (unknown codes, Code-Reject, Echo and Discard) are left out, as Alur
// and Wang left them out of their model: the implementations checked here do not send them.
package rfc1661

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc"
)

// The states of section 4.2, named as the RFC names them.
const (
	Initial  = "Initial"
	Starting = "Starting"
	Closed   = "Closed"
	Stopped  = "Stopped"
	Closing  = "Closing"
	Stopping = "Stopping"
	ReqSent  = "Req-Sent"
	AckRcvd  = "Ack-Rcvd"
	AckSent  = "Ack-Sent"
	Opened   = "Opened"
)

// States lists the states in the table's column order (0 to 9).
var States = []string{Initial, Starting, Closed, Stopped, Closing, Stopping, ReqSent, AckRcvd, AckSent, Opened}

// Events lists the events of section 4.3 in the table's row order.
var Events = []string{"Up", "Down", "Open", "Close", "TO+", "TO-", "RCR+", "RCR-", "RCA", "RCN", "RTR", "RTA"}

// table is section 4.1's table: for each event, a cell per state in column order, written as the
// RFC writes it ("irc,scr/6"); "" is an event that cannot happen in that state (the RFC's "-").
var table = map[string][10]string{
	"Up":    {"2", "irc,scr/6", "", "", "", "", "", "", "", ""},
	"Down":  {"", "", "0", "tls/1", "0", "1", "1", "1", "1", "tld/1"},
	"Open":  {"tls/1", "1", "irc,scr/6", "3", "5", "5", "6", "7", "8", "9"},
	"Close": {"0", "tlf/0", "2", "2", "4", "4", "irc,str/4", "irc,str/4", "irc,str/4", "tld,irc,str/4"},
	"TO+":   {"", "", "", "", "str/4", "str/5", "scr/6", "scr/6", "scr/8", ""},
	"TO-":   {"", "", "", "", "tlf/2", "tlf/3", "tlf/3", "tlf/3", "tlf/3", ""},
	"RCR+":  {"", "", "sta/2", "irc,scr,sca/8", "4", "5", "sca/8", "sca,tlu/9", "sca/8", "tld,scr,sca/8"},
	"RCR-":  {"", "", "sta/2", "irc,scr,scn/6", "4", "5", "scn/6", "scn/7", "scn/6", "tld,scr,scn/6"},
	"RCA":   {"", "", "sta/2", "sta/3", "4", "5", "irc/7", "scr/6", "irc,tlu/9", "tld,scr/6"},
	"RCN":   {"", "", "sta/2", "sta/3", "4", "5", "irc,scr/6", "scr/6", "irc,scr/8", "tld,scr/6"},
	"RTR":   {"", "", "sta/2", "sta/3", "sta/4", "sta/5", "sta/6", "sta/6", "sta/6", "tld,zrc,sta/5"},
	"RTA":   {"", "", "2", "3", "tlf/2", "tlf/3", "6", "6", "8", "tld,scr/6"},
}

// State is the automaton's state: one of States, and the restart counter of section 4.6, which
// the table's events TO+ and TO- read. The counter is the specification's own (private): an
// implementation shows only Phase (see Visible).
type State struct {
	Phase   string
	Restart int
}

func (s State) String() string { return s.Phase }

// Visible is what an implementation shows of s: its phase, not the restart counter.
func Visible(s State) State { return State{Phase: s.Phase} }

// Counts are the restart counter's initial values, Max-Configure and Max-Terminate (section 4.6).
type Counts struct {
	MaxConfigure, MaxTerminate int
}

// Spec is the automaton as a cmc specification named name, starting in Initial.
func Spec(name string, c Counts) cmc.Spec[State] {
	return cmc.Spec[State]{
		Name:    name,
		Init:    State{Phase: Initial},
		Events:  Events,
		Next:    func(s State, event string) []cmc.Move[State] { return c.Next(s, event) },
		Visible: Visible,
	}
}

// Next is the table's cell for event in s: the one move it allows, or none. TO+ and TO- are
// told apart by the counter (section 4.3: "Timeout with counter > 0" and "counter expired").
func (c Counts) Next(s State, event string) []cmc.Move[State] {
	row, ok := cells[event]
	col := slices.Index(States, s.Phase)
	if !ok || col < 0 || row[col].to == "" {
		return nil
	}
	switch {
	case event == "TO+" && s.Restart <= 0, event == "TO-" && s.Restart > 0:
		return nil
	}
	actions, to := row[col].actions, row[col].to
	next := State{Phase: to, Restart: s.Restart}
	for _, a := range actions {
		switch a {
		case "irc": // section 4.4: Max-Terminate before a Terminate-Request, else Max-Configure
			next.Restart = c.MaxConfigure
			if slices.Contains(actions, "str") {
				next.Restart = c.MaxTerminate
			}
		case "zrc":
			next.Restart = 0
		case "scr", "str": // "decremented each time a Configure-Request is sent" (and Terminate)
			next.Restart--
		}
	}
	return []cmc.Move[State]{{Actions: actions, To: next}}
}

// cells is table read once: for each event, each state's actions and new state ("": no move).
var cells = func() map[string][10]cellMove {
	out := map[string][10]cellMove{}
	for event, row := range table {
		var r [10]cellMove
		for i, c := range row {
			if c != "" {
				r[i].actions, r[i].to = cell(c)
			}
		}
		out[event] = r
	}
	return out
}()

type cellMove struct {
	actions []string
	to      string // "": no move
}

// cell reads "irc,scr/6" as actions and a state.
func cell(c string) ([]string, string) {
	acts, col, found := strings.Cut(c, "/")
	if !found {
		acts, col = "", c
	}
	n, err := strconv.Atoi(col)
	if err != nil || n < 0 || n >= len(States) {
		panic("rfc1661: bad cell " + c)
	}
	if acts == "" {
		return nil, States[n]
	}
	return strings.Split(acts, ","), States[n]
}
