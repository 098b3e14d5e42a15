package conform

import (
	"errors"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
)

// door is a tiny specification: a request opens it (the request is sent), an ack completes it,
// close closes it.
var door = cmc.Spec[string]{
	Name: "door",
	Init: "Closed",
	Next: func(s, event string) []cmc.Move[string] {
		switch {
		case s == "Closed" && event == "open":
			return []cmc.Move[string]{{Actions: []string{"send"}, To: "Sent"}}
		case s == "Sent" && event == "ack":
			return []cmc.Move[string]{{To: "Open"}}
		case s == "Open" && event == "close":
			return []cmc.Move[string]{{Actions: []string{"bye", "log"}, To: "Closed"}}
		}
		return nil
	},
}

func check(t *testing.T, log string) (int, error) {
	t.Helper()
	steps, err := Read(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	return Check(door.Refinement(), steps)
}

const good = `{"state":"Closed","ts":"12:00:00"}
{"event":"open","actions":["send"],"state":"Sent"}

{"event":"ack","state":"Open"}
{"event":"close","actions":["log"]}
{"actions":["bye"],"state":"Closed"}
`

func TestGoodLog(t *testing.T) {
	n, err := check(t, good)
	if err != nil || n != 5 {
		t.Fatalf("good log: %d steps conform, err %v; want 5, nil", n, err)
	}
}

func TestBadStep(t *testing.T) {
	bad := strings.Replace(good, `{"event":"ack","state":"Open"}`, `{"event":"ack","state":"Sent"}`, 1)
	n, err := check(t, bad)
	var r *Refusal
	if !errors.As(err, &r) || n != 2 {
		t.Fatalf("bad log: %d steps conform, err %v; want 2 and a refusal", n, err)
	}
	want := "log line 4 does not conform: spec door in Sent: observed ack with no action reaching Sent; the spec allows Open"
	if err.Error() != want {
		t.Fatalf("refusal:\n got %s\nwant %s", err, want)
	}
}

func TestHeldStepMissingAction(t *testing.T) {
	bad := strings.Replace(good, `{"actions":["bye"],"state":"Closed"}`, `{"state":"Closed"}`, 1)
	_, err := check(t, bad)
	want := "log line 6 does not conform: spec door in Open: observed close with log reaching Closed; the spec allows bye,log/Closed"
	if err == nil || err.Error() != want {
		t.Fatalf("refusal:\n got %v\nwant %s", err, want)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := Read(strings.NewReader("{\"state\":\"Closed\"}\nnot json\n")); err == nil || !strings.HasPrefix(err.Error(), "log line 2: ") {
		t.Fatalf("malformed line: err %v", err)
	}
	want := "log line 1 does not conform: spec door in Closed: the implementation moved to Ajar showing no event or action; a state change needs a spec event"
	if _, err := check(t, `{"state":"Ajar"}`); err == nil || err.Error() != want {
		t.Fatalf("unknown state: err %v", err)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	var b strings.Builder
	w := &Writer{W: &b}
	w.Write("open", []string{"send"}, "Sent")
	w.Write("ack", nil, "")
	w.Write("", nil, "Open")
	if w.Err != nil {
		t.Fatal(w.Err)
	}
	steps, err := Read(strings.NewReader(b.String()))
	if err != nil || len(steps) != 3 || steps[1].State != nil || *steps[2].State != "Open" {
		t.Fatalf("round trip of %q: %+v, %v", b.String(), steps, err)
	}
	if n, err := Check(door.Refinement(), steps); n != 3 || err != nil {
		t.Fatalf("written log: %d, %v", n, err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(good)
	f.Add("{\"event\":1}\n")
	f.Fuzz(func(t *testing.T, log string) {
		steps, err := Read(strings.NewReader(log))
		if err != nil {
			return
		}
		_, _ = Check(door.Refinement(), steps)
	})
}

// TestITF: the same run as an ITF trace (Apalache, Quint), with its own variable names, a set
// of actions and a list; one bad state is refused by its index.
func TestITF(t *testing.T) {
	const trace = `{"#meta": {"format": "ITF"}, "vars": ["ev", "acts", "at"], "states": [
		{"#meta": {"index": 0}, "ev": "", "acts": {"#set": []}, "at": "Closed"},
		{"#meta": {"index": 1}, "ev": "open", "acts": {"#set": ["send"]}, "at": "Sent"},
		{"#meta": {"index": 2}, "ev": "ack", "acts": [], "at": "%s"},
		{"#meta": {"index": 3}, "ev": "close", "acts": {"#tup": ["log", "bye"]}, "at": "Closed"}]}`
	names := ITFNames{Event: "ev", Actions: "acts", State: "at"}
	steps, err := ReadITF(strings.NewReader(strings.Replace(trace, "%s", "Open", 1)), names)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := Check(door.Refinement(), steps); n != 4 || err != nil {
		t.Fatalf("good trace: %d steps conform, %v", n, err)
	}
	steps, err = ReadITF(strings.NewReader(strings.Replace(trace, "%s", "Sent", 1)), names)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Check(door.Refinement(), steps)
	want := "ITF state 2 does not conform: spec door in Sent: observed ack with no action reaching Sent; the spec allows Open"
	if err == nil || err.Error() != want {
		t.Fatalf("bad trace:\n got %v\nwant %s", err, want)
	}
	if _, err := ReadITF(strings.NewReader(`{"states": [{"actions": 3}]}`), DefaultITFNames); err == nil {
		t.Fatal("actions that are a number were read")
	}
}

func FuzzReadITF(f *testing.F) {
	f.Add(`{"states": [{"event": "open", "actions": {"#set": ["send"]}, "state": "Sent"}]}`)
	f.Fuzz(func(t *testing.T, trace string) {
		steps, err := ReadITF(strings.NewReader(trace), DefaultITFNames)
		if err != nil {
			return
		}
		_, _ = Check(door.Refinement(), steps)
	})
}
