package dap

import (
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// A WireLog records every DAP message in and out, one per line: time, session number (several
// TCP clients may share one log), direction (<< from the client, >> to it) and the JSON as sent. It is what a bug report about the debugger needs, and
// it shows the order of messages, which tests and clients disagree about most.
type WireLog struct {
	mu sync.Mutex
	w  io.Writer
	c  io.Closer
}

// NewWireLog logs to w.
func NewWireLog(w io.Writer) *WireLog { return &WireLog{w: w} }

// OpenWireLog appends to the file at path.
func OpenWireLog(path string) (*WireLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &WireLog{w: f, c: f}, nil
}

// Close closes the log file, if the log opened one.
func (l *WireLog) Close() error {
	if l == nil || l.c == nil {
		return nil
	}
	return l.c.Close()
}

// log writes one message; a nil log does nothing.
func (l *WireLog) log(session int64, dir string, msg []byte) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	line := make([]byte, 0, len(msg)+40)
	line = time.Now().AppendFormat(line, "15:04:05.000000")
	line = append(line, " #"...)
	line = strconv.AppendInt(line, session, 10)
	line = append(line, ' ')
	line = append(line, dir...)
	line = append(line, ' ')
	line = append(line, msg...)
	line = append(line, '\n')
	l.w.Write(line)
}
