package cluster

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// save saves s as the checkpoint, failing with fail after writing it when fail is set.
func save(c *objectCheckpoints, s string, fail error) error {
	return c.Save(func(w io.Writer) error {
		if _, err := io.WriteString(w, s); err != nil {
			return err
		}
		return fail
	})
}

func loaded(t *testing.T, c *objectCheckpoints) string {
	t.Helper()
	rc, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	if rc == nil {
		return "(none)"
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// chunkSubjects lists the chunk subjects of c's bucket and how many chunks each has.
func chunkSubjects(t *testing.T, c *objectCheckpoints) map[string]uint64 {
	t.Helper()
	si, err := c.stream.Info(context.Background(), jetstream.WithSubjectFilter("$O."+c.bucket+".C.>"))
	if err != nil {
		t.Fatal(err)
	}
	return si.State.Subjects
}

// TestObjectCheckpoints: no checkpoint is nil; a save replaces the last whole; a save that fails
// or outgrows the bound leaves the last; a write killed before its meta leaves chunks that the
// next Load purges; DeleteCheckpoints removes the buckets.
func TestObjectCheckpoints(t *testing.T) {
	b := startBroker(t)
	nc := connect(t, b)
	ctx := context.Background()
	c, err := openObjectCheckpoints(ctx, nc, "r1", 2, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded(t, c); got != "(none)" {
		t.Fatalf("no checkpoint: %q", got)
	}
	if err := save(c, "level 3", nil); err != nil {
		t.Fatal(err)
	}
	if err := save(c, "level 4, cut short", errors.New("disk full")); err == nil || err.Error() != "disk full" {
		t.Fatalf("a failed save: %v", err)
	}
	err = save(c, strings.Repeat("x", 1001), nil)
	if err == nil || !strings.Contains(err.Error(), "-checkpoint-max") {
		t.Fatalf("a checkpoint over the bound: %v", err)
	}
	if got := loaded(t, c); got != "level 3" {
		t.Errorf("after the failed saves: %q", got)
	}
	if n := len(chunkSubjects(t, c)); n != 1 {
		t.Errorf("%d chunk subjects after the failed saves, want the checkpoint's alone", n)
	}

	// A write killed after some chunks, before its meta: the chunks are there, nothing names them.
	if _, err := c.js.Publish(ctx, "$O."+c.bucket+".C.killedwrite", []byte("level 5, half")); err != nil {
		t.Fatal(err)
	}
	again, err := openObjectCheckpoints(ctx, connect(t, b), "r1", 2, 1000) // the next life
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded(t, again); got != "level 3" {
		t.Errorf("after a killed write: %q", got)
	}
	if subj := chunkSubjects(t, again); len(subj) != 1 || subj["$O."+c.bucket+".C.killedwrite"] != 0 {
		t.Errorf("the killed write's chunks are still there: %v", subj)
	}
	if err := save(again, "level 5", nil); err != nil {
		t.Fatal(err)
	}
	if got := loaded(t, again); got != "level 5" {
		t.Errorf("after the next save: %q", got)
	}

	if err := DeleteCheckpoints(ctx, nc, "r1", 3); err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	if _, err := js.ObjectStore(ctx, c.bucket); !errors.Is(err, jetstream.ErrBucketNotFound) {
		t.Errorf("the bucket is still there: %v", err)
	}
}

// TestDamagedObjectCheckpoint: a checkpoint object that lost a chunk, or whose bytes are not the
// ones its digest was taken of, is a one-line error that says how to go on, and the engine reads
// none of it.
func TestDamagedObjectCheckpoint(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320,000 bytes: three chunks
	for _, c := range []struct {
		name   string
		damage func(c *objectCheckpoints, nuid string) error
		want   string
	}{
		{"a chunk lost", func(c *objectCheckpoints, nuid string) error {
			m, err := c.stream.GetLastMsgForSubject(ctx, "$O."+c.bucket+".C."+nuid)
			if err != nil {
				return err
			}
			return c.stream.DeleteMsg(ctx, m.Sequence)
		}, "it has 2 of its 3 chunks"},
		{"other bytes", func(c *objectCheckpoints, nuid string) error {
			subj := "$O." + c.bucket + ".C." + nuid
			if err := c.stream.Purge(ctx, jetstream.WithPurgeSubject(subj)); err != nil {
				return err
			}
			for range 3 {
				if _, err := c.js.Publish(ctx, subj, bytes.Repeat([]byte("z"), 128<<10)); err != nil {
					return err
				}
			}
			return nil
		}, "its digest does not match its bytes"},
	} {
		cp, err := openObjectCheckpoints(ctx, connect(t, b), "damaged", len(c.name), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if err := cp.Save(func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			t.Fatal(err)
		}
		info, err := cp.obs.GetInfo(ctx, checkpointObject)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.damage(cp, info.NUID); err != nil {
			t.Fatal(err)
		}
		rc, err := cp.Load()
		if rc != nil {
			rc.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nats object rm "+cp.bucket+" checkpoint") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line saying %q and how to remove it", c.name, err, c.want)
		}
	}
}
