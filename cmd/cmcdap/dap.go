package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync"

	dapsession "github.com/cmc-go/cmc/internal/dap"
	"github.com/cmc-go/cmc/internal/loopback"
	"github.com/cmc-go/cmc/internal/views"
	"github.com/cmc-go/cmc/store"
)

func init() {
	commands["dap"] = command{run: func(args []string, stdout, stderr io.Writer) int {
		return dapCommand(context.Background(), args, stdout, stderr)
	},
		usage: "serve the Debug Adapter Protocol: dap [-listen 127.0.0.1:PORT [-token T] [-allow-remote]] [-log FILE] (default: on stdin/stdout, as VS Code starts it)"}
}

func dapCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "serve DAP clients on this TCP `address` (e.g. 127.0.0.1:4711) instead of stdin/stdout")
	token := fs.String("token", "", "with -listen: the `token` clients must give as \"token\" in their launch configuration (default: a random one, printed)")
	allowRemote := fs.Bool("allow-remote", false, "allow a non-loopback -listen address (anyone who can reach it and has the token can make cmcdap build and run code)")
	logFile := fs.String("log", os.Getenv("CMC_DAP_LOG"), "append every DAP message in and out to this `file` (default $CMC_DAP_LOG)")
	verbose := fs.Bool("v", false, "log the adapter's own messages to stderr")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(stderr, "dap", err)
	}
	if len(pos) > 0 {
		return fail(stderr, "dap", fmt.Errorf("unexpected argument %q: dap takes only flags", pos[0]))
	}
	if *listen == "" && (*token != "" || *allowRemote) {
		return fail(stderr, "dap", errors.New("-token and -allow-remote go with -listen ADDR; over stdin/stdout no token is needed"))
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	// In stdio mode stdout is the protocol: everything else goes to stderr.
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg := dapsession.Config{Logger: logger, OpenViews: openViews(logger)}
	if *logFile != "" {
		wl, err := dapsession.OpenWireLog(*logFile)
		if err != nil {
			return fail(stderr, "dap", fmt.Errorf("wire log: %w", err))
		}
		defer wl.Close()
		cfg.WireLog = wl
	}
	if *listen == "" {
		if err := dapsession.Serve(stdio{}, cfg); err != nil {
			fmt.Fprintf(stderr, "cmcdap dap: %v\n", err)
			return 1
		}
		return 0
	}
	if err := loopback.Check(*listen, *allowRemote, "and has the token can make cmcdap build and run code on this machine", "-allow-remote"); err != nil {
		return fail(stderr, "dap", err)
	}
	cfg.Token = *token
	if cfg.Token == "" {
		cfg.Token = newToken()
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail(stderr, "dap", err)
	}
	fmt.Fprintf(stdout, "DAP server listening at: %s\n", ln.Addr())
	fmt.Fprintf(stdout, "token: %s (give it as \"token\" in the launch configuration)\n", cfg.Token)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	serveTCP(ctx, ln, cfg)
	return 0
}

// newToken makes a session token: 128 random bits.
func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// serveTCP serves each client that connects in its own session until ctx ends, then waits for
// the sessions to end (their connections are closed).
func serveTCP(ctx context.Context, ln net.Listener, cfg dapsession.Config) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	go func() {
		<-ctx.Done()
		ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			break // closed when ctx ended
		}
		mu.Lock()
		conns[conn] = true
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := dapsession.Serve(conn, cfg); err != nil {
				cfg.Logger.Warn("DAP session ended", "err", err)
			}
			mu.Lock()
			delete(conns, conn)
			mu.Unlock()
		}()
	}
	wg.Wait()
}

// stdio is the process's standard input and output as one connection.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return nil }

var _ io.ReadWriteCloser = stdio{}

// openViews starts, for each debug session, a views server on loopback: the heap graph, diff and
// sequence chart of the session's traces, with a click in the chart moving the debugger. Heap
// graphs come from the model's code, replayed in a worker of its own.
func openViews(log *slog.Logger) func(db *store.Store, pkgDir string, gotoStep func(int64, int)) (dapsession.Views, error) {
	return func(db *store.Store, pkgDir string, gotoStep func(int64, int)) (dapsession.Views, error) {
		src := &views.StoreSource{DB: db, Log: log}
		var graphs *views.WorkerGraphs
		if pkgDir != "" {
			graphs = &views.WorkerGraphs{Dir: pkgDir, Pkg: "."}
			src.Graphs = graphs
		}
		srv, err := views.New(src, views.Options{Log: log})
		if err != nil {
			return nil, err
		}
		srv.OnGoto = gotoStep
		if err := srv.Start("127.0.0.1:0", false); err != nil {
			return nil, err
		}
		return &sessionViews{Server: srv, graphs: graphs}, nil
	}
}

// sessionViews closes the graphs' worker with the server.
type sessionViews struct {
	*views.Server
	graphs *views.WorkerGraphs
}

func (v *sessionViews) Close() error {
	if v.graphs != nil {
		v.graphs.Close()
	}
	return v.Server.Close()
}
