// Package engine explores a model's state space: it runs each event handler as one atomic
// transition, re-runs it for every value of every cmc.Choose, captures and hashes the canonical
// state after it, and reports a trace for each violation.
//
// The engine knows nothing of DAP, SQLite or HTTP. Its parts:
//   - Machine: one model instance; loads, runs and captures states (also what replay builds on).
//   - pool: interned component encodings; a State is the list of its components' ids.
//   - visited: the set of seen states, by hash (compaction) or exactly.
//   - Check: breadth-first, depth-first and random-walk search; breadth-first levels are expanded
//     by several instances of the model at once (parallel.go), with the sequential result.
//   - Trace: a violation as the initial state plus steps (process, event, Choose values).
//   - refine.go: refinement checking (cmc.Refines): every transition judged against the
//     specifications the model refines (Judge), inside Machine.Run.
//
// Determinism: the order of processes, events and Choose values is fixed by the model; nothing
// reads the clock, global randomness or map order. Random walks use a seeded generator.
package engine
