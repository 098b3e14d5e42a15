// Package pgtest gives tests a real PostgreSQL: the server binaries of the machine (Debian's
// postgresql package puts them in /usr/lib/postgresql/VERSION/bin), started once per test binary
// in a temporary directory, listening on 127.0.0.1 only, on a free port, with a password (scram
// authentication), and stopped when the tests end. Each test gets a database of its own.
//
// A package using it runs its tests through Main, which stops the server:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// Without the binaries a test skips, unless CI or CMC_REQUIRE_POSTGRES=1 is set (the
// Makefile's test-go sets it), where it fails.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Server is a running PostgreSQL server of the test binary.
type Server struct {
	Host     string // 127.0.0.1
	Port     int
	User     string // a superuser
	Password string

	dir    string              // the temporary directory: data, socket, log
	bin    string              // the directory of initdb and postgres
	cred   *syscall.Credential // the unprivileged user they run as, when we are root
	exited chan struct{}       // closed when the server has exited
	proc   *os.Process
}

var (
	once     sync.Once
	shared   *Server
	startErr error
	missing  bool // the binaries are not installed: skip, unless required
	dbs      atomic.Int64
)

// Main runs the tests and stops the server if one of them started it.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		if err := shared.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	return code
}

// Start returns the test binary's server, starting it on first use. It skips the test when
// PostgreSQL is not installed, unless it is required (CI, CMC_REQUIRE_POSTGRES=1).
func Start(t testing.TB) *Server {
	t.Helper()
	once.Do(func() { shared, startErr = start() })
	switch {
	case missing && !required():
		t.Skipf("pgtest: %v (set CMC_REQUIRE_POSTGRES=1 to make this a failure)", startErr)
	case startErr != nil:
		t.Fatalf("pgtest: %v", startErr)
	}
	return shared
}

// DB creates an empty database on the server and returns its URL, password included.
func DB(t testing.TB) string {
	t.Helper()
	s := Start(t)
	name := fmt.Sprintf("cmc_test_%d", dbs.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	// The name is ours (a counter), not input: an identifier cannot be a parameter.
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	return s.URL(name)
}

// URL is the URL of database db on the server, with the password in it.
func (s *Server) URL(db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(s.User, s.Password),
		Host: net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), Path: "/" + db}
	return u.String()
}

func required() bool {
	return os.Getenv("CI") != "" || os.Getenv("CMC_REQUIRE_POSTGRES") == "1"
}

// bin finds initdb and postgres: Debian's newest /usr/lib/postgresql/*/bin, else PATH.
func bin() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	slices.SortFunc(found, func(a, b string) int { return version(a) - version(b) })
	if len(found) > 0 {
		return filepath.Dir(found[len(found)-1]), nil
	}
	p, err := exec.LookPath("initdb")
	if err != nil {
		return "", errors.New("no PostgreSQL server binaries (initdb, postgres) in /usr/lib/postgresql/*/bin or PATH: install Debian's postgresql package")
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real // a link in PATH to Debian's directory, where postgres is too
	}
	return filepath.Dir(p), nil
}

// version is the VERSION of /usr/lib/postgresql/VERSION/bin/initdb.
func version(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

func start() (*Server, error) {
	b, err := bin()
	if err != nil {
		missing = true
		return nil, err
	}
	s := &Server{Host: "127.0.0.1", User: "cmc", Password: randomHex(16), bin: b}
	if s.dir, err = os.MkdirTemp("", "cmc-pgtest-"); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			s.stop()
		}
	}()
	for _, d := range []string{"sock"} {
		if err := os.Mkdir(filepath.Join(s.dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	pwfile := filepath.Join(s.dir, "pw")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		return nil, err
	}
	// initdb and the server refuse to run as root (CI and this project's machines run tests
	// as root): then they run as Debian's postgres user, which must own the directory. The
	// child process takes the user's ids itself (as runuser would, without its extra process).
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, and initdb refuses root: it needs the unprivileged user postgres (Debian's postgresql package creates it): %w", err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		err = filepath.Walk(s.dir, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Chown(p, int(uid), int(gid))
		})
		if err != nil {
			return nil, err
		}
	}
	data := filepath.Join(s.dir, "data")
	initdb := s.command("initdb", "-D", data, "-U", s.User, "--pwfile", pwfile, "--auth-host", "scram-sha-256",
		"--auth-local", "scram-sha-256", "--no-locale", "-E", "UTF8", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", initdb, err, out)
	}
	os.Remove(pwfile)
	// The port is free when we look; another process could take it before the server does,
	// so try a few.
	for try := 0; ; try++ {
		if s.Port, err = freePort(); err != nil {
			return nil, err
		}
		if err = s.serve(data); err == nil || try == 2 {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// command is one of the server's programs, run as the unprivileged user when we are root.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	return cmd
}

// serve starts the server as a child of the test binary that dies with it: a test binary
// killed (a timeout, ^C) leaves no server behind. The parent-death signal is SIGQUIT, the
// server's immediate shutdown. Linux sends it when the thread that started the child ends, so
// that thread stays locked to the goroutine that waits for the server.
func (s *Server) serve(data string) error {
	log, err := os.Create(filepath.Join(s.dir, "log"))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := s.command("postgres", "-D", data, "-c", "listen_addresses=127.0.0.1", "-p", strconv.Itoa(s.Port),
		"-k", filepath.Join(s.dir, "sock"), "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	cmd.Stdout, cmd.Stderr = log, log
	started := make(chan error, 1)
	s.exited = make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the server's wait
		if err := cmd.Start(); err != nil {
			started <- err
			close(s.exited)
			return
		}
		s.proc = cmd.Process
		started <- nil
		cmd.Wait()
		close(s.exited)
	}()
	if err := <-started; err != nil {
		return err
	}
	// Ready when it lets us in; it may also fail to start (the port taken after all).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-s.exited:
			out, _ := os.ReadFile(filepath.Join(s.dir, "log"))
			return fmt.Errorf("%s exited: %s", cmd, out)
		case <-ctx.Done():
			s.proc.Signal(syscall.SIGQUIT)
			<-s.exited
			return fmt.Errorf("%s: not ready: %v", cmd, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop stops the server (a fast shutdown: the tests are done) and removes its directory.
func (s *Server) stop() error {
	if s.proc != nil {
		select {
		case <-s.exited:
		default:
			s.proc.Signal(syscall.SIGINT)
			<-s.exited
		}
	}
	return os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
