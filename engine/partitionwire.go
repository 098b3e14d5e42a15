package engine

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// The wire form of a partitioned search (partition.go): what one partition sends another. It is
// defined here and nowhere else; the transport (internal NATS code, an in-memory exchange in
// tests) carries the bytes without looking inside.
//
// A batch is successors for one partition, found at one level:
//
//	batch     = version:byte state*
//	state     = parent:uint64le key:uint64le run:uvarint verdict:byte event:uvarint
//	            nvalues:uvarint value:uvarint* ncomps:uvarint comp*
//	comp      = len:uvarint bytes
//
// A partition also sends every other, at the start of a level, the keys of the states it expands
// in the level, ascending (arrivals.go says what a key is), in batches of their own:
//
//	keys      = keysVersion:byte first:uint64le delta:uvarint*
//
// parent is the fingerprint of the state it was reached from, key that state's key and run the
// ordinal of the handler run among the state's (where the sequential search met it), verdict what the sender's judgement
// of the state said (verdictOK, verdictCut: a constraint or bound keeps it from being expanded,
// verdictBad: it violates an invariant), event and values the step (the event's index in the
// model's declaration order and its Choose values), and the components are their canonical
// encodings, in the model's component order: any process that runs the same model decodes them
// into a state of its own pool. A partition's level report (partReport) is JSON.

const (
	wireVersion = 3
	keysVersion = 0x80 | wireVersion
)

// What the sender's judgement of a successor said.
const (
	verdictOK  = 0
	verdictCut = 1
	verdictBad = 2
)

// wireLimits keep a corrupt batch from making the decoder allocate without bound.
const (
	wireMaxValues = 1 << 16
	wireMaxComps  = 1 << 16
)

// A wireState is one successor as it travels: comps point into the batch it was decoded from.
type wireState struct {
	parent  uint64
	at      place
	verdict byte
	event   int
	values  []int
	comps   [][]byte
}

// appendWireState appends a successor to a batch; an empty dst gets the version byte first.
func appendWireState(dst []byte, parent uint64, at place, verdict byte, event int, values []int, comps [][]byte) []byte {
	if len(dst) == 0 {
		dst = append(dst, wireVersion)
	}
	dst = binary.LittleEndian.AppendUint64(dst, parent)
	dst = binary.LittleEndian.AppendUint64(dst, at.key)
	dst = binary.AppendUvarint(dst, uint64(at.run))
	dst = append(dst, verdict)
	dst = binary.AppendUvarint(dst, uint64(event))
	dst = binary.AppendUvarint(dst, uint64(len(values)))
	for _, v := range values {
		dst = binary.AppendUvarint(dst, uint64(v))
	}
	dst = binary.AppendUvarint(dst, uint64(len(comps)))
	for _, c := range comps {
		dst = binary.AppendUvarint(dst, uint64(len(c)))
		dst = append(dst, c...)
	}
	return dst
}

var errWire = errors.New("a partition's batch is corrupt")

// decodeBatch appends the successors in b to dst. k is the model's number of components and
// events its number of events: a successor that does not fit the model is an error, not a panic.
func decodeBatch(dst []wireState, b []byte, k, events int) ([]wireState, error) {
	if len(b) == 0 || b[0] != wireVersion {
		return dst, fmt.Errorf("%w: version %v, want %d (are all partitions the same cmcdap?)", errWire, b[:min(len(b), 1)], wireVersion)
	}
	b = b[1:]
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	for len(b) > 0 {
		if len(b) < 16 {
			return dst, fmt.Errorf("%w: a successor is cut short", errWire)
		}
		var ws wireState
		ws.parent = binary.LittleEndian.Uint64(b)
		ws.at.key = binary.LittleEndian.Uint64(b[8:])
		b = b[16:]
		run, ok := uv()
		if !ok || run > 1<<32-1 || len(b) == 0 {
			return dst, fmt.Errorf("%w: bad run", errWire)
		}
		ws.at.run = uint32(run)
		if ws.verdict = b[0]; ws.verdict > verdictBad {
			return dst, fmt.Errorf("%w: bad verdict", errWire)
		}
		b = b[1:]
		ev, ok := uv()
		if !ok || ev >= uint64(events) {
			return dst, fmt.Errorf("%w: bad event", errWire)
		}
		ws.event = int(ev)
		nv, ok := uv()
		if !ok || nv > wireMaxValues || nv > uint64(len(b)) {
			return dst, fmt.Errorf("%w: bad number of Choose values", errWire)
		}
		ws.values = make([]int, nv)
		for i := range ws.values {
			v, ok := uv()
			if !ok || v > 1<<31 {
				return dst, fmt.Errorf("%w: bad Choose value", errWire)
			}
			ws.values[i] = int(v)
		}
		nc, ok := uv()
		if !ok || nc > wireMaxComps || int(nc) != k {
			return dst, fmt.Errorf("%w: %d components, the model has %d (do all partitions check the same model and code?)", errWire, nc, k)
		}
		ws.comps = make([][]byte, nc)
		for i := range ws.comps {
			n, ok := uv()
			if !ok || n > uint64(len(b)) {
				return dst, fmt.Errorf("%w: a component is cut short", errWire)
			}
			ws.comps[i] = b[:n:n]
			b = b[n:]
		}
		dst = append(dst, ws)
	}
	return dst, nil
}

// encodeKeys encodes keys, ascending and at least one, as a keys batch.
func encodeKeys(keys []uint64) []byte {
	b := append(make([]byte, 0, 9+2*len(keys)), keysVersion)
	b = binary.LittleEndian.AppendUint64(b, keys[0])
	for i := 1; i < len(keys); i++ {
		b = binary.AppendUvarint(b, keys[i]-keys[i-1])
	}
	return b
}

// decodeKeys appends the keys of a keys batch to dst.
func decodeKeys(dst []uint64, b []byte) ([]uint64, error) {
	if len(b) < 9 || b[0] != keysVersion {
		return dst, fmt.Errorf("%w: a keys batch is cut short", errWire)
	}
	k := binary.LittleEndian.Uint64(b[1:])
	dst = append(dst, k)
	for b = b[9:]; len(b) > 0; {
		d, n := binary.Uvarint(b)
		if n <= 0 || d == 0 || k+d < k {
			return dst, fmt.Errorf("%w: a keys batch is not ascending", errWire)
		}
		k += d
		dst = append(dst, k)
		b = b[n:]
	}
	return dst, nil
}

// A partReport is what a partition says at the end of a round (a level, or a step of rebuilding
// a trace), to every partition.
type partReport struct {
	// Batches[q] is how many batches this partition sent partition q during the level.
	Batches []int `json:"batches"`
	// Admitted is how many new states this partition admitted before expanding the level (from
	// what the previous level sent it), Frontier how many of them it expanded.
	Admitted int64 `json:"admitted"`
	Frontier int64 `json:"frontier"`
	Cut      int64 `json:"cut,omitempty"`
	// Transitions, Expanded and Runs (by event) are the level's expansion.
	Transitions int64   `json:"transitions"`
	Expanded    int64   `json:"expanded"`
	Runs        []int64 `json:"runs,omitempty"`
	Bytes       int64   `json:"bytes"` // of the batches sent
	// Checkpoint says the partition wrote its checkpoint of the level: it never goes back
	// before the level.
	Checkpoint bool `json:"checkpoint,omitempty"`
	// Violation is the first of this partition's violations of the round, in candidate order.
	Violation *candidate `json:"violation,omitempty"`
	// Link answers a question of a trace rebuild: the parent of the state asked for.
	Link *linkAnswer `json:"link,omitempty"`
}

// A candidate is a violation found by one partition, and where: the path to the state State
// (the fingerprint), then Step when the violation happened on a step from it.
type candidate struct {
	Length int    `json:"length"` // steps of the trace
	State  uint64 `json:"state"`
	// Key and Run are where the sequential search meets it while expanding the state: its key
	// and the handler run's ordinal, or runInitial, runEnabling, runDeadlock.
	Key       uint64     `json:"key"`
	Run       int64      `json:"run"`
	Step      *wireStep  `json:"step,omitempty"`
	Violation *Violation `json:"violation"`
}

// Where a violation is met that no handler run of the state expanded is: the initial state's
// invariant before anything, an enabling condition's failure before the state's runs, a deadlock
// after them.
const (
	runInitial  = -2
	runEnabling = -1
	runDeadlock = 1 << 40
)

type wireStep struct {
	Event  int   `json:"event"`
	Values []int `json:"values,omitempty"`
}

// A linkAnswer is the parent link of one state: the state it was first reached from and how.
type linkAnswer struct {
	Root   bool     `json:"root,omitempty"` // the initial state
	Parent uint64   `json:"parent"`
	Step   wireStep `json:"step"`
}

func encodeReport(r *partReport) []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return b
}

func decodeReport(b []byte, n, events int) (*partReport, error) {
	var r partReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("a partition's report is corrupt: %w", err)
	}
	if len(r.Batches) != n {
		return nil, fmt.Errorf("a partition's report counts batches for %d partitions, this run has %d (were all partitions started with the same -partitions?)", len(r.Batches), n)
	}
	if len(r.Runs) > events {
		return nil, fmt.Errorf("a partition's report counts %d events, the model has %d (do all partitions check the same model?)", len(r.Runs), events)
	}
	return &r, nil
}
