package rfc1661

import (
	"slices"
	"testing"
)

// TestTable: every cell of the transcribed table reads as actions of section 4.4 and a state,
// every event and state has its row and column, and the counter tells TO+ from TO-.
func TestTable(t *testing.T) {
	actions := []string{"tlu", "tld", "tls", "tlf", "irc", "zrc", "scr", "sca", "scn", "str", "sta"}
	c := Counts{MaxConfigure: 10, MaxTerminate: 2}
	if len(table) != len(Events) {
		t.Fatalf("%d rows, %d events", len(table), len(Events))
	}
	moves := 0
	for _, e := range Events {
		for _, s := range States {
			for _, mv := range c.Next(State{Phase: s, Restart: 1}, e) {
				moves++
				for _, a := range mv.Actions {
					if !slices.Contains(actions, a) {
						t.Errorf("%s in %s: action %q is not one of section 4.4's", e, s, a)
					}
				}
			}
		}
	}
	if moves != 83 { // the non-empty cells: Up 2, Down 8, Open 10, Close 10, TO+ 5, six receive rows of 8
		t.Errorf("%d moves with the counter above zero, want 83", moves)
	}
	to := c.Next(State{Phase: Closed}, "Open")
	if len(to) != 1 || to[0].To != (State{Phase: ReqSent, Restart: 9}) {
		t.Errorf("Open in Closed: %+v, want irc,scr/Req-Sent with the counter at Max-Configure less one", to)
	}
	if len(c.Next(State{Phase: ReqSent, Restart: 0}, "TO+")) != 0 || len(c.Next(State{Phase: ReqSent, Restart: 0}, "TO-")) != 1 {
		t.Error("with the counter at zero a timeout must be TO- only")
	}
	if got := c.Next(State{Phase: Opened, Restart: 5}, "Close"); got[0].To.Restart != 1 {
		t.Errorf("Close in Opened: counter %d, want Max-Terminate less one", got[0].To.Restart)
	}
}
