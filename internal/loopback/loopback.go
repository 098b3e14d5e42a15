// Package loopback is the one check that a server cmcdap starts listens only where this machine
// can reach it, unless the user explicitly allows more: the views and the DAP server both show
// the user's program state and (DAP) run its code on request.
package loopback

import (
	"fmt"
	"net"
)

// Check refuses an address other machines could reach, unless allowRemote. risk completes the
// sentence "anyone who can reach it ..." in the error, saying what such an address exposes;
// flag is the flag that allows it (e.g. -allow-remote).
func Check(addr string, allowRemote bool, risk, flag string) error {
	if allowRemote {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w (want HOST:PORT, e.g. 127.0.0.1:0)", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address: anyone who can reach it %s; use 127.0.0.1, or %s if you mean it", addr, risk, flag)
}
