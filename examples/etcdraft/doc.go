// Package etcdraft checks an application built on etcd raft (go.etcd.io/raft/v3, unmodified, from
// its own module) the way a user of that library writes one: three nodes, each a raft.RawNode with
// a raft.MemoryStorage as its durable storage and a Ready loop that persists, sends and applies as
// the raft README says, over a network that loses, duplicates and reorders messages.
//
// The environment replaces what raft leaves to its user: messages travel marshalled (a real
// network serialises them), an election timeout is an event any node may take at any time
// (cmc.Choose of who campaigns, instead of wall-clock ticks), a heartbeat timeout is an event a
// leader may take, clients propose a bounded number of values, and a node may crash (losing its
// RawNode and everything not yet persisted) and restart from its storage.
//
// Two models: EtcdRaft has a correct Ready loop; EtcdRaftSendBeforePersist sends the messages of
// a Ready (a vote, an append acknowledgement) before persisting its HardState and entries, which
// breaks the README's rule "no messages be sent until the latest HardState has been persisted to
// disk". A crash between the send and the persist then lets a node vote twice in one term.
// docs/etcdraft.md is the case study.
package etcdraft
