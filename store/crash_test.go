package store

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cmc-go/cmc/store/pgtest"
)

// crashEnv, when set to a database path, makes the test binary the crash test's writer.
const crashEnv = "CMC_STORE_CRASH_WRITER"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashEnv); path != "" {
		crashWriter(path)
		return
	}
	os.Exit(pgtest.Main(m))
}

// crashWriter stores traces until it is killed, printing each id once AddTrace has returned.
func crashWriter(path string) {
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	seed, _ := strconv.ParseUint(os.Getenv(crashEnv+"_SEED"), 10, 64)
	y := newSynth(seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	for {
		id, err := s.AddTrace(0, y.trace(1+rng.IntN(3000)), time.Time{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Printf("%d\n", id) // os.Stdout is unbuffered: the parent has it once this returns
		y = newSynth(rng.Uint64())
	}
}

// TestCrash kills a writer with SIGKILL at random moments, then checks that the database is
// intact and that every trace reported stored is there whole.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes; not in -short")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	path := filepath.Join(t.TempDir(), "crash.db")
	var stored []int64
	deadline := time.Now().Add(12 * time.Second)
	for i := 0; i < 20 && time.Now().Before(deadline); i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+path, fmt.Sprintf("%s_SEED=%d", crashEnv, rng.Uint64()))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ids := make(chan int64)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				id, err := strconv.ParseInt(sc.Text(), 10, 64)
				if err == nil {
					ids <- id
				}
			}
			close(ids)
		}()
		// Kill anywhere from before the database is open to a few traces in.
		kill := time.After(time.Duration(rng.IntN(400)) * time.Millisecond)
	wait:
		for {
			select {
			case id, ok := <-ids:
				if !ok {
					break wait
				}
				stored = append(stored, id)
			case <-kill:
				cmd.Process.Kill()
				kill = nil
			}
		}
		if err := cmd.Wait(); err != nil && cmd.ProcessState.ExitCode() == 3 {
			t.Fatalf("writer failed: %v", err)
		}

		s, err := Open(path)
		if err != nil {
			t.Fatalf("after kill %d: %v", i+1, err)
		}
		var ok string
		if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
			t.Fatalf("after kill %d: integrity_check: %s %v", i+1, ok, err)
		}
		for _, id := range stored {
			if err := complete(s, id); err != nil {
				t.Fatalf("after kill %d: trace %d was reported stored: %v", i+1, id, err)
			}
		}
		s.Close()
	}
	t.Logf("%d traces reported stored, all there whole", len(stored))
}
