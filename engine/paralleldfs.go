package engine

import "runtime"

// Parallel depth-first search. Every state a depth-first search pushes onto its stack is expanded
// exactly once, when it is popped, and what expanding it finds depends only on the state: so the
// workers of the parallel breadth-first search (parallel.go) can expand the states waiting on the
// stack ahead of time, nearest the top first, each into a chunk of one state. When the search pops
// a state, it merges that state's chunk, record by record, as the sequential search would have
// gone (visited set, trail, counts, reports, bounds), then pushes the new successors; a state no
// worker has taken, it expands itself. The visited set only grows, so a successor a worker found
// already visited is still visited at the merge, and one it found new is looked up again there:
// the result is the sequential search's, whatever the scheduling (TestParallelSameResult).
//
// Chunks wait, expanded, until their state is popped: their number is bounded (maxAhead), and
// only those not yet expanded count against the workers' window, so the top of the stack is
// always handed out first.
type ahead struct {
	p       *parallel
	chunks  map[int32]*chunk // by trail index: the stack's states handed to workers
	busy    []*chunk         // handed out, not known to be expanded yet
	running bool             // Options.Concurrent(true) was said
}

// maxAhead bounds the chunks expanded ahead of the search, waiting for their state to be popped.
const maxAhead = 4096

// ahead returns the depth-first search's workers, or nil when the options rule them out.
func (p *parallel) ahead() *ahead {
	if p == nil {
		return nil
	}
	p.inOrder = false
	return &ahead{p: p, chunks: make(map[int32]*chunk)}
}

// issue hands the states nearest the top of the stack to idle workers.
func (a *ahead) issue(stack *frontier) {
	if a == nil || !a.p.use(minParallelLevel) { // a stack of any size: its states wait long
		return
	}
	if c := a.p.s.opts.Concurrent; c != nil && !a.running {
		c(true)
	}
	a.running = true
	a.collect()
	p, s := a.p, a.p.s
	// Look no deeper than a few windows: states further down wait long, and a scan of the whole
	// stack at every pop would cost more than it saves.
	for j := stack.len() - 1; j >= max(0, stack.len()-8*p.window()) && len(a.busy) < p.window() && len(a.chunks) < maxAhead; j-- {
		idx, depth, st := stack.at(j)
		if _, ok := a.chunks[idx]; ok || s.opts.MaxDepth > 0 && depth >= s.opts.MaxDepth {
			continue
		}
		c := p.chunk()
		c.idx = append(c.idx, idx)
		c.ids = append(c.ids, st...)
		a.chunks[idx] = c
		a.busy = append(a.busy, c)
		p.todo <- c
	}
}

// collect notes the chunks the workers have finished, without waiting.
func (a *ahead) collect() {
	busy := a.busy[:0]
	for _, c := range a.busy {
		select {
		case <-c.done:
		default:
			busy = append(busy, c)
		}
	}
	clear(a.busy[len(busy):])
	a.busy = busy
}

// expand merges a worker's expansion of the state at trail index idx, if a worker took it, into
// succ. It reports whether it did; if not, the search expands the state itself.
func (a *ahead) expand(idx int32, depth int, stack, succ *frontier) (bool, error) {
	if a == nil {
		return false, nil
	}
	c, ok := a.chunks[idx]
	if !ok {
		return false, nil
	}
	delete(a.chunks, idx)
	if i := indexOf(a.busy, c); i >= 0 {
		<-c.done
		a.busy = append(a.busy[:i], a.busy[i+1:]...)
	}
	p, s := a.p, a.p.s
	p.exit = Position{State: -1}
	_, redo, err := p.merge(c, depth, succ.push, func(int) int { return stack.len() + succ.len() }) // s.stop says if it stopped
	p.spare = append(p.spare, c)
	if s.visited.retired != nil { // the table grew: free the old one once no worker reads it
		a.wait()
		s.visited.settle()
	}
	switch {
	case p.exit.State >= 0:
		// As parallel.level: the model's code called runtime.Goexit where the sequential search
		// would have run it.
		a.stop()
		s.begin(p.exit)
		runtime.Goexit()
	case err != nil:
		return true, err
	case redo:
		// A capture met a package-level variable: from this state on, one instance.
		p.off = true
		a.stop()
		return false, nil
	}
	return true, nil
}

// wait waits for the workers to finish the chunks they hold.
func (a *ahead) wait() {
	for _, c := range a.busy {
		<-c.done
	}
	clear(a.busy)
	a.busy = a.busy[:0]
}

// stop ends the expansions ahead: the workers leave what they hold, and the chunks are dropped.
func (a *ahead) stop() {
	if a == nil || !a.running {
		return
	}
	a.p.halt.Store(true)
	a.wait()
	a.p.halt.Store(false)
	clear(a.chunks)
	a.p.s.visited.settle()
	if c := a.p.s.opts.Concurrent; c != nil {
		c(false)
	}
	a.running = false
}

func indexOf(cs []*chunk, c *chunk) int {
	for i, x := range cs {
		if x == c {
			return i
		}
	}
	return -1
}
