package cluster

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksOnlyTheClient: a partition's worker binary links this package, which must bring the
// NATS client and not the server (internal/broker's, which only cmcdap links).
func TestLinksOnlyTheClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "nats-server") {
		t.Error("package cluster depends on the NATS server")
	}
}
