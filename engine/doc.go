// Package engine explores a model's state space: it runs each event handler as one atomic
// transition, re-runs it for every value of every cmc.Choose, captures and hashes the canonical
// state after it, and reports a trace for each violation.
//
// The engine knows nothing of DAP, SQLite or HTTP. Its parts:
//   - Machine: one model instance; loads, runs and captures states (also what replay builds on).
//   - pool: interned component encodings; a State is the list of its components' ids.
//   - visited: the set of seen states, by hash (compaction) or exactly.
//   - Check: breadth-first, depth-first and random-walk search; breadth-first levels are expanded
//     by several instances of the model at once (parallel.go), with the sequential result. Best-first
//     search by the model's score or by novelty (best.go, guide.go, queue.go), iterative deepening
//     and swarm (deepen.go, swarm.go, both made of dive.go's bounded depth-first search; a
//     swarm's members run on several instances of the model at once, with the one goroutine's result).
//   - scenarios: what the model says should be reachable, reported reached or with the best
//     progress, and a search's goal (scenario.go).
//   - Trace: a violation as the initial state plus steps (process, event, Choose values).
//   - refine.go: refinement checking (cmc.Refines): every transition judged against the
//     specifications the model refines (Judge), inside Machine.Run.
//
// Determinism: the order of processes, events and Choose values is fixed by the model; nothing
// reads the clock, global randomness or map order. Random walks and swarms use a seeded generator; best-first search breaks ties by the order
// states were found.
package engine
