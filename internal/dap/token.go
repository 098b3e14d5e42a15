package dap

import (
	"crypto/subtle"
	"encoding/json"

	"github.com/google/go-dap"
)

// A DAP server on TCP runs code for whoever connects (a launch builds and runs their package),
// so such a session needs a token. DAP clients cannot send a preamble, but every client can put
// an attribute in its launch configuration: the token is the launch's (or attach's) "token".
// Until a launch or attach carries it, every request but initialize is refused, and a launch
// or attach without it ends the session. Over stdio the client started the adapter itself and
// needs no token.

// admit reports whether the session may handle m; when Config.Token is set it answers and
// refuses what comes before a launch or attach with the right token.
func (s *Session) admit(m dap.Message) bool {
	if s.cfg.Token == "" || s.admitted {
		return true
	}
	var args json.RawMessage
	switch req := m.(type) {
	case *dap.InitializeRequest:
		return true
	case *dap.LaunchRequest:
		args = req.Arguments
	case *dap.AttachRequest:
		args = req.Arguments
	default:
		s.sendError(requestOf(m), errUnauthorized, `this cmcdap needs a token first: launch with "token" set to the token cmcdap dap -listen printed`)
		return false
	}
	var a struct {
		Token string `json:"token"`
	}
	json.Unmarshal(args, &a) // malformed arguments have no token
	if subtle.ConstantTimeCompare([]byte(a.Token), []byte(s.cfg.Token)) != 1 {
		req := requestOf(m)
		s.sendError(req, errUnauthorized, req.Command+`: wrong or missing "token": set it to the token cmcdap dap -listen printed; the connection is closed`)
		s.log.Warn("refused a client without the token", "command", req.Command)
		s.quit = true
		return false
	}
	s.admitted = true
	return true
}
