package aodv

// Reboot is the node crashing and starting again: it loses everything in memory (the routing
// table, the seen RREQs, its own sequence number and RREQ id; RFC 3561 keeps nothing in stable
// storage) and then waits DELETE_PERIOD before it takes part again (section 6.13).
//
// The wait matters because neighbours may still route through this node: with an empty table it
// would accept any route, even one leading back through them, and a loop would form. The RFC
// argues that after DELETE_PERIOD no neighbour uses the node as a next hop any more. While
// waiting the router sends nothing and, a deliberate departure from section 6.13, learns no
// routes either: the RFC lets a waiting node create routes from the control packets it hears,
// but such a route can point at a neighbour that still routes through this node, a loop the
// RFC's timing only bounds in length, while a loop checker flags it at once. The one thing the
// router does learn is its own sequence number, from RREQs for itself, which carry the largest
// number seen en route; otherwise it restarts from zero, as the RFC says.
//
// On a running clock Tick ends the wait. Under a checker with a constant clock, EndRebootWait is
// the event, and the model should enable it only when the RFC's timing argument holds: no other
// node has a valid route whose next hop is this node, and no message this node sent before
// rebooting is still in flight.
func (r *Router) Reboot() {
	id, cfg, link, clock, alloc := r.id, r.cfg, r.link, r.clock, r.alloc
	*r = Router{id: id, cfg: cfg, link: link, clock: clock, alloc: alloc}
	r.waiting = true
	r.waitEnd = r.now() + r.cfg.DeletePeriod
}

// EndRebootWait ends the wait after a reboot as DELETE_PERIOD running out would, and reports
// whether the router was waiting.
func (r *Router) EndRebootWait() bool {
	was := r.waiting
	r.waiting, r.waitEnd = false, 0
	return was
}

// receiveWhileWaiting handles a message during the wait after a reboot: only an RREQ for this
// node teaches it something, its own sequence number.
func (r *Router) receiveWhileWaiting(m Message) {
	if m.Type == TypeRREQ && m.Dest == r.id && m.Flags&FlagUnknownSeq == 0 && SeqNewer(m.DestSeq, r.seq) {
		r.seq = m.DestSeq
	}
}
