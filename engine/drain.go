package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/internal/checkpoint"
)

// Drain (docs/FAILURES.md): a node leaves a running job on request — its
// owner comes back (the owner policy), an operator frees it — and its part
// moves to a spare of the job, else to a new worker on a host of the
// inventory the job does not use, without losing the run. The submitter
// ends the attempt as for a loss of the node, and the recovery moves the
// part and restarts every part from the checkpoints (a synchronous run
// from the newest iteration every rank has: bit for bit the undisturbed
// run; before the first checkpoint, from the start). The drained node's
// worker is stopped. A drained coordinator's group moves with it, as for
// its loss: its members' parts go to spares or to new workers on their
// own hosts (their workers end with their coordinator's).

// drainCause starts the failure cause of a drained node.
const drainCause = "drained on request"

// ErrDrain is wrapped by a refused drain: no run to drain from, a node
// that holds no part, checkpoints off, recoveries used up.
var ErrDrain = errors.New("engine: cannot drain")

// Control lets a caller act on a run while it runs (RunOptions.Control):
// the console, the command line's control socket, the owner policy.
type Control struct {
	reqs  chan drainReq
	joins chan joinReq // join.go
}

type drainReq struct {
	node, why string
	reply     chan error
}

// NewControl returns a Control for one run at a time.
func NewControl() *Control { return &Control{reqs: make(chan drainReq), joins: make(chan joinReq)} }

// Drain asks the run to move node's part elsewhere and let the node go
// (why says why, for the event log and the report). It returns once the
// run took the request or refused it (ErrDrain), or when ctx ends (no run
// iterating: between two attempts, or over).
func (c *Control) Drain(ctx context.Context, node, why string) error {
	r := drainReq{node: node, why: why, reply: make(chan error, 1)}
	select {
	case c.reqs <- r:
	case <-ctx.Done():
		return fmt.Errorf("%w %s: no run is iterating: %w", ErrDrain, node, ctx.Err())
	}
	select {
	case err := <-r.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// drainReqs is the channel of drain requests (nil: none ever come).
func (s *submission) drainReqs() chan drainReq {
	if s.opt.Control == nil {
		return nil
	}
	return s.opt.Control.reqs
}

// drain takes a drain request: the attempt ends as for a loss of the node,
// which the recovery then moves.
func (s *submission) drain(r drainReq) error {
	switch {
	case !s.inRun(r.node):
		return fmt.Errorf("%w %s: it holds no part of run %s (nodes: %s)", ErrDrain, r.node, s.spec.Name, strings.Join(s.plan.Ranks, ", "))
	case s.ckpt == nil:
		return fmt.Errorf("%w %s: the run has no checkpoints to move its part with", ErrDrain, r.node)
	case checkpoint.Dir{Path: s.ckpt.Dir}.MarkedNone(s.ckptKey):
		return fmt.Errorf("%w %s: the application %s has no checkpoints (gridapp.Checkpointer)", ErrDrain, r.node, s.spec.App)
	case len(s.recoveries) >= s.spec.Resilience.Recoveries():
		return fmt.Errorf("%w %s: %d recoveries already (max_recoveries)", ErrDrain, r.node, len(s.recoveries))
	case !s.placeable(r.node):
		return fmt.Errorf("%w %s: no spare and no free host of the inventory to take its part", ErrDrain, r.node)
	}
	cause := drainCause
	if r.why != "" {
		cause += ": " + r.why
	}
	s.fail(r.node, cause)
	return nil
}

// ownerDrainWhy starts the reason of a drain a node's owner policy asked
// for (msgDrain), after drainCause in the recovery's cause.
const ownerDrainWhy = "owner policy: "

// drainAsked takes a node's own request to be drained (msgDrain: its
// host's owner policy gives its part back) as a drain request; a refused
// one is logged, and the part stays held on its host.
func (s *submission) drainAsked(d worker.DrainRequest) {
	if s.failed != nil {
		return // the attempt is ending anyway
	}
	if err := s.drain(drainReq{node: d.Node, why: ownerDrainWhy + d.Why}); err != nil {
		s.logf(d.Node, "drain asked by the owner policy refused, the part stays held: %v", solve.Bare(err.Error()))
	}
}

// placeable says whether a drained node's parts (its own, and those of
// the other nodes on its host) have somewhere to go: live spares of the
// job, else hosts of the inventory no worker is on (the recovery's choice,
// drainedTo). Refusing here keeps the run going (the parts stay where they
// are) instead of failing it at the recovery.
func (s *submission) placeable(node string) bool {
	if s.inv == nil {
		return true // the recovery decides
	}
	need := 0
	for _, name := range s.plan.Ranks {
		if hostName(name) == hostName(node) {
			need++
		}
	}
	var on []inventory.Host
	for name, w := range s.workers {
		if !s.inRun(name) && !isDone(w) {
			need--
		}
		on = append(on, realHost(w.Host))
	}
	return need <= 0 || len(spareHosts(s.inv, append(on, s.joins.pendingHosts()...), need)) >= need
}

// isDrain reports whether the attempt s ended because a node was drained.
func isDrain(s *submission) bool {
	return s.failed != nil && s.aborted == nil && strings.HasPrefix(s.failed.Cause, drainCause)
}

// freeHost returns a host of the inventory that no worker of the run is
// on, that is not in taken, holds no part of the attempt (ranks), is not
// drained's, and did not refuse a recovery's new worker before: where a drained node's part goes when the job has no
// spare. A second worker's entry ("alpha-1#2") is never one.
func (rc *recoverer) freeHost(taken []inventory.Host, ranks []string, drained string) (inventory.Host, error) {
	used := slices.Concat(hostsOf(*rc.workers), taken)
	for i, h := range used {
		used[i] = realHost(h)
	}
	used = append(used, inventory.Host{Name: hostName(drained)})
	for _, h := range rc.inv.Hosts() {
		if rc.refused[h.Name] || slices.ContainsFunc(ranks, func(r string) bool { return hostName(r) == h.Name }) {
			used = append(used, h)
		}
	}
	free := spareHosts(rc.inv, used, 1)
	if len(free) == 0 {
		return inventory.Host{}, errors.New("no spare and no free host of the inventory to take the drained node's part")
	}
	return free[0], nil
}

// drainedTo places a drained node's part on a new worker of a free host.
func (rc *recoverer) drainedTo(restart []inventory.Host, ranks []string, drained string) (inventory.Host, placement, error) {
	h, err := rc.freeHost(restart, ranks, drained)
	if err != nil {
		return h, placement{}, err
	}
	return h, placement{h.Name, "new worker on a free host"}, nil
}

// withSameHost adds to gone, when the attempt ended on a drain, the other
// nodes of the plan on the drained node's host (a second worker
// "alpha-1#2" beside "alpha-1"): the whole host leaves the run.
func withSameHost(s *submission, gone []string) []string {
	if !isDrain(s) {
		return gone
	}
	for _, name := range s.plan.Ranks {
		if hostName(name) == hostName(s.failed.Node) && !slices.Contains(gone, name) {
			gone = append(gone, lostWith(s, name)...)
		}
	}
	return gone
}
