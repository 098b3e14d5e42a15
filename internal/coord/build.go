package coord

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A Package is the user's Go package that holds models.
type Package struct {
	Dir        string
	ImportPath string
	Name       string // the package clause's name
	Module     string // module root directory
	CodeID     string // hash of the package's Go sources: identifies the code a run checked
}

// ErrBuild marks errors in the user's package (exit code 2).
var ErrBuild = errors.New("build")

// Resolve finds the package named by pattern (a directory or import path), run from dir.
func Resolve(ctx context.Context, dir, pattern string) (*Package, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-json", "--", pattern)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: cannot find package %s: %s", ErrBuild, pattern, firstLine(errb.String(), err))
	}
	var p struct {
		Dir, ImportPath, Name string
		GoFiles               []string
		Module                *struct{ Dir string }
		Error                 *struct{ Err string }
	}
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		return nil, fmt.Errorf("go list %s: %w", pattern, err)
	}
	switch {
	case p.Error != nil:
		return nil, fmt.Errorf("%w: package %s: %s", ErrBuild, pattern, p.Error.Err)
	case p.Name == "main":
		return nil, fmt.Errorf("%w: package %s is a main package: put the models in a library package that main imports", ErrBuild, pattern)
	case p.Module == nil:
		return nil, fmt.Errorf("%w: package %s is not in a Go module: run go mod init", ErrBuild, pattern)
	}
	h := sha256.New()
	for _, f := range p.GoFiles {
		b, err := os.ReadFile(filepath.Join(p.Dir, f))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	return &Package{Dir: p.Dir, ImportPath: p.ImportPath, Name: p.Name, Module: p.Module.Dir, CodeID: hex.EncodeToString(h.Sum(nil))[:16]}, nil
}

// Build compiles the package into a worker binary: a main package, given to the go command as an
// overlay so nothing is written into the user's tree, that imports the package (registering its
// models) and serves requests. The go build cache makes rebuilds of unchanged code fast.
func Build(ctx context.Context, p *Package) (string, error) { return buildOptimized(ctx, p, "") }

// workerProfile is a CPU profile of the engine checking three models (bench/pgo.sh writes it).
// The go command optimizes a worker with it (-pgo): the engine's hot calls inlined and laid out
// by how often they run: 3-5% fewer instructions a state on TwoPhase, AODV and etcd raft
// (docs/performance.md, "Profile-guided optimization").
//
//go:embed worker.pgo
var workerProfile []byte

// buildOptimized compiles the package into a worker optimized with workerProfile.
func buildOptimized(ctx context.Context, p *Package, suffix string) (string, error) {
	prof, err := profileFile()
	if err != nil {
		return "", err
	}
	return build(ctx, p, suffix, []string{"-pgo=" + prof})
}

// profileFile writes workerProfile into the worker cache, named by its content, and returns its
// path. The go command reads the profile by path, and a build of this cmcdap must not read
// another version's.
func profileFile() (string, error) {
	dir, err := workerCache()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(workerProfile)
	path := filepath.Join(dir, "worker-"+hex.EncodeToString(sum[:8])+".pgo")
	if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, workerProfile) {
		return path, nil
	}
	return path, writeAtomic(path, workerProfile)
}

// BuildCluster compiles the package into a worker that can also run one partition of a
// partitioned check: it links package cluster, and so the NATS client, which the package's module
// must then have in its go.sum (a module other than cmc's: go get github.com/cmc-go/cmc/cluster).
func BuildCluster(ctx context.Context, p *Package) (string, error) {
	return buildOptimized(ctx, p, "-cluster")
}

// BuildDebug compiles the package into a worker for a Go debugger (debugFlags).
func BuildDebug(ctx context.Context, p *Package) (string, error) {
	return build(ctx, p, "-debug", debugFlags(p.ImportPath))
}

// build compiles the worker with the go command's flags, into a binary named with suffix.
func build(ctx context.Context, p *Package, suffix string, flags []string) (string, error) {
	dir, err := workerCache()
	if err != nil {
		return "", err
	}
	id := sha256.Sum256([]byte(p.Dir))
	name := hex.EncodeToString(id[:8])
	src := filepath.Join(dir, name+".go")
	ov := filepath.Join(dir, name+".json")
	if suffix == "-cluster" { // another main: its own source and overlay files
		src, ov = filepath.Join(dir, name+suffix+".go"), filepath.Join(dir, name+suffix+".json")
	}
	main := workerMain(p.ImportPath, suffix == "-cluster")
	// Other processes may be building the same package right now, reading these files: replace
	// them whole (the content is the same), never truncate and rewrite them in place.
	if err := writeAtomic(src, []byte(main)); err != nil {
		return "", err
	}
	fake := filepath.Join(p.Dir, "cmcworker_"+name, "main.go")
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{fake: src}})
	if err := writeAtomic(ov, overlay); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name) + suffix
	args := append([]string{"build", "-overlay", ov}, flags...)
	// Build to a file of our own and rename it into place: two sessions may build the same
	// package at once, and a worker may be running the previous binary.
	tmp, err := os.CreateTemp(dir, filepath.Base(bin)+".*.tmp")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.CommandContext(ctx, "go", append(args, "-o", tmp.Name(), "./"+filepath.Base(filepath.Dir(fake)))...)
	cmd.Dir = p.Dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if suffix == "-cluster" && strings.Contains(msg, "nats-io") {
			return "", fmt.Errorf("%w: a partitioned check links the NATS client, which %s's module does not require: run go get github.com/cmc-go/cmc/cluster in it", ErrBuild, p.ImportPath)
		}
		if strings.Contains(msg, "github.com/cmc-go/cmc/worker") && strings.Contains(msg, "not") {
			return "", fmt.Errorf("%w: %s does not depend on github.com/cmc-go/cmc (run go get github.com/cmc-go/cmc)", ErrBuild, p.ImportPath)
		}
		return "", fmt.Errorf("%w: package %s does not build: %s (run go build %s for the full output)", ErrBuild, p.ImportPath, compileErrors(msg), p.ImportPath)
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", fmt.Errorf("install worker binary: %w", err)
	}
	return bin, nil
}

// workerMain is the source of a worker's main package: it imports the user's package (which
// registers its models) and serves requests.
// A cluster worker also imports package cluster, which registers the "partition" op.
func workerMain(pkg string, cluster bool) string {
	extra := ""
	if cluster {
		extra = "\t_ \"github.com/cmc-go/cmc/cluster\"\n"
	}
	return fmt.Sprintf("// Code generated by cmcdap; DO NOT EDIT.\npackage main\n\nimport (\n\t_ %q\n%s\t\"github.com/cmc-go/cmc/worker\"\n)\n\nfunc main() { worker.Main() }\n", pkg, extra)
}

// debugFlags build a worker for a debugger: the user's code and its dependencies without
// optimisations or inlining, so every line has its code and every local its value, but the
// standard library and cmc's own packages (which replay the steps before the one debugged)
// optimised, except the worker's StepEnter and StepLeave, whose arguments the debugger reads.
// The go command applies the last pattern a package matches.
func debugFlags(pkg string) []string {
	return []string{"-gcflags=all=-N -l", "-gcflags=std=", "-gcflags=github.com/cmc-go/cmc/...=",
		"-gcflags=github.com/cmc-go/cmc/worker=-N -l", "-gcflags=" + pkg + "=-N -l"}
}

// workerCache returns the directory of worker binaries and their sources, creating it.
func workerCache() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "cmc", "workers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create worker cache: %w", err)
	}
	return dir, nil
}

// writeAtomic writes a file of our own next to path and renames it over path, so a reader sees
// the old file or the new one, never a partly written one.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write worker source: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write worker source: %w", err)
	}
	return nil
}

func firstLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return err.Error()
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// compileErrors shortens the go command's output to its first errors, on one line.
func compileErrors(out string) string {
	var errs []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && len(errs) < 3 {
			errs = append(errs, l)
		}
	}
	return strings.Join(errs, "; ")
}
