package coord

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/cmc-go/cmc/worker"
)

// decodeReply reads one reply line and checks it is a reply the protocol allows for op: exactly
// one of progress, crash and done; a done reply carries an error or what op returns, never both
// nor neither. Anything else is an error: a malformed reply must never be read as a result (a
// check with no violations, say).
func decodeReply(op string, line []byte) (*worker.Reply, error) {
	bad := func(why string) error {
		return fmt.Errorf("worker: malformed reply to %s: %s: %.120q (is the worker built from another version of cmc? run cmcdap again to rebuild it)", op, why, bytes.TrimSpace(line))
	}
	var r worker.Reply
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, bad(err.Error())
	}
	if dec.More() {
		return nil, bad("more than one JSON value on a line")
	}
	kinds := 0
	for _, set := range []bool{r.Progress != nil, r.Crash != nil, r.Done} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, bad("want exactly one of progress, crash and done")
	}
	if !r.Done {
		if r.Error != "" || r.Models != nil || r.Result != nil || r.Data != nil {
			return nil, bad("a result before done")
		}
		return &r, nil
	}
	payload := 0
	for _, set := range []bool{r.Models != nil, r.Result != nil, r.Data != nil} {
		if set {
			payload++
		}
	}
	switch {
	case r.Error != "" && payload > 0:
		return nil, bad("both an error and a result")
	case r.Error != "":
		return &r, nil
	case payload > 1:
		return nil, bad("more than one kind of result")
	}
	switch op {
	case "check":
		if r.Result == nil {
			return nil, bad("a finished check with neither a result nor an error")
		}
	case "models":
		if r.Result != nil || r.Data != nil {
			return nil, bad("a list of models that is not one")
		}
	default:
		if r.Data == nil {
			return nil, bad("neither data nor an error")
		}
	}
	return &r, nil
}
