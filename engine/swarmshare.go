package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cmc-go/cmc"
)

// A SwarmShare spreads a swarm's members over processes (package cluster does it over NATS
// JetStream): each process runs some members and tells the others what they found; one process
// merges. The engine knows nothing of processes: this is all it asks of them. Its methods are
// called from the goroutines the members run on.
type SwarmShare interface {
	// Runs reports whether this process runs member i.
	Runs(i int) bool
	// Start returns the context member i runs in: ctx, ended early when a member before i stops
	// the swarm in another process. It returns a nil context when one has already: i need not
	// run, nor any member after it.
	Start(ctx context.Context, i int) (context.Context, context.CancelFunc)
	// Finished tells the other processes what member i found. A member that stopped the swarm
	// is not told of when it was cancelled by one before it (it does not count).
	Finished(m *SwarmMember) error
	// Progress is what member i reports as it runs.
	Progress(i int, p Progress)
	// Merges reports whether this process merges the members' results into the swarm's.
	Merges() bool
	// Member waits for what member i, run in another process, found; only a process that merges
	// asks, and only for members up to the first that stopped the swarm.
	Member(ctx context.Context, i int) (*SwarmMember, error)
}

// CheckSwarm checks m with a swarm (Options.Search "swarm") whose members are spread over
// processes by share. This process runs the members share.Runs says, each as Check would, and
// tells the others what each found. When share.Merges, it then waits for the other members up to
// the first that stopped the swarm and returns the swarm's result: the one Check returns for the
// same model and options in one process, since each member is a function of the seed and its
// index alone and the merge is in member order. Otherwise the result is of this process's
// members alone.
func CheckSwarm(ctx context.Context, m *cmc.Model, opts Options, share SwarmShare) (*Result, error) {
	if opts.Search != "swarm" {
		return nil, fmt.Errorf("search %q over processes: only a swarm's members run in several processes this way", opts.Search)
	}
	opts.share = share
	return Check(ctx, m, opts)
}

// runs reports whether member i of the swarm runs in this process.
func (s *search) runs(i int) bool { return s.opts.share == nil || s.opts.share.Runs(i) }

// memberContext is the context member i runs in (nil: it need not run).
func (s *search) memberContext(ctx context.Context, i int) (context.Context, context.CancelFunc) {
	if s.opts.share == nil {
		return context.WithCancel(ctx)
	}
	return s.opts.share.Start(ctx, i)
}

// finished counts member i, which ended, and tells the other processes what it found, unless it
// was cancelled: then a member before it stopped the swarm, and it does not count.
func (s *search) finished(i int, m *member, progress *swarmProgress) error {
	progress.finished(i, Progress{States: m.res.States, Transitions: m.res.Transitions, Depth: m.res.Depth})
	if s.opts.share == nil || (m.res.Cancelled && m.err == nil) {
		return nil
	}
	w := &SwarmMember{Index: i, Result: m.res, Runs: m.res.runs, Stop: m.stop, Beyond: m.beyond,
		FrontierBytes: m.frontierBytes, Hashes: m.hashes}
	if m.err != nil {
		w.Err = m.err.Error()
	}
	return s.opts.share.Finished(w)
}

// gather fills in, in a process that merges, the members that ran in other processes, in member
// order up to the first that stopped the swarm.
func (s *search) gather(members []*member) error {
	sh := s.opts.share
	if sh == nil || !sh.Merges() {
		return nil
	}
	for i := range members {
		if members[i] == nil {
			w, err := sh.Member(s.ctx, i)
			if err != nil {
				return err
			}
			if w.Index != i || w.Result == nil {
				return fmt.Errorf("swarm member %d: got what member %d found", i, w.Index)
			}
			members[i] = w.member()
		}
		if members[i].decides() {
			break
		}
	}
	return nil
}

// A SwarmMember is what one member of a swarm found, as it crosses between processes.
type SwarmMember struct {
	Index  int     `json:"index"`
	Result *Result `json:"result"` // its violations, scenarios and figures
	Runs   []int64 `json:"runs,omitempty"`
	// Stop: it stopped the swarm (a violation without All, the goal); the members after it do not
	// count.
	Stop bool `json:"stop,omitempty"`
	// Beyond: it left a state at its depth bound unexpanded.
	Beyond        bool   `json:"beyond,omitempty"`
	FrontierBytes int64  `json:"frontier_bytes,omitempty"`
	Err           string `json:"error,omitempty"` // it could not search: the swarm fails with this
	// Hashes are the fingerprints of the states it found to explore: the merge counts the distinct
	// states of all members with them. They travel as 8 bytes each, after the rest.
	Hashes []uint64 `json:"-"`
}

// Decides reports whether the member stopped the swarm: the members after it do not count.
func (w *SwarmMember) Decides() bool { return w.Stop || w.Err != "" }

func (w *SwarmMember) member() *member {
	m := &member{res: w.Result, stop: w.Stop, frontierBytes: w.FrontierBytes, hashes: w.Hashes, beyond: w.Beyond}
	m.res.runs = w.Runs
	if w.Err != "" {
		m.err = errors.New(w.Err)
	}
	return m
}

// swarmWireVersion is the first byte of an encoded SwarmMember.
const swarmWireVersion = 1

// MarshalBinary encodes w: a version byte, the length of its JSON, the JSON, then the hashes.
func (w *SwarmMember) MarshalBinary() ([]byte, error) {
	j, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(j)+8*len(w.Hashes))
	b = append(b, swarmWireVersion)
	b = binary.AppendUvarint(b, uint64(len(j)))
	b = append(b, j...)
	for _, h := range w.Hashes {
		b = binary.LittleEndian.AppendUint64(b, h)
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary encoded.
func (w *SwarmMember) UnmarshalBinary(b []byte) error {
	if len(b) == 0 || b[0] != swarmWireVersion {
		return errors.New("a swarm member's result of another version of cmc: give every process the same cmcdap")
	}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n > uint64(len(b)-1-k) {
		return errors.New("a swarm member's result is cut short")
	}
	rest := b[1+k:]
	if err := json.Unmarshal(rest[:n], w); err != nil {
		return fmt.Errorf("a swarm member's result does not decode: %w", err)
	}
	rest = rest[n:]
	if len(rest)%8 != 0 {
		return errors.New("a swarm member's result is cut short")
	}
	w.Hashes = make([]uint64, len(rest)/8)
	for i := range w.Hashes {
		w.Hashes[i] = binary.LittleEndian.Uint64(rest[8*i:])
	}
	return nil
}
