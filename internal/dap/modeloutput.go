package dap

// modelOutput shows a line the model's code printed (in a check, a launch's trial run or a replay
// for heap graphs) in the debug console as an output event of category stdout or stderr. The
// coordinator has already capped how many lines one request shows; send is safe from the
// goroutines that run workers.
func (s *Session) modelOutput(stream, line string) { s.output(stream, line+"\n") }
