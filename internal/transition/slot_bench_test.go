package transition

import "testing"

type nopContext struct{ Context }

// BenchmarkRun is what a machine does with its slot around one handler run: begin the run,
// install the context, mark the call into user code, and undo it.
func BenchmarkRun(b *testing.B) {
	s := NewSlot()
	defer s.Release()
	c := &nopContext{}
	for i := 0; b.Loop(); i++ {
		s.Begin(int64(i), 3, 0)
		s.Start(c)
		s.Enter()
		s.Leave()
		s.Stop()
	}
}
