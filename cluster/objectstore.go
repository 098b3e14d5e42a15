package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// objectCheckpoints keep a partition's checkpoint (engine/checkpoint.go) in a JetStream object
// store, so a partition started again on another machine (a new pod, with an empty disk) goes
// on from its last level. The object is replaced whole at each level, and a kill in the middle
// of a write leaves the previous one readable: an object store's put sends the new object's
// chunks on a subject of their own (a new NUID) and then one meta message, which replaces the
// old meta (a subject rollup) and is the commit; the old chunks are purged only after it. A
// write cut before the meta leaves the old meta and chunks as they were (nats.go
// jetstream/object.go, obs.Put).
//
// Each partition has a bucket of its own, CMC_<run>_p<K>, holding one object, "checkpoint". A
// bucket per partition, not one per run, because a killed write leaves its chunks behind under
// a NUID nothing names, and only in a bucket no other process writes can the next life tell
// them from another partition's write in progress and purge them (Load does).
type objectCheckpoints struct {
	js     jetstream.JetStream
	obs    jetstream.ObjectStore
	stream jetstream.Stream
	bucket string
	max    int64
}

// checkpointObject is the object's name in its bucket.
const checkpointObject = "checkpoint"

// DefaultCheckpointMax bounds a partition's checkpoint when the worker is given no
// -checkpoint-max. A checkpoint holds less than the partition holds in memory (its visited set,
// parent links and the level's states); docs/cluster.md has the figures a state. With the
// bucket's limit of twice this, deploy/k8s/nats.yaml's 20 GiB volume holds four partitions'
// buckets and the run's stream.
const DefaultCheckpointMax = 1 << 30

// CheckpointBucket names partition k's bucket of run.
func CheckpointBucket(run string, k int) string { return fmt.Sprintf("CMC_%s_p%d", run, k) }

// openObjectCheckpoints opens partition k's bucket of run, making it if it is not there, for
// checkpoints of up to max bytes. The bucket's limit is twice that and a little (a put holds
// the old object and the new until its meta is stored): a run cannot fill the server's disk
// with checkpoints, and Save refuses a checkpoint over max before the server would.
func openObjectCheckpoints(ctx context.Context, nc *nats.Conn, run string, k int, max int64) (*objectCheckpoints, error) {
	if max <= 0 {
		max = DefaultCheckpointMax
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	c := &objectCheckpoints{js: js, bucket: CheckpointBucket(run, k), max: max}
	cfg := jetstream.ObjectStoreConfig{Bucket: c.bucket, Storage: jetstream.FileStorage, MaxBytes: 2*max + 1<<20,
		Description: fmt.Sprintf("cmc run %s: partition %d's checkpoint", run, k)}
	// Each partition makes only its own bucket, so there is no race to make it; one found there
	// is the last life's. A bucket left with another limit by an earlier life keeps it.
	c.obs, err = js.ObjectStore(ctx, c.bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		c.obs, err = js.CreateObjectStore(ctx, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("open the checkpoint bucket %s: %w", c.bucket, err)
	}
	if c.stream, err = js.Stream(ctx, "OBJ_"+c.bucket); err != nil {
		return nil, fmt.Errorf("open the checkpoint bucket %s: %w", c.bucket, err)
	}
	return c, nil
}

// errTooBig is a checkpoint that outgrew its bound.
var errTooBig = errors.New("checkpoint too big")

// capped reads r and fails once more than max bytes are read, so a put of a checkpoint over the
// bound stops (and purges what it sent) before the bucket's limit is reached.
type capped struct {
	r        io.Reader
	n, max   int64
	overflow bool
}

func (c *capped) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		c.overflow = true
		return 0, errTooBig
	}
	return n, err
}

// Save puts the checkpoint write writes as the bucket's object, replacing the last whole: a
// write that fails, or a checkpoint over the bound, leaves the last one.
func (c *objectCheckpoints) Save(write func(io.Writer) error) error {
	pr, pw := io.Pipe()
	wrote := make(chan error, 1)
	go func() {
		err := write(pw)
		pw.CloseWithError(err) // nil: EOF, the put's end
		wrote <- err
	}()
	in := &capped{r: pr, max: c.max}
	_, err := c.obs.Put(context.Background(), jetstream.ObjectMeta{Name: checkpointObject}, in)
	pr.CloseWithError(errors.New("the put ended")) // a writer still writing stops
	werr := <-wrote
	switch {
	case in.overflow:
		return fmt.Errorf("the checkpoint is over %d bytes, the bound of bucket %s: give the worker a larger -checkpoint-max", c.max, c.bucket)
	case err != nil && werr != nil && errors.Is(err, werr):
		return werr // the put read the writer's error
	case err != nil:
		return fmt.Errorf("put the checkpoint in bucket %s: %w", c.bucket, err)
	}
	return werr
}

// loadTimeout bounds reading a checkpoint back: Load checks that every chunk is there first, so
// only a server that stops answering reaches it.
const loadTimeout = 10 * time.Minute

// Load purges what a killed write left, then copies the checkpoint into a temporary file (gone
// when closed), checking its SHA-256 digest before the engine reads a byte of it: a checkpoint
// is used whole and intact or not at all.
func (c *objectCheckpoints) Load() (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
	defer cancel()
	info, err := c.obs.GetInfo(ctx, checkpointObject)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		info, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the checkpoint in bucket %s: %w", c.bucket, err)
	}
	chunks, err := c.purgeLeftovers(ctx, info)
	if err != nil || info == nil {
		return nil, err
	}
	if chunks != uint64(info.Chunks) {
		return nil, c.broken(fmt.Sprintf("it has %d of its %d chunks", chunks, info.Chunks))
	}
	r, err := c.obs.Get(ctx, checkpointObject)
	if err != nil {
		return nil, fmt.Errorf("read the checkpoint in bucket %s: %w", c.bucket, err)
	}
	defer r.Close()
	f, err := os.CreateTemp("", "cmc-checkpoint-*")
	if err != nil {
		return nil, fmt.Errorf("copy the checkpoint from bucket %s: %w", c.bucket, err)
	}
	os.Remove(f.Name()) // the open file stays readable; nothing is left behind
	n, err := io.Copy(f, r)
	if err == nil && uint64(n) != info.Size {
		err = fmt.Errorf("%d bytes of %d", n, info.Size)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		if errors.Is(err, jetstream.ErrDigestMismatch) {
			return nil, c.broken("its digest does not match its bytes")
		}
		return nil, fmt.Errorf("copy the checkpoint from bucket %s: %w", c.bucket, err)
	}
	return f, nil
}

// broken says the stored checkpoint cannot be used, and how to go on without it.
func (c *objectCheckpoints) broken(why string) error {
	return fmt.Errorf("the checkpoint in bucket %s is damaged (%s): remove it (nats object rm %s %s) to start the partition from level 0", c.bucket, why, c.bucket, checkpointObject)
}

// purgeLeftovers removes the chunks of writes that never reached their meta (the process was
// killed) and returns how many chunks the current object has. Only this partition writes its
// bucket, and it is not writing now, so every chunk subject but the current object's is a
// leftover.
func (c *objectCheckpoints) purgeLeftovers(ctx context.Context, current *jetstream.ObjectInfo) (uint64, error) {
	prefix := "$O." + c.bucket + ".C."
	si, err := c.stream.Info(ctx, jetstream.WithSubjectFilter(prefix+">"))
	if err != nil {
		return 0, fmt.Errorf("list the chunks in bucket %s: %w", c.bucket, err)
	}
	var have uint64
	for subj, n := range si.State.Subjects {
		if current != nil && strings.TrimPrefix(subj, prefix) == current.NUID {
			have = n
			continue
		}
		if err := c.stream.Purge(ctx, jetstream.WithPurgeSubject(subj)); err != nil {
			return 0, fmt.Errorf("purge a killed write's chunks in bucket %s: %w", c.bucket, err)
		}
	}
	return have, nil
}

// DeleteCheckpoints removes the checkpoint buckets of run's n partitions: the run is over.
func DeleteCheckpoints(ctx context.Context, nc *nats.Conn, run string, n int) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	var errs []error
	for k := range n {
		if err := js.DeleteObjectStore(ctx, CheckpointBucket(run, k)); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
			errs = append(errs, fmt.Errorf("delete the checkpoint bucket %s: %w", CheckpointBucket(run, k), err))
		}
	}
	return errors.Join(errs...)
}
