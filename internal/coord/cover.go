package coord

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
	"golang.org/x/tools/cover"
)

// Coverage of the user's code uses Go's own instrumentation: the worker is built with
// go build -cover -coverpkg=<the user's packages>, writes its counters with runtime/coverage
// (worker/coverage.go), and the counters are read back with go tool covdata textfmt and
// golang.org/x/tools/cover, the parser of the text profile go test -coverprofile writes. So a
// statement here is a statement of go test -cover.

// A CoverTarget is a worker built to measure coverage, and the packages it measures.
type CoverTarget struct {
	Bin      string
	Main     string            // the generated main's import path: not the user's code
	Packages map[string]string // import path -> directory
}

// BuildCover compiles the package into a worker that measures the coverage of the user's
// packages: the package and the packages of its module it imports, but not cmc itself, and the
// packages extra names (import paths or patterns, as go build -coverpkg takes them: a protocol
// library the model checks, such as go.etcd.io/raft/v3).
//
// Counters are atomic: the runtime writes them while the worker runs only in that mode (and
// breadth-first levels are expanded on several goroutines).
//
// The coverage runtime starts only when the main package is instrumented too, and the go
// command's cover step reads the main package's file from disk, not from an -overlay; so, to write
// nothing into the user's tree, the generated main is a module of its own in the worker cache,
// built in a workspace (go.work) with the user's module.
func BuildCover(ctx context.Context, p *Package, extra []string) (*CoverTarget, error) {
	pkgs, err := userPackages(ctx, p, extra)
	if err != nil {
		return nil, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	id := sha256.Sum256([]byte(p.Dir))
	name := hex.EncodeToString(id[:8])
	// The main's module path lies under the package's import path, as the overlay's does (see
	// build), so it may import a package under internal/.
	mainPath := p.ImportPath + "/cmcworker_" + name
	names := []string{mainPath}
	for ip := range pkgs {
		names = append(names, ip)
	}
	slices.Sort(names)
	dir := filepath.Join(cache, "cmc", "workers", name+"-cover.d")
	if err := os.MkdirAll(filepath.Join(dir, "main"), 0o755); err != nil {
		return nil, fmt.Errorf("create worker cache: %w", err)
	}
	ver := strings.TrimPrefix(runtime.Version(), "go")
	if i := strings.IndexAny(ver, " -"); i >= 0 {
		ver = ver[:i]
	}
	files := map[string]string{
		"go.work":      fmt.Sprintf("go %s\n\nuse ./main\nuse %s\n", ver, strconv.Quote(p.Module)),
		"main/go.mod":  fmt.Sprintf("module %s\n\ngo %s\n", mainPath, ver),
		"main/main.go": workerMain(p.ImportPath, false),
	}
	for f, text := range files {
		if err := writeAtomic(filepath.Join(dir, f), []byte(text)); err != nil {
			return nil, err
		}
	}
	bin := filepath.Join(cache, "cmc", "workers", name+"-cover")
	tmp, err := os.CreateTemp(filepath.Dir(bin), filepath.Base(bin)+".*.tmp")
	if err != nil {
		return nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.CommandContext(ctx, "go", "build", "-cover", "-covermode=atomic", "-coverpkg="+strings.Join(names, ","), "-o", tmp.Name(), ".")
	cmd.Dir = filepath.Join(dir, "main")
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: package %s does not build with -cover: %s", ErrBuild, p.ImportPath, compileErrors(strings.TrimSpace(errb.String())))
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return nil, fmt.Errorf("install worker binary: %w", err)
	}
	return &CoverTarget{Bin: bin, Main: mainPath, Packages: pkgs}, nil
}

// cmcModule is cmc's own module: its library is not the user's code, its examples are.
const cmcModule = "github.com/cmc-go/cmc"

// userPackages lists the package and the packages of the same module it depends on, and the
// packages extra names.
func userPackages(ctx context.Context, p *Package, extra []string) (map[string]string, error) {
	pkgs := map[string]string{}
	if len(extra) > 0 {
		cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}", "--"}, extra...)...)
		cmd.Dir = p.Dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%w: -coverpkg %s: %s", ErrBuild, strings.Join(extra, ","), firstLine(errb.String(), err))
		}
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if ip, dir, ok := strings.Cut(l, "\t"); ok {
				pkgs[ip] = dir
			}
		}
	}
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{with .Module}}{{.Dir}}{{end}}", "--", p.ImportPath)
	cmd.Dir = p.Dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: list the packages of %s: %s", ErrBuild, p.ImportPath, firstLine(errb.String(), err))
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 || f[2] != p.Module {
			continue
		}
		ip := f[0]
		if (ip == cmcModule || strings.HasPrefix(ip, cmcModule+"/")) && !strings.HasPrefix(ip, cmcModule+"/examples/") {
			continue
		}
		pkgs[ip] = f[1]
	}
	pkgs[p.ImportPath] = p.Dir
	return pkgs, nil
}

// ReadCoverage reads the snapshots a worker wrote into dir (worker.SnapshotDir): the last one is
// the coverage of the whole check, the others its growth. events are the result's, whose
// handlers get a figure each.
func ReadCoverage(ctx context.Context, dir string, t *CoverTarget, events []engine.EventRuns) (*engine.Coverage, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read coverage: %w", err)
	}
	var snaps []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "t") {
			snaps = append(snaps, e.Name())
		}
	}
	slices.Sort(snaps) // SnapshotDir's names sort by transitions
	if len(snaps) == 0 {
		return nil, fmt.Errorf("read coverage: the worker wrote none into %s", dir)
	}
	tool := covdataTool(ctx)
	// One covdata process per snapshot, a few at a time: starting them is most of the cost.
	profiles := make([][]*cover.Profile, len(snaps))
	errs := make([]error, len(snaps))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, s := range snaps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			profiles[i], errs[i] = covdata(ctx, tool, filepath.Join(dir, s))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c := &engine.Coverage{}
	var last []*cover.Profile
	for i, s := range snaps {
		n, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			continue
		}
		profs := profiles[i]
		covered, lines := 0, 0
		for _, p := range profs {
			if path.Dir(p.FileName) == t.Main {
				continue
			}
			f := fileCoverage(p)
			covered, lines = covered+f.Covered, lines+f.LinesRun
		}
		c.Growth = append(c.Growth, engine.CoveragePoint{Transitions: n, Covered: covered, Lines: lines})
		last = profs
	}
	funcs := map[string][]funcExtent{}
	for _, p := range last {
		if path.Dir(p.FileName) == t.Main {
			continue // the generated main, instrumented only to start the coverage runtime
		}
		f := fileCoverage(p)
		f.File = t.file(p.FileName)
		c.Files = append(c.Files, f)
		c.Statements += f.Statements
		c.Covered += f.Covered
		if ext, err := functions(f.File); err == nil {
			funcs[f.File] = ext
		}
	}
	slices.SortFunc(c.Files, func(a, b engine.FileCoverage) int { return strings.Compare(a.File, b.File) })
	for _, ev := range events {
		if h, ok := handlerCoverage(ev, c.Files, funcs); ok {
			c.Handlers = append(c.Handlers, h)
		}
	}
	return c, nil
}

// covdataTool is the command that runs go tool covdata: its binary, which go tool -n names,
// when it is there (the go command takes longer to start than covdata takes to run).
func covdataTool(ctx context.Context) []string {
	out, err := exec.CommandContext(ctx, "go", "tool", "-n", "covdata").Output()
	if bin := strings.TrimSpace(string(out)); err == nil && bin != "" {
		if _, err := os.Stat(bin); err == nil {
			return []string{bin}
		}
	}
	return []string{"go", "tool", "covdata"}
}

// covdata converts one snapshot to a text profile with go tool covdata and parses it.
func covdata(ctx context.Context, tool []string, dir string) ([]*cover.Profile, error) {
	out := filepath.Join(dir, "profile.txt")
	cmd := exec.CommandContext(ctx, tool[0], append(tool[1:], "textfmt", "-i="+dir, "-o="+out)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("read coverage with go tool covdata: %s", firstLine(string(b), err))
	}
	profs, err := cover.ParseProfiles(out)
	if err != nil {
		return nil, fmt.Errorf("read coverage profile: %w", err)
	}
	return profs, nil
}

// file turns a profile's file name (import path/file.go) into the file's path.
func (t *CoverTarget) file(name string) string {
	if d, ok := t.Packages[path.Dir(name)]; ok {
		return filepath.Join(d, path.Base(name))
	}
	return name
}

// fileCoverage counts a profile's statements and lines. A line counts once, as covered when a
// covered block spans it (a line can hold the end of one block and the start of another).
func fileCoverage(p *cover.Profile) engine.FileCoverage {
	f := engine.FileCoverage{File: p.FileName}
	lines := map[int]bool{}
	for _, b := range p.Blocks {
		run := b.Count > 0
		f.Statements += b.NumStmt
		if run {
			f.Covered += b.NumStmt
		}
		f.Blocks = append(f.Blocks, engine.CoverBlock{StartLine: b.StartLine, StartCol: b.StartCol,
			EndLine: b.EndLine, EndCol: b.EndCol, Stmts: b.NumStmt, Covered: run})
		if b.NumStmt == 0 {
			continue
		}
		for l := b.StartLine; l <= b.EndLine; l++ {
			lines[l] = lines[l] || run
		}
	}
	f.Lines = len(lines)
	for _, run := range lines {
		if run {
			f.LinesRun++
		}
	}
	return f
}

// A funcExtent is where one function or function literal starts and ends.
type funcExtent struct{ first, firstCol, last, lastCol int }

// holds reports whether block b lies inside the function.
func (fe funcExtent) holds(b engine.CoverBlock) bool {
	after := b.StartLine > fe.first || b.StartLine == fe.first && b.StartCol >= fe.firstCol
	before := b.EndLine < fe.last || b.EndLine == fe.last && b.EndCol <= fe.lastCol
	return after && before
}

// functions lists the functions of a Go file, as go tool cover -func finds them, and the
// function literals, since a handler may be one.
func functions(file string) ([]funcExtent, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []funcExtent
	ast.Inspect(f, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			from, to := fset.Position(n.Pos()), fset.Position(n.End())
			out = append(out, funcExtent{from.Line, from.Column, to.Line, to.Column})
		}
		return true
	})
	return out, nil
}

// handlerCoverage is the coverage of the function an event's handler is: the first function that
// starts on the handler's line (the runtime's entry line; in p.On("e", func() {...},
// cmc.When(func() bool {...})) on one line, the handler comes first), else the innermost that
// holds it.
func handlerCoverage(ev engine.EventRuns, files []engine.FileCoverage, funcs map[string][]funcExtent) (engine.HandlerCoverage, bool) {
	site, ok := engine.ParseSite(ev.Site)
	if !ok {
		return engine.HandlerCoverage{}, false
	}
	var best *funcExtent
	for i, fe := range funcs[site.File] {
		if fe.first > site.Line || fe.last < site.Line {
			continue
		}
		starts, bestStarts := fe.first == site.Line, best != nil && best.first == site.Line
		switch {
		case best == nil, starts && !bestStarts,
			starts && bestStarts && fe.firstCol < best.firstCol,
			!starts && !bestStarts && (fe.first > best.first || fe.first == best.first && fe.firstCol > best.firstCol):
			best = &funcs[site.File][i]
		}
	}
	if best == nil {
		return engine.HandlerCoverage{}, false
	}
	h := engine.HandlerCoverage{Event: ev.Event, File: site.File, FirstLine: best.first, LastLine: best.last, Runs: ev.Runs}
	for _, f := range files {
		if f.File != site.File {
			continue
		}
		for _, b := range f.Blocks {
			if best.holds(b) {
				h.Statements += b.Stmts
				if b.Covered {
					h.Covered += b.Stmts
				}
			}
		}
	}
	return h, true
}

func checkCover(ctx context.Context, t *CoverTarget, req *worker.Request, progress func(engine.Progress), out Output) (*engine.Result, error) {
	dir, err := os.MkdirTemp("", "cmc-cover-*")
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	defer os.RemoveAll(dir)
	opts := *req.Check
	opts.CoverDir = dir
	r := *req
	r.Check = &opts
	// The coverage runtime writes the counters again when the worker exits, into GOCOVERDIR (it
	// warns on the model's stderr without one); the snapshots are in subdirectories.
	res, err := checkEnv(ctx, t.Bin, []string{"GOCOVERDIR=" + dir}, &r, progress, out)
	if err != nil {
		return nil, err
	}
	// The worker has exited (Check closes it): every snapshot is complete. After a hang or a
	// crash, the search that traced it wrote its snapshots up to that transition.
	if res.Coverage, err = ReadCoverage(ctx, dir, t, res.Events); err != nil {
		return nil, err
	}
	return res, nil
}

// CheckCover is Check in a worker that measures coverage (BuildCover): the result carries it.
func CheckCover(ctx context.Context, t *CoverTarget, req *worker.Request, progress func(engine.Progress), out Output) (*engine.Result, error) {
	if req.Check == nil {
		req.Check = &worker.CheckOptions{}
	}
	return checkCover(ctx, t, req, progress, out)
}
