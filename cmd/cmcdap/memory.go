package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/internal/service"
)

// memoryFlag is check's -memory: a byte count with an optional binary unit (KiB, MiB, GiB, or
// K, M, G meaning the same).
type memoryFlag struct{ bytes *int64 }

func (m *memoryFlag) String() string {
	if m.bytes == nil || *m.bytes == 0 {
		return ""
	}
	return service.Bytes(*m.bytes)
}

func (m *memoryFlag) Set(s string) error {
	num, unit := s, int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			num, unit = rest, u.n
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a size such as 512MiB or 8GiB")
	}
	*m.bytes = n * unit
	return nil
}
