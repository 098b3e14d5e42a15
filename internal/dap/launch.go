package dap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/coord"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
	"github.com/cmc-go/cmc/worker"
	"github.com/google/go-dap"
)

// Launching either opens a stored trace ("trace") or checks a model (building the user's
// package into a worker: user code never runs inside cmcdap) and stops on the violation it
// finds. Everything slow runs off the session goroutine, so cancel and disconnect work during a
// build; the launch response comes when the configuration is known to be good, so a bad model
// name or parameter is an error on the launch request itself.

// A build is the user's package built into a worker binary.
type build struct {
	pkg *coord.Package
	bin string
}

// prepared is what a launch found out before the session can use it.
type prepared struct {
	db     *store.Store
	build  *build
	pkg    *coord.Package
	model  string
	params map[string]string
	from   *engine.Trace // check from a bookmarked state: this trace's first fromSteps steps
	steps  int
	tr     *trace // open this stored trace
}

func (s *Session) onLaunch(req *dap.LaunchRequest) {
	if s.launch != nil {
		s.sendError(&req.Request, errLaunch, "launch: this session has launched already; start a new session")
		return
	}
	c, warnings, err := parseLaunch(req.Arguments, s.cfg.Dir)
	if err != nil {
		s.sendError(&req.Request, errLaunch, err.Error())
		return
	}
	for _, w := range warnings {
		s.output("console", w+"\n")
	}
	s.launch = c
	s.relaunch(&req.Request, c)
}

// relaunch prepares c in the background, then answers req and starts the session's work.
func (s *Session) relaunch(req *dap.Request, c *launchConfig) {
	ctx := s.startOp(context.Background(), "", req.Seq)
	go func() {
		p, err := s.prepare(ctx, c)
		if !s.post(func() { s.launched(req, c, p, err) }) && p != nil && p.db != nil {
			p.db.Close() // the session ended meanwhile
		}
	}()
}

func (s *Session) launched(req *dap.Request, c *launchConfig, p *prepared, err error) {
	s.endOp()
	if err != nil {
		if p != nil && p.db != nil && p.db != s.db {
			p.db.Close()
		}
		if req.Command == "launch" {
			s.launch = nil
		}
		s.sendError(req, errLaunch, err.Error())
		return
	}
	if s.db != nil && s.db != p.db {
		s.db.Close()
	}
	s.db, s.build = p.db, p.build
	first := req.Command == "launch"
	if first {
		s.send(&dap.InitializedEvent{Event: event("initialized")})
	}
	s.respondLaunch(req)
	s.openViews(p)
	if p.tr != nil {
		s.show(p.tr)
		s.whenConfigured(func() { s.firstStop(c.StopOnEntry) })
		return
	}
	s.startCheck(c, p)
}

func (s *Session) respondLaunch(req *dap.Request) {
	switch req.Command {
	case "launch":
		s.send(&dap.LaunchResponse{Response: response(req)})
	case "restart":
		s.send(&dap.RestartResponse{Response: response(req)})
	}
}

// prepare opens the store and, to check, builds the package and validates the model, its
// parameters and the bookmark; to open a trace, reads it.
func (s *Session) prepare(ctx context.Context, c *launchConfig) (p *prepared, err error) {
	p = &prepared{model: c.Model, params: c.Params}
	if c.Program != "" {
		if p.pkg, err = resolve(ctx, c); err != nil {
			return p, err
		}
	}
	dbPath := c.DB
	if dbPath == "" {
		dir := c.Cwd
		if p.pkg != nil {
			dir = p.pkg.Module
		}
		dbPath = store.DefaultPath(dir)
	}
	if s.db != nil && s.db.Path() == dbPath {
		p.db = s.db
	} else if p.db, err = store.Open(dbPath); err != nil {
		return p, fmt.Errorf("launch: open the trace database: %w", err)
	}
	if c.Trace != 0 {
		t, _, err := p.db.Trace(c.Trace)
		if err != nil {
			return p, fmt.Errorf(`launch: "trace": %w; the trace list is in the CMC view, or run cmcdap traces`, err)
		}
		p.tr = newTrace(c.Trace, t)
		return p, nil
	}
	if c.Bookmark != "" {
		if err := s.fromBookmark(p, c.Bookmark); err != nil {
			return p, err
		}
	}
	bin, err := coord.Build(ctx, p.pkg)
	if err != nil {
		return p, fmt.Errorf("launch: %w", err)
	}
	p.build = &build{pkg: p.pkg, bin: bin}
	if err := chooseModel(ctx, p, c); err != nil {
		return p, err
	}
	// A check of one state builds the model with these parameters and replays the bookmark's
	// prefix: their errors belong to the launch request.
	dry := &worker.Request{Model: p.model, Params: p.params, Check: &worker.CheckOptions{MaxStates: 1, From: p.from, FromSteps: p.steps}}
	if _, err := coord.Check(ctx, bin, dry, nil, s.modelOutput); err != nil {
		return p, fmt.Errorf("launch: model %s: %w", p.model, err)
	}
	return p, nil
}

// openViews attaches the views server, once, and tells the client where it is.
func (s *Session) openViews(p *prepared) {
	if s.views != nil {
		return
	}
	s.views = s.cfg.Views
	if s.views == nil && s.cfg.OpenViews != nil {
		dir := ""
		if p.pkg != nil {
			dir = p.pkg.Dir
		}
		v, err := s.cfg.OpenViews(s.db, dir, func(id int64, step int) { s.post(func() { s.viewsGoto(id, step) }) })
		if err != nil {
			s.output("stderr", "views: "+err.Error()+"\n")
			return
		}
		s.views = v
	}
	if s.views != nil {
		s.send(&viewsEvent{Event: event("cmc/views"), Body: viewsBody{URL: s.views.URL()}})
	}
}

// viewsGoto goes to a step a click in the views named, opening its trace if needed.
func (s *Session) viewsGoto(id int64, step int) {
	if s.tr == nil || !s.stopped || s.db == nil {
		return
	}
	if s.tr.id != id {
		t, _, err := s.db.Trace(id)
		if err != nil {
			s.output("stderr", fmt.Sprintf("views: open trace %d: %v\n", id, err))
			return
		}
		s.show(newTrace(id, t))
	}
	if err := s.gotoStep(step); err != nil {
		s.output("stderr", "views: "+err.Error()+"\n")
	}
}

// resolve finds the program: a directory (relative to cwd) or an import path.
func resolve(ctx context.Context, c *launchConfig) (*coord.Package, error) {
	dir := abs(c.Cwd, c.Program)
	var pkg *coord.Package
	var err error
	if fi, statErr := os.Stat(dir); statErr == nil && fi.IsDir() {
		pkg, err = coord.Resolve(ctx, dir, ".")
	} else {
		pkg, err = coord.Resolve(ctx, c.Cwd, c.Program)
	}
	if err != nil {
		return nil, fmt.Errorf(`launch: "program": %w`, err)
	}
	return pkg, nil
}

// chooseModel checks the model name against the package's models, or picks its only one.
func chooseModel(ctx context.Context, p *prepared, c *launchConfig) error {
	models, err := coord.Models(ctx, p.build.bin, nil)
	if err != nil {
		return fmt.Errorf("launch: list the models of %s: %w", p.pkg.ImportPath, err)
	}
	switch {
	case len(models) == 0:
		return fmt.Errorf(`launch: package %s registers no model: call cmc.Register(name, build) in an init function`, p.pkg.ImportPath)
	case p.model == "" && len(models) == 1:
		p.model = models[0]
	case p.model == "":
		return fmt.Errorf(`launch: "model" is missing: package %s has %s`, p.pkg.ImportPath, strings.Join(models, ", "))
	case !contains(models, p.model):
		return fmt.Errorf(`launch: "model" must be one of %s, not %q`, strings.Join(models, ", "), p.model)
	}
	return nil
}

// fromBookmark sets the check to start from a bookmarked state; the model and parameters
// default to the bookmarked trace's.
func (s *Session) fromBookmark(p *prepared, name string) error {
	b, err := p.db.BookmarkByName(name)
	if err != nil {
		msg := fmt.Sprintf(`launch: "bookmark": %v`, err)
		if all, lerr := p.db.Bookmarks(); lerr == nil {
			names := make([]string, len(all))
			for i, b := range all {
				names[i] = b.Name
			}
			msg += "; the bookmarks are: " + orNone(strings.Join(names, ", "))
		}
		return errors.New(msg)
	}
	t, _, err := p.db.Trace(b.Trace)
	if err != nil {
		return fmt.Errorf(`launch: "bookmark" %s: %w`, name, err)
	}
	if p.model == "" {
		p.model = t.Model
	} else if p.model != t.Model {
		return fmt.Errorf(`launch: "bookmark" %s is a state of model %s, not of %s`, name, t.Model, p.model)
	}
	if p.params == nil {
		p.params = t.Params
	}
	if b.Step > 0 { // from step 0 is from the initial state: no prefix
		p.from, p.steps = t, b.Step
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// show makes a loaded trace the one the session shows.
func (s *Session) show(tr *trace) {
	s.closeTrace()
	s.tr = tr
	s.pos = after(0)
	s.stopped = false
	s.bps.verify(s)
}

// whenConfigured runs f now if configurationDone has arrived, else when it does: breakpoints
// are set by then, so the first stop honours them.
func (s *Session) whenConfigured(f func()) {
	if s.configured {
		f()
		return
	}
	s.pending = f
}

func (s *Session) onConfigurationDone(req *dap.ConfigurationDoneRequest) {
	s.configured = true
	s.send(&dap.ConfigurationDoneResponse{Response: response(&req.Request)})
	if f := s.pending; f != nil {
		s.pending = nil
		f()
	}
}

// firstStop stops where a trace is interesting: on its violation, or at its start.
func (s *Session) firstStop(onEntry bool) {
	v := s.tr.t.Violation
	switch {
	case onEntry || v == nil:
		s.stopAt(after(0), "entry", "", nil)
	default:
		s.stopAt(s.tr.end(), "exception", tracefmt.Violation(v), nil)
	}
}

// restart re-checks (the code may have changed) or, for a stored trace, goes back to its start.
func (s *Session) onRestart(req *dap.RestartRequest) {
	if s.launch == nil {
		s.sendError(&req.Request, errLaunch, "restart: nothing was launched")
		return
	}
	c := s.launch
	if len(req.Arguments) > 0 {
		var args struct{ Arguments json.RawMessage }
		if err := json.Unmarshal(req.Arguments, &args); err == nil && len(args.Arguments) > 0 {
			nc, warnings, err := parseLaunch(args.Arguments, s.cfg.Dir)
			if err != nil {
				s.sendError(&req.Request, errLaunch, err.Error())
				return
			}
			for _, w := range warnings {
				s.output("console", w+"\n")
			}
			c = nc
		}
	}
	s.launch = c
	if run := s.check; run != nil { // replaced: its end must not end the session
		s.check = nil
		s.progressEnd(run, "restarted")
	}
	if c.Trace != 0 && s.tr != nil && s.tr.id == c.Trace {
		s.send(&dap.RestartResponse{Response: response(&req.Request)})
		s.stopAt(after(0), "entry", "", nil)
		return
	}
	s.closeTrace()
	s.stopped = false
	s.relaunch(&req.Request, c)
}

func (s *Session) onDisconnect(req *dap.DisconnectRequest) {
	s.interrupt()
	s.send(&dap.DisconnectResponse{Response: response(&req.Request)})
	s.quit = true
}

func (s *Session) onTerminate(req *dap.TerminateRequest) {
	s.interrupt()
	s.send(&dap.TerminateResponse{Response: response(&req.Request)})
	s.terminated()
}

// terminated tells the client the debuggee is gone: the check ended or was stopped.
func (s *Session) terminated() {
	s.send(&dap.TerminatedEvent{Event: event("terminated")})
}
