// Package natsrun is where the partitions of one partitioned check on this machine meet:
// cmcdap check -partitions and a DAP launch with "partitions" both start a Run, so they reach
// NATS alike. It is apart from internal/broker, which starts the server, because the cluster
// package's tests start a server too and this package needs cluster's Config.
package natsrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cmc-go/cmc/cluster"
	"github.com/cmc-go/cmc/internal/broker"
	"github.com/nats-io/nats.go"
)

// A Run is where the partitions of one partitioned check on this machine meet: cmcdap check
// -partitions and a DAP launch with "partitions" both start one, so they reach NATS alike.
type Run struct {
	ID   string         // the run's id: its NATS stream and subjects
	NATS cluster.Config // what the partitions connect with
	// Dir is the run's directory, removed by End: the partitions' checkpoints
	// (Dir/checkpoints) and the stream of a server started for the run.
	Dir string
	// Buckets, when set, is how many partitions keep their checkpoints in the NATS object
	// store: End deletes their buckets from a user's server (an embedded one's die with Dir).
	Buckets int
	broker  *broker.Broker // the server started for the run, if cfg had no URL
	nc      *nats.Conn     // the user's server, to delete the run's stream from at the end
}

// StartRun makes a run with the id given, or a new one. With no cfg.URL it starts a NATS
// server on loopback for the run; with one, it connects once now, so that a server that cannot
// be reached is one line naming it rather than one from every worker.
func StartRun(cfg cluster.Config, id string) (*Run, error) {
	if id == "" {
		b := make([]byte, 6)
		rand.Read(b)
		id = "r" + hex.EncodeToString(b)
	}
	dir, err := os.MkdirTemp("", "cmc-run-")
	if err != nil {
		return nil, fmt.Errorf("make the run's directory: %w", err)
	}
	r := &Run{ID: id, NATS: cfg, Dir: dir}
	if cfg.URL == "" {
		if r.broker, err = broker.Start(filepath.Join(dir, "nats")); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		r.NATS = cluster.Config{URL: r.broker.URL, Token: r.broker.Token}
		return r, nil
	}
	if r.nc, err = cluster.Connect(cfg, "cmcdap check"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return r, nil
}

// Checkpoints is the directory of the partitions' checkpoints, inside the run's.
func (r *Run) Checkpoints() string { return filepath.Join(r.Dir, "checkpoints") }

// End stops the server started for the run, or deletes the run's stream from the user's, and
// removes the run's directory.
func (r *Run) End() {
	if r.broker != nil {
		r.broker.Close()
	}
	if r.nc != nil {
		cluster.DeleteRun(context.Background(), r.nc, r.ID)
		if r.Buckets > 0 { // partition 0 removes them after a run that ends; these end here anyway
			cluster.DeleteCheckpoints(context.Background(), r.nc, r.ID, r.Buckets)
		}
		r.nc.Close()
	}
	os.RemoveAll(r.Dir)
}
