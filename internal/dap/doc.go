// Package dap is cmcdap's Debug Adapter Protocol session: it makes a counterexample trace
// debuggable in VS Code (or any DAP client). Threads are the model's processes, the call stack
// is the trace (one frame per step, newest on top), the Variables pane is the state after the
// selected step (from the trace store: nothing is re-executed to show it), stepping moves through
// the trace forward and back, and breakpoints stop on handlers, Choose calls, events and changes
// of a state variable, with conditions written over the state.
//
// A launch either checks a model, in a worker process built from the user's package (user code
// never runs inside cmcdap), or opens a stored trace. Custom cmc/... requests cover what DAP has
// no words for (bookmarks, trace lists, diffs, Choose values for inline hints); large payloads go
// to the views server (the Views interface) instead of over DAP.
//
// The session is split by request family as gopls's server is: launch.go and check.go (launch,
// configuration, checking), stack.go (threads, stack, scopes), variables.go, step.go and scan.go
// (moving through the trace, and why each stop happened), breakpoints.go, evaluate.go (with the
// expression language in expr.go, exprkeys.go and nilsafe.go, and hovers in hover.go, with the
// receivers they read from the source in receiver.go), custom.go and
// bookmarks.go (cmc/...), progress.go, and server.go (the message loop, and recoverPanic, which
// turns a panic in a handler into an error response). wirelog.go records every message for bug
// reports.
package dap
