package broker

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestServerLowersGOGC: GOGC is gcPercent while servers run, back to what it was when the last
// stops, and a lower GOGC stays.
func TestServerLowersGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	a, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if g := gogc(); g != gcPercent {
		t.Errorf("GOGC %d while two servers run; want %d", g, gcPercent)
	}
	a.Close()
	if g := gogc(); g != gcPercent {
		t.Errorf("GOGC %d while one server runs; want %d", g, gcPercent)
	}
	b.Close()
	if g := gogc(); g != 100 {
		t.Errorf("GOGC %d after the servers stop; want the 100 it was", g)
	}
	debug.SetGCPercent(10)
	c, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if g := gogc(); g != 10 {
		t.Errorf("GOGC %d while a server runs in a process with GOGC 10; want 10", g)
	}
	c.Close()
}
