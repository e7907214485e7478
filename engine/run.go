package engine

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
)

// RunOptions configure Run.
type RunOptions struct {
	// Inventory is the grid; nil loads ./sites.toml or the embedded local grid.
	Inventory *inventory.Inventory
	// Workers are live workers to reuse (started with deploy.BootFor of
	// RunID and Secret); nil: Run starts the job's workers and stops them
	// when it ends. A lost worker of Workers is replaced like any
	// (docs/FAILURES.md): by a spare among Workers or a new worker on its
	// host, started with the same boot; OnWorkers is then told the whole
	// new list, and the caller stops the new workers as it does its own.
	Workers []*deploy.Worker
	RunID   [16]byte
	Secret  []byte
	// OnSnapshot receives the run's telemetry, at most 10 times a second.
	OnSnapshot func(Snapshot)
	// OnLog receives event-log lines (routes, fallbacks, failures).
	OnLog func(solve.LogEvent)
	// StoreDir overrides the results store's directory ("" = the default).
	StoreDir string
	// Deploy tunes the starting of workers (events, timeouts).
	Deploy deploy.Options
	// NoRecord skips appending the run to the results store.
	NoRecord bool
	// OnWorkers, if set, is told the workers Run started (PIDs for the
	// console, or for tests that signal them).
	OnWorkers func([]*deploy.Worker)
	// GatherLimit is the largest solution, in bytes, gathered in the
	// console's memory; a larger one is gathered to a file in the job's
	// output directory, piece by piece, and neither assembled nor checked.
	// 0: a third of the console's available memory.
	GatherLimit uint64
	// Resume is the id of a run to continue from its checkpoints (its
	// manifest in the data directory, resume.go) rather than start
	// afresh; the spec must be the run's job.
	Resume string
	// Control, if set, takes requests while the run runs (Control.Drain).
	Control *Control
	// FirstCheckpoint is, under the default interval, how long into the
	// run a part takes its first checkpoint (0: solve.FirstCheckpointAfter).
	FirstCheckpoint time.Duration
}

// ErrNotEnoughNodes is wrapped when the job asks for more nodes than have a
// live worker.
var ErrNotEnoughNodes = errors.New("engine: not enough nodes")

// notEnoughNodes reads as its plan error alone (which already says what is
// missing) while matching both ErrNotEnoughNodes and ErrPlan.
type notEnoughNodes struct{ err error }

func (e notEnoughNodes) Error() string   { return e.err.Error() }
func (e notEnoughNodes) Unwrap() []error { return []error{ErrNotEnoughNodes, e.err} }

// Run is the submitter (GRIDHPC Sec. V-B, the thirteen steps): it defines
// the task, collects free nodes (starting workers when none are given),
// checks there are enough before anything starts, plans, sends the
// sub-tasks to the coordinators, follows the telemetry they aggregate,
// gathers the results, assembles the solution, measures its true residual
// and the application's own checks, writes outputs, records the run and returns the
// report. Cancelling ctx aborts the run cleanly everywhere; a failed run
// returns its report (Outcome "failed") and an error naming the node.
func Run(ctx context.Context, spec jobs.Spec, opt RunOptions) (*Report, error) {
	inv := opt.Inventory
	if inv == nil {
		var err error
		if inv, err = inventory.Load(""); err != nil {
			return nil, err
		}
	}
	in := spec // as given: a manifest records it, a resume compares with it
	spec, err := admit(spec, inv)
	if err != nil {
		return nil, err
	}
	// Where the solution goes is checked before any worker starts: a run
	// is not computed to be lost at its end.
	if err := spec.Output.Check(); err != nil {
		return nil, err
	}
	logf := func(node, format string, args ...any) {
		if opt.OnLog != nil {
			opt.OnLog(solve.LogEvent{At: time.Now(), Node: node, Text: fmt.Sprintf(format, args...)})
		}
	}
	pspec, res := spec, (*resumeState)(nil) // pspec: the spec the nodes are planned from
	if opt.Resume != "" {
		if res, err = prepareResume(in, opt, logf); err != nil {
			return nil, err
		}
		if pspec, err = res.planSpec(spec, inv); err != nil {
			return nil, err
		}
	}
	workers := opt.Workers
	var lost map[string]bool    // workers to kill without waiting on them
	var silent string           // the lost one named for its silence, if any
	var spares []inventory.Host // started beside the job's nodes, idle until a loss
	if workers == nil {
		hosts, err := jobHosts(pspec, inv)
		if err != nil {
			return nil, err
		}
		spares = spareHosts(inv, hosts, spec.Resilience.Spares)
		hosts = append(hosts, spares...)
		opt.RunID, opt.Secret = deploy.NewRunSecret()
		logf("", "starting %d %s", len(hosts), plural(len(hosts), "worker", "workers"))
		// Starting counts against the wall time: a batch site's allocation
		// that is not granted within it fails the run, naming the site.
		startCtx, cancelStart := ctx, context.CancelFunc(func() {})
		if spec.WallTime > 0 {
			startCtx, cancelStart = context.WithTimeout(ctx, spec.WallTime)
		}
		opt.Deploy.Events = wallTimeEvents(logPending(opt.Deploy.Events, logf), startCtx, spec.WallTime)
		workers, err = deploy.StartWorkers(startCtx, inv, hosts, deploy.BootFor(opt.RunID, opt.Secret), opt.Deploy)
		cancelStart()
		if err != nil && ranOut(startCtx, ctx) {
			return nil, &StartTimeError{WallTime: spec.WallTime, Hosts: len(hosts), Err: err}
		}
		if err != nil {
			return nil, fmt.Errorf("engine: start workers: %w", err)
		}
		defer func() { stopWorkers(workers, lost, silent) }()
		if opt.OnWorkers != nil {
			opt.OnWorkers(workers)
		}
	}
	nodes := liveNodes(withoutHosts(workers, spares))
	plan, err := planJob(pspec, withHelloCores(inv, workers), nodes)
	if err != nil {
		return nil, err
	}
	for _, w := range plan.Warnings {
		logf("", "%s", w)
	}
	if err := checkNodeMemory(plan, workers); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	gws, err := startGateways(ctx, inv, plan.Ranks, workers, opt)
	if err != nil {
		return nil, err
	}
	defer stopGateways(gws, nil)
	for _, g := range gws {
		logf("", "gateway %s of site %s on %s, port %d", g.Name, g.Site, g.Host.Name, g.Port)
		for _, o := range gws {
			if why, ok := g.tunneled[o.Name]; ok && g.ID < o.ID {
				logf("", "gateways %s ↔ %s linked via SSH tunnel: %s", g.Name, o.Name, why)
			}
		}
	}
	s, err := newSubmission(spec, plan, workers, opt, logf)
	if err != nil {
		return nil, err
	}
	s.inventory = InventoryKey(inv)
	s.inv, s.gateways = inv, gws
	rc := &recoverer{spec: spec, inv: inv, opt: opt, workers: &workers}
	if opt.Workers == nil {
		s.joins = newJoining(ctx, inv, opt, &workers)
	}
	rc.dir, rc.why = checkpointDir(spec, hostsOf(workers), opt)
	rc.memory = rc.why == ""
	if rc.dir != "" || rc.memory {
		rc.key = checkpointKey(spec.Name, s.run)
		s.ckptKey = rc.key
		s.ckpt = rc.plan(solve.CheckpointPlan{})
	}
	man := startManifest(in, s, rc, res, workers)
	rep, runErr := s.execute(ctx)
	s, rep, runErr = rc.attempts(ctx, s, rep, runErr)
	s.joins.finish()
	man.end(s, rep, runErr)
	lost, silent = s.lostNodes(), s.silentNode()
	if gws != nil {
		// Stopped gateways print their last counters as they exit.
		stopGateways(gws, lost)
		rep.Gateways = gatewayReports(gws)
	}
	if rerr := finishReport(rep, s, opt); rerr != nil && runErr == nil {
		runErr = rerr
	}
	return rep, runErr
}

// logPending passes events on to next and puts each new pending status of
// a batch allocation (the scheduler's reason and queue position) in the
// run's event log, once for all the hosts it holds: the console's and the
// headless run's way of showing why the run has not started; and every
// decision of a desktop's owner policy (deploy.PhaseOwner) with its reason.
func logPending(next func(deploy.Event), logf func(node, format string, args ...any)) func(deploy.Event) {
	var mu sync.Mutex
	last := ""
	return func(e deploy.Event) {
		if e.Phase == deploy.PhasePending {
			mu.Lock()
			news := e.Detail != last
			last = e.Detail
			mu.Unlock()
			if news {
				logf("", "allocation pending: %s", e.Detail)
			}
		}
		if e.Phase == deploy.PhaseOwner { // a desktop's owner policy: every decision, with its reason
			logf(e.Host, "owner policy: %s", e.Detail)
		}
		if next != nil {
			next(e)
		}
	}
}

// jobHosts picks the inventory hosts to start workers on, refusing up front
// a job that asks for more nodes than the inventory has.
func jobHosts(spec jobs.Spec, inv *inventory.Inventory) ([]inventory.Host, error) {
	all := inv.Hosts()
	nodes := make([]probe.Node, len(all))
	byName := map[string]inventory.Host{}
	nodeOf := map[string]probe.Node{}
	for i, h := range all {
		nodes[i] = grid.NodeOf(h, deploy.Hello{})
		byName[h.Name], nodeOf[h.Name] = h, nodes[i]
	}
	names, err := selectNodes(spec, inv, nodes)
	if err != nil {
		return nil, notEnoughNodes{err}
	}
	hosts := make([]inventory.Host, len(names))
	sel := make([]probe.Node, len(names))
	for i, n := range names {
		hosts[i] = byName[n]
		sel[i] = nodeOf[n]
	}
	if err := defineEarly(spec, inv, names, sel); err != nil {
		return nil, err
	}
	return hosts, nil
}

// defineEarly has the application define the task on the selected nodes
// before any worker starts, as planJob does again once they have (from the
// inventory too: names, clusters, cores): a decomposition the application
// refuses (Poisson blocks that do not make one block per node, an exec job
// with fewer items than nodes, a sparse matrix that cannot be read, or an
// asynchronous job on one it does not converge on) fails
// the run at once, not after the workers started or a batch allocation
// waited in its queue.
func defineEarly(spec jobs.Spec, inv *inventory.Inventory, names []string, sel []probe.Node) error {
	p := &Plan{Ranks: names}
	if err := p.planCores(spec, inv); err != nil {
		return err
	}
	if err := p.planTask(spec, sel); err != nil {
		return err
	}
	if spec.Scheme == jobs.Asynchronous {
		// Every link is asynchronous whatever the routes: the application
		// may refuse that now (a sparse matrix that is not diagonally
		// dominant). A hybrid job's modes wait for the live Htable.
		p.Modes = []rmnp.Mode{rmnp.Async}
		return p.checkScheme(spec)
	}
	return nil
}

// liveNodes describes the workers that are still running for the Htable
// (grid.NodeOf: local-grid nodes by their inventory addresses, real hosts by
// the NICs their hello reported).
func liveNodes(workers []*deploy.Worker) []probe.Node {
	var out []probe.Node
	for _, w := range workers {
		if w.Err() != nil {
			continue
		}
		select {
		case <-w.Done():
			continue
		default:
		}
		out = append(out, grid.NodeOf(w.Host, w.Hello))
	}
	return out
}

// dialAddr maps a route's address of node (an IP, or the Unix placeholder)
// to the rmnp address the node's data endpoint listens on.
func dialAddr(r probe.Route, ip string, data []string) (string, error) {
	if r.Network == probe.Unix || strings.HasPrefix(ip, probe.UnixPrefix) {
		for _, a := range data {
			if strings.HasPrefix(a, "unix://") {
				return a, nil
			}
		}
		return "", fmt.Errorf("no unix socket among %v", data)
	}
	want, err := netip.ParseAddr(ip)
	if err != nil {
		return "", fmt.Errorf("route address %q: %w", ip, err)
	}
	for _, a := range data {
		if hp, ok := strings.CutPrefix(a, "tcp://"); ok {
			if ap, err := netip.ParseAddrPort(hp); err == nil && ap.Addr().Unmap() == want.Unmap() {
				return a, nil
			}
		}
	}
	return "", fmt.Errorf("no listen address on %s among %v", ip, data)
}

// Bounds on stopping the workers Run started.
const (
	// stopTimeout bounds the stop of a worker that answers: it exits when
	// its stdin closes, or deploy kills it after Options.StopTimeout.
	stopTimeout = 20 * time.Second
	// lostStopTimeout bounds the wait for a worker known lost (hung,
	// stopped, cut off) to be gone after it is killed: a cut-off SSH host
	// cannot confirm its session's end before its TCP connection times out.
	lostStopTimeout = 3 * time.Second
	// dumpWait bounds the wait for a silent local worker's goroutine
	// stacks (SIGQUIT): milliseconds when it is hung but scheduled.
	dumpWait = 2 * time.Second
)

// stopWorkers stops workers in parallel. Those in lost cannot answer the
// closing of their stdin: they are killed at once and waited for at most
// lostStopTimeout, so that the report of a run that lost a host comes
// seconds after the detection, not after the host's stop timeout. The
// worker of node silent (named for its silence), when it is a local
// process still running, is first asked for its goroutine stacks, which
// land in its log: what it was doing when it fell silent.
func stopWorkers(workers []*deploy.Worker, lost map[string]bool, silent string) {
	var wg sync.WaitGroup
	for _, w := range workers {
		if lost[w.Host.Name] {
			wg.Go(func() {
				if silent != "" && w.Host.Name == silent {
					w.DumpStacks(dumpWait)
				}
				stopLost(w)
			})
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
			defer cancel()
			w.Stop(ctx)
		})
	}
	wg.Wait()
}

// lostLinger holds back the kill of a lost worker: tests make it linger as
// a stopped process on a crowded host does, gone seconds after SIGKILL.
var lostLinger time.Duration

// stopLost kills a lost worker (Stop with an ended context closes its stdin
// and kills it without waiting) and waits at most lostStopTimeout for it to
// end. Stop runs on its own: on a cut-off host even closing the
// session may block until its connection times out. A local worker seen
// ended when SIGKILL was sent to it (deploy's kill watch) is then waited
// for until its process is gone, at most stopTimeout: on a crowded host its
// last threads may wait seconds to be scheduled for their exit.
func stopLost(w *deploy.Worker) {
	time.Sleep(lostLinger)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	go w.Stop(ctx)
	t := time.NewTimer(lostStopTimeout)
	defer t.Stop()
	select {
	case <-w.Done():
	case <-t.C:
		return
	}
	g := time.NewTimer(stopTimeout)
	defer g.Stop()
	select {
	case <-w.Gone():
	case <-g.C:
	}
}

// withHelloCores returns inv with every host the inventory gives no core
// count (cores omitted: all the host has) given the cores its worker's
// hello reported, so that a job of cores = 0 (each host's cores) runs on
// all of them rather than on one. inv itself is left as it is.
func withHelloCores(inv *inventory.Inventory, workers []*deploy.Worker) *inventory.Inventory {
	if inv == nil {
		return nil
	}
	hello := map[string]int{}
	for _, w := range workers {
		if w != nil && w.Hello.Cores > 0 {
			hello[w.Host.Name] = w.Hello.Cores
		}
	}
	out := *inv
	out.Sites = slices.Clone(inv.Sites)
	for i, s := range out.Sites {
		s.Clusters = slices.Clone(s.Clusters)
		for j, c := range s.Clusters {
			c.Hosts = slices.Clone(c.Hosts)
			for k, h := range c.Hosts {
				if h.Cores == 0 && hello[h.Name] > 0 {
					c.Hosts[k].Cores = hello[h.Name]
				}
			}
			s.Clusters[j] = c
		}
		out.Sites[i] = s
	}
	return &out
}
