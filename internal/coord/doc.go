// Package coord is the coordinator side of the coordinator/worker split: it builds the user's
// package into a worker binary, starts it, talks to it over a pipe, and turns a worker that hung
// or died into a finding with a trace (by re-running the same deterministic search in a fresh
// worker up to the transition that failed).
package coord
