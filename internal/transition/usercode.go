package transition

import "sync/atomic"

// userCode counts entries into and exits from user code: handlers, enabling conditions,
// invariants, and the String methods graphs call. It is odd while user code runs (calls do not
// nest: the engine calls user code only from its own code). A worker's watchdog reads it to tell a handler that
// never returns from a long check or replay, whatever the worker is doing; nothing else reads it.
var userCode atomic.Int64

// Enter marks the start of a call into user code; Leave its end (also when it panics).
func Enter() { userCode.Add(1) }

// Leave marks the end of a call into user code.
func Leave() { userCode.Add(1) }

// UserCode returns the counter: odd while user code runs, and changed by every call.
func UserCode() int64 { return userCode.Load() }
