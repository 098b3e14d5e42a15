// Package broker starts the NATS server a partitioned check on one machine uses (cluster/): in
// the coordinator's process, with JetStream in the run's directory, listening on 127.0.0.1 only,
// on a port the system picks, with a random token, so no one else on the machine or the network
// can read or write the run's messages. A cluster brings its own NATS instead. While a server
// runs, the process collects garbage sooner (gc.go): the server's heap is the run's stream.
//
// The worker binary never links this package: it links only the NATS client.
package broker

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// A Broker is a running embedded NATS server.
type Broker struct {
	srv *server.Server
	// URL is where clients connect (nats://127.0.0.1:port), Token the secret they present.
	URL, Token string
}

// Start starts a NATS server with JetStream storing under dir.
func Start(dir string) (*Broker, error) {
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("make a NATS token: %w", err)
	}
	token := hex.EncodeToString(secret)
	srv, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: server.RANDOM_PORT, Authorization: token,
		JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true, ServerName: "cmc",
		MaxPayload: 8 << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("start the embedded NATS server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("the embedded NATS server did not start within 10 s")
	}
	lowerGC()
	return &Broker{srv: srv, URL: srv.ClientURL(), Token: token}, nil
}

// Close stops the server.
func (b *Broker) Close() {
	b.srv.Shutdown()
	b.srv.WaitForShutdown()
	restoreGC()
}
