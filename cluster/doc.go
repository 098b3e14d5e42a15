// Package cluster carries a partitioned search (engine/partition.go) between processes over NATS
// JetStream: each partition is one process (a worker binary built from the user's package with
// this package linked in), and this package is its engine.Exchange. It also carries a swarm's
// members between processes (swarm.go: an engine.SwarmShare). It registers the worker's
// "partition" op, which runs one partition of a check, or one process's members of a swarm.
//
// It links the NATS client only; the server a check on one machine starts is internal/broker's,
// in cmcdap's process. docs/cluster.md says how the search works and how to run it.
package cluster
