// Package replay re-executes a stored trace, step by step, and proves each state identical to the
// one the search stored (by its hash), so a counterexample can be debugged forward and back.
//
// A Session replays the whole trace once when it opens and keeps every step's engine.State (a few
// component ids per step; the component encodings are interned by the machine), so going to any
// step costs one load and one handler run, wherever it is. Every move re-runs the step it lands on
// and checks it reaches the same state again: a difference is a *Divergence that says where and
// why (the code changed, or it is nondeterministic).
//
// Inside a step, the cursor can stop at each Choose call in order (the debugger's "step in"):
// the state shown there is the live state at that call, got by re-running the handler up to it.
//
// Views (View) are plain data with JSON tags, computed here and only drawn by the DAP layer and the
// webview. Minimize shortens a trace to the same violation; ExportTest turns one into a Go test.
package replay
