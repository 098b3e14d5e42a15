package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/cmc-go/cmc/internal/views"
)

func init() {
	commands["serve"] = command{run: func(args []string, stdout, stderr io.Writer) int {
		return serveCommand(context.Background(), args, stdout, stderr)
	},
		usage: "browse stored traces in a browser: serve [-db FILE] [-addr 127.0.0.1:0] [-pkg DIR] [-open] [-allow-remote]"}
}

type serveFlags struct {
	db, addr, pkg string
	open          bool
	allowRemote   bool
	verbose       bool
}

// serveCommand serves the views (trace list, heap graph, state diff, sequence chart) of a trace
// database on a loopback address until interrupted, and prints the URL with the session token.
func serveCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.db, "db", "", dbUsage)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "`host:port` to listen on (port 0: any free one)")
	fs.StringVar(&f.pkg, "pkg", "", "the models' package `dir`, whose code draws real heap graphs (default: . when it holds Go files)")
	fs.BoolVar(&f.open, "open", false, "open the views in the default browser")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow a non-loopback -addr (anyone who can reach it and has the token sees your program's state)")
	fs.BoolVar(&f.verbose, "v", false, "log requests and worker activity")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(stderr, "serve", err)
	}
	if len(pos) > 0 {
		return fail(stderr, "serve", fmt.Errorf("unexpected argument %q: give the database with -db FILE", pos[0]))
	}
	if err := views.CheckLoopback(f.addr, f.allowRemote); err != nil {
		return fail(stderr, "serve", err)
	}
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	db, err := openTraceDB(f.db, false)
	if err != nil {
		return fail(stderr, "serve", err)
	}
	defer db.Close()
	src := &views.StoreSource{DB: db, Log: log}
	if pkg := graphPackage(f.pkg); pkg != "" {
		graphs := &views.WorkerGraphs{Dir: ".", Pkg: pkg}
		defer graphs.Close()
		src.Graphs = graphs
		go func() { // build the worker now, so the first graph does not wait for it
			if err := graphs.Prepare(ctx); err != nil && ctx.Err() == nil {
				log.Warn("heap graphs will show the stored state only", "layer", "views", "err", err)
			}
		}()
	}
	srv, err := views.New(src, views.Options{Log: log})
	if err != nil {
		return fail(stderr, "serve", err)
	}
	if err := srv.Start(f.addr, f.allowRemote); err != nil {
		return fail(stderr, "serve", err)
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "cmcdap serve: views of %s at %s\n", db.Path(), srv.URL())
	fmt.Fprintf(stdout, "link a step as %s (the token lets the page in once; it is then a cookie)\n", srv.TraceURL(1, 0))
	if f.open {
		if err := openBrowser(srv.URL()); err != nil {
			fmt.Fprintf(stderr, "cmcdap serve: cannot open a browser (%v): open the URL above\n", err)
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return 0
}

// graphPackage is the package whose code draws heap graphs: -pkg, or the current directory when
// it is a Go package; "" when there is none (graphs then show the stored state).
func graphPackage(flagPkg string) string {
	if flagPkg != "" {
		return flagPkg
	}
	if m, _ := filepath.Glob("*.go"); len(m) > 0 {
		return "."
	}
	return ""
}

func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
