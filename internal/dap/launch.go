package dap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/natsrun"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/store"
	"github.com/google/go-dap"
)

// Launching either opens a stored trace ("trace") or checks a model (building the user's
// package into a worker: user code never runs inside cmcdap) and stops on the violation it
// finds. Everything slow runs off the session goroutine, so cancel and disconnect work during a
// build; the launch response comes when the configuration is known to be good, so a bad model
// name or parameter is an error on the launch request itself.

// prepared is what a launch found out before the session can use it.
type prepared struct {
	db    *store.Store
	build *service.Program
	pkg   *service.Package
	check *service.Check // the check to run: model, parameters, settings, bookmark
	tr    *trace         // open this stored trace
	meet  *natsrun.Run   // a partitioned check: where its partitions meet
}

// discard lets go of what a launch prepared and the session will not use.
func (p *prepared) discard(s *Session) {
	if p.db != nil && p.db != s.db {
		p.db.Close()
	}
	if p.meet != nil {
		p.meet.End()
	}
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
		if !s.post(func() { s.launched(req, c, p, err) }) && p != nil {
			p.discard(s) // the session ended meanwhile
		}
	}()
}

func (s *Session) launched(req *dap.Request, c *launchConfig, p *prepared, err error) {
	s.endOp()
	if err != nil {
		if p != nil {
			p.discard(s)
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
	if p.pkg != nil {
		s.files.setRoots(c.Cwd, p.pkg.Dir, p.pkg.Module)
	} else {
		s.files.setRoots(c.Cwd, "", "")
	}
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
	p = &prepared{check: &service.Check{Model: c.Model, Params: c.Params, Settings: settings(c)}}
	if c.Program != "" {
		if p.pkg, err = service.Resolve(ctx, c.Cwd, c.Program); err != nil {
			return p, fmt.Errorf(`launch: "program": %w`, err)
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
	if s.db != nil && s.db.Path() == store.Printable(dbPath) {
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
		b, err := service.Bookmark(p.db, c.Bookmark)
		if err != nil {
			return p, fmt.Errorf(`launch: "bookmark": %w`, err)
		}
		if err := p.check.StartFrom(p.db, b); err != nil {
			return p, fmt.Errorf(`launch: "bookmark": %w`, err)
		}
	}
	if p.build, err = service.Build(ctx, p.pkg); err != nil {
		return p, fmt.Errorf("launch: %w", err)
	}
	if p.check.Model, err = p.build.ChooseModel(ctx, p.check.Model, nil); err != nil {
		return p, launchModelError(err)
	}
	// A check of one state builds the model with these parameters and replays the bookmark's
	// prefix: their errors belong to the launch request.
	if err := p.build.Try(ctx, p.check, s.modelOutput); err != nil {
		return p, fmt.Errorf("launch: model %s: %w", p.check.Model, err)
	}
	if c.Partitions > 0 {
		return p, preparePartitions(ctx, c, p)
	}
	return p, nil
}

// launchModelError says why no model could be chosen in the launch configuration's words.
func launchModelError(err error) error {
	var me *service.ModelError
	if !errors.As(err, &me) {
		return fmt.Errorf("launch: %w", err)
	}
	switch me.Kind {
	case service.ModelMissing:
		return fmt.Errorf(`launch: "model" is missing: package %s has %s`, me.Package, strings.Join(me.Models, ", "))
	case service.ModelUnknown:
		return fmt.Errorf(`launch: "model" must be one of %s, not %q`, strings.Join(me.Models, ", "), me.Name)
	}
	return fmt.Errorf("launch: %w", err)
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

// show makes a loaded trace the one the session shows.
func (s *Session) show(tr *trace) {
	s.closeTrace()
	s.tr = tr
	s.pos = engine.After(0)
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
	if onEntry || s.tr.t.Violation == nil {
		s.stopAt(engine.After(0), stop{reason: "entry"})
		return
	}
	s.stopAt(s.tr.t.End(), stop{}) // the violation's step: stopAt says so
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
		s.stopAt(engine.After(0), stop{reason: "entry"})
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
