package cluster

import (
	"context"
	"testing"
)

// BenchmarkExchange: what one partition can send another through a real JetStream server on
// loopback (the embedded one check -partitions starts), in batches of the search's largest size:
// b.N batches of 64 KiB sent at one level, the barrier, and all of them received. The bytes a
// second are what a partitioned search's projection divides by (docs/performance.md).
func BenchmarkExchange(b *testing.B) {
	br := startBroker(b)
	ctx := context.Background()
	send, err := NewExchange(ctx, connect(b, br), "bench", 0, 2)
	if err != nil {
		b.Fatal(err)
	}
	defer send.Close()
	recv, err := NewExchange(ctx, connect(b, br), "bench", 1, 2)
	if err != nil {
		b.Fatal(err)
	}
	defer recv.Close()
	batch := make([]byte, 64<<10)
	for i := range batch {
		batch[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(batch)))
	b.ResetTimer()
	for i := range b.N {
		if err := send.Send(ctx, 0, 1, batch); err != nil {
			b.Fatalf("batch %d: %v", i, err)
		}
	}
	go send.Barrier(ctx, 0, []byte("0"))
	if _, err := recv.Barrier(ctx, 0, []byte("1")); err != nil {
		b.Fatal(err)
	}
	got := 0
	err = recv.Receive(ctx, 0, []int{b.N, 0}, func(p []byte) error {
		got += len(p)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if got != b.N*len(batch) {
		b.Fatalf("received %d bytes of %d", got, b.N*len(batch))
	}
}
