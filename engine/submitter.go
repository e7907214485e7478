package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
)

// ErrRunFailed is wrapped when a run did not complete: a node failed, the
// wall time passed, or its context ended (then ErrRunAborted is wrapped too).
var ErrRunFailed = errors.New("engine: run failed")

// submission is one run as the submitter follows it.
type submission struct {
	spec    jobs.Spec
	plan    *Plan
	opt     RunOptions
	logf    func(node, format string, args ...any)
	workers map[string]*deploy.Worker
	ctrl    map[string][]string // node → control addresses, Ethernet first
	data    map[string][]string

	run    uint64 // this run's id on the control plane
	ep     *rmnp.Endpoint
	live   *worker.Liveness
	coords map[rmnp.PeerID]string
	// Start-up (heartbeat.go): the top coordinator each node is reached
	// through, how many nodes below each still start, and in all.
	via      map[string]rmnp.PeerID
	starting map[rmnp.PeerID]int
	toStart  int

	start     time.Time
	finished  time.Time // when the last result arrived or the run failed
	statuses  []solve.NodeStatus
	headers   []*worker.ResultHeader
	values    [][]float64
	disk      *diskGather // values gathered to a file, not memory
	got       []int
	dirty     bool
	lastSnap  time.Time
	failed    *worker.Failure
	aborted   *abortError // the run's context ended
	outcome   string
	gainRef   *gainCurve
	inventory string // jobs.RunConfig.Inventory of the run (InventoryKey)
	residuals []jobs.ResidualSample
	inv       *inventory.Inventory
	gateways  map[string]*runGateway // by site, when the run spans sites with gateways
	gwLost    map[string]*runGateway // by site, the gateways lost by earlier attempts (gateway_lost.go)
	// Checkpoints (recovery.go): every part's plan (nil: none), the key of
	// the run's checkpoints, and the losses survived so far.
	ckpt       *solve.CheckpointPlan
	ckptKey    string
	buddies    []string               // by rank: the node holding its copies (buddy.go)
	holders    map[int][]solve.Holder // by rank: where a restore may read its copies
	recordID   string                 // the results store's id of the run, chosen as it started ("" a fresh one)
	recoveries []jobs.Recovery
	joins      *joining // hosts joining the job as spares (join.go); nil: none can
}

func newSubmission(spec jobs.Spec, plan *Plan, workers []*deploy.Worker, opt RunOptions, logf func(string, string, ...any)) (*submission, error) {
	s := &submission{spec: spec, plan: plan, opt: opt, logf: logf,
		workers: map[string]*deploy.Worker{}, ctrl: map[string][]string{}, data: map[string][]string{},
		live: worker.NewHostLiveness(worker.ChildLimits), coords: map[rmnp.PeerID]string{},
		via: map[string]rmnp.PeerID{}, starting: map[rmnp.PeerID]int{}}
	var id [8]byte
	rand.Read(id[:])
	s.run = binary.LittleEndian.Uint64(id[:]) | 1
	for _, w := range workers {
		ctrl, data := worker.SplitListen(w.Hello.Listen)
		if len(ctrl) == 0 {
			return nil, fmt.Errorf("engine: worker %s reported no control address (hello %v)", w.Host.Name, w.Hello.Listen)
		}
		s.workers[w.Host.Name], s.ctrl[w.Host.Name], s.data[w.Host.Name] = w, ctrl, data
	}
	b := len(plan.Ranks)
	s.statuses = make([]solve.NodeStatus, b)
	s.headers = make([]*worker.ResultHeader, b)
	s.got = make([]int, b)
	sizes := make([]int, b)
	for r := range sizes {
		sizes[r] = plan.Task.Parts[r].Size
	}
	var err error
	s.values, s.disk, err = gatherValues(sizes, opt.GatherLimit, spec.Output.Dir, fmt.Sprintf("%s-%016x", spec.Name, s.run))
	if err != nil {
		return nil, err
	}
	for r, name := range plan.Ranks {
		s.statuses[r] = solve.NodeStatus{Node: name, Rank: r, Group: plan.GroupOf(r), State: solve.StateStarting}
		if w := s.workers[name]; w != nil {
			s.statuses[r].Load = w.Hello.Load // until a status brings a fresher one
		}
	}
	return s, nil
}

// tasks builds every rank's workerTask: its part, cores, scheme and its
// neighbours with the candidate routes and the addresses to dial.
func (s *submission) tasks() ([]worker.WorkerTask, error) {
	p := s.plan
	out := make([]worker.WorkerTask, len(p.Ranks))
	parts := solve.PartTasks(s.spec.App, p.Values, p.Task)
	// The job's max_iterations and the application's own limit (its
	// Task.MaxIter) both bound the run: the smaller one wins.
	limit := s.spec.MaxIter
	if m := p.Task.MaxIter; m > 0 && (limit <= 0 || m < limit) {
		limit = m
	}
	for r, name := range p.Ranks {
		out[r] = worker.WorkerTask{Run: s.run, Node: name, Group: p.GroupOf(r), PartTask: parts[r],
			Cores: p.Cores[r], Scheme: s.spec.Scheme, Detector: s.spec.Detector, MaxIter: limit, Checkpoint: s.rankCheckpoint(r)}
	}
	byRank := make([]map[int]*worker.NeighbourTask, len(p.Ranks))
	for r := range byRank {
		byRank[r] = map[int]*worker.NeighbourTask{}
	}
	for e, pair := range p.Edges {
		i, j := pair[0], pair[1]
		lo, hi := p.Ranks[i], p.Ranks[j]
		up := &worker.NeighbourTask{Rank: j, Node: hi, Peer: worker.NodeID(hi), Mode: p.Modes[e], Dial: true}
		var errs []error
		for _, r := range p.Candidates[e] {
			a, err := dialAddr(r, r.BAddr, s.data[hi])
			switch {
			case err != nil && r.Network == probe.Loopback:
				// Workers never listen on loopback (same-host pairs have
				// the unix socket): nothing is wrong, nothing to say.
				continue
			case err != nil:
				// The worker does not listen there (e.g. a NIC its hello
				// listed but it could not bind): try the next network.
				s.logf(hi, "warning: %s ↔ %s: %s", lo, hi, notListening(hi, r, s.data[hi]))
				errs = append(errs, fmt.Errorf("%s: %w", r.Network, err))
				continue
			}
			up.Routes, up.Addrs = append(up.Routes, r), append(up.Addrs, a)
		}
		s.addGatewayRoute(up, lo, hi)
		if len(up.Routes) == 0 {
			return nil, fmt.Errorf("engine: ranks %d (%s) and %d (%s): no network to dial: %w", i, lo, j, hi, errors.Join(errs...))
		}
		byRank[i][j] = up
		byRank[j][i] = &worker.NeighbourTask{Rank: i, Node: lo, Peer: worker.NodeID(lo), Mode: p.Modes[e], Routes: p.Candidates[e][:1]}
		s.logf("", "%s", p.Routes[e].Reason)
	}
	for r := range out {
		for _, q := range p.Task.Parts[r].Neighbours {
			out[r].Neighbours = append(out[r].Neighbours, byRank[r][q])
		}
	}
	return out, nil
}

// notListening says that node's worker does not listen where route r wants
// to reach it, and what the user can check.
func notListening(node string, r probe.Route, listen []string) string {
	what := fmt.Sprintf("its %s address %s", r.Network, r.BAddr)
	if r.Network == probe.Unix {
		what = "a unix socket"
	}
	return fmt.Sprintf("%s does not listen on %s (it listens on %s), so this pair skips %s: "+
		"check that the interface is up with that address on %s, or name the interfaces in sites.toml (ethernet = …, fast = …)",
		node, what, strings.Join(listen, ", "), r.Network, node)
}

// run sends the sub-tasks to the coordinators and follows the run until
// every result is in, a node fails, the wall time passes or ctx ends.
func (s *submission) execute(ctx context.Context) (*Report, error) {
	if s.start.IsZero() { // a recovered attempt counts from the first one
		s.start = time.Now()
	}
	s.gainRef = loadGainCurve(s.opt.StoreDir, s.instance(), s.inventory, s.gridLabel())
	tasks, err := s.tasks()
	if err != nil {
		return s.report(), err
	}
	cfg := rmnp.DefaultConfig()
	cfg.RunID, cfg.Secret, cfg.Self = s.opt.RunID, s.opt.Secret, worker.SubmitterID
	if s.ep, err = rmnp.Listen(ctx, cfg); err != nil {
		return s.report(), fmt.Errorf("engine: submitter endpoint: %w", err)
	}
	defer s.ep.Close()
	s.live.HeardBy(s.ep)
	worker.YieldMembers(s.plan.Groups, s.workers)
	if err := s.assign(ctx, tasks); err != nil {
		if ctx.Err() != nil {
			s.abort(ctx) // not the coordinator's fault
		} else {
			s.fail(err.node, err.cause)
		}
		s.end(worker.MsgAbort, s.failed.Cause, nil)
		return s.report(), s.err()
	}
	msgs := make(chan inbound, 256)
	rctx, stopRecv := context.WithCancel(ctx)
	defer stopRecv()
	go s.recvLoop(rctx, msgs)
	s.follow(ctx, msgs)
	return s.report(), s.err()
}

type assignError struct{ node, cause string }

// assign is "send sub-tasks": connect to the coordinators of the top level
// of the hierarchy (assignWidth at a time) and send each its group's
// members and tasks, and the assignments of the coordinators below it.
func (s *submission) assign(ctx context.Context, tasks []worker.WorkerTask) *assignError {
	byNode := map[string]worker.WorkerTask{}
	for _, t := range tasks {
		byNode[t.Node] = t
	}
	base := map[string]*worker.GroupAssign{}
	for gi, grp := range s.plan.Groups {
		a := &worker.GroupAssign{Run: s.run, Group: gi, Coordinator: grp.Coordinator}
		for _, w := range grp.Workers {
			a.Members = append(a.Members, worker.Member{Node: w, Peer: worker.NodeID(w), Ctrl: s.ctrl[w], Task: byNode[w]})
		}
		base[grp.Coordinator] = a
	}
	levels := s.plan.Levels
	if levels == nil {
		levels = worker.Levels(s.plan.Groups)
	}
	top := worker.Assignments(levels, base, s.ctrl)
	dialErr := make([]error, len(top))
	var g errgroup.Group
	g.SetLimit(worker.AssignWidth)
	for i, a := range top {
		g.Go(func() error {
			_, dialErr[i] = worker.ConnectCtrl(ctx, s.ep, worker.NodeID(a.Coordinator), s.ctrl[a.Coordinator])
			return nil
		})
	}
	g.Wait()
	for i, a := range top {
		if err := dialErr[i]; err != nil {
			return &assignError{a.Coordinator, fmt.Sprintf("coordinator unreachable at %v: %v", s.ctrl[a.Coordinator], err)}
		}
		id := worker.NodeID(a.Coordinator)
		s.coords[id] = a.Coordinator
		s.live.WatchStarting(id, a.Coordinator, worker.ChildLimits)
		a.Subtree(func(m worker.Member, _ int) {
			s.via[m.Node] = id
			s.starting[id]++
			s.toStart++
		})
		m, err := worker.EncodeMsg(worker.MsgAssign, a)
		if err == nil {
			err = s.ep.Send(ctx, id, m, rmnp.CTRL)
		}
		if err != nil {
			return &assignError{a.Coordinator, fmt.Sprintf("send sub-tasks: %v", err)}
		}
		s.logf(a.Coordinator, "%s", describeAssign(a))
	}
	return nil
}

// describeAssign is the event-log line of an assignment.
func describeAssign(a worker.GroupAssign) string {
	line := fmt.Sprintf("coordinates group %d: %d %s", a.Group, len(a.Members), plural(len(a.Members), "worker", "workers"))
	if len(a.Subgroups) > 0 {
		n := 0
		a.Subtree(func(worker.Member, int) { n++ })
		line += fmt.Sprintf(", and %d %s below it (%d workers in all)", len(a.Subgroups), plural(len(a.Subgroups), "coordinator", "coordinators"), n)
	}
	return line
}

type inbound struct {
	src rmnp.PeerID
	msg []byte
}

func (s *submission) recvLoop(ctx context.Context, out chan<- inbound) {
	buf := make([]byte, 64<<10)
	for {
		src, kind, err := s.ep.Wait(ctx)
		if err != nil {
			return
		}
		m, err := worker.ReceiveCtrl(ctx, s.ep, src, kind, &buf)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, rmnp.ErrClosed) {
				return
			}
			continue
		}
		// Noted on arrival, not when the event loop gets to it: a busy loop
		// must not make a coordinator look silent.
		s.live.Seen(src)
		select {
		case out <- inbound{src, slices.Clone(m)}:
		case <-ctx.Done():
			return
		}
	}
}

// follow is the submitter's event loop.
func (s *submission) follow(ctx context.Context, msgs <-chan inbound) {
	tick := time.NewTicker(worker.CheckInterval)
	defer tick.Stop()
	wall := time.NewTimer(s.spec.WallTime)
	defer wall.Stop()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	exited := s.watchExits(wctx)
	gwExited := s.watchGateways(wctx)
	s.watchGatewayOutput()
	var lastBeat, prev time.Time
	for s.failed == nil && !s.complete() {
		select {
		case <-ctx.Done():
			s.abort(ctx)
		case <-wall.C:
			s.fail("", fmt.Sprintf("wall time %v exceeded", s.spec.WallTime))
		case g := <-gwExited:
			s.fail(g.Name, g.exitCause())
		case name := <-exited:
			if !s.inRun(name) {
				s.spareEnded(name)
				break
			}
			cause := "worker process exited"
			if err := s.workers[name].Err(); err != nil {
				cause = fmt.Sprintf("worker process exited: %v%s", err, s.memoryNote(name, err))
			}
			s.fail(name, cause)
		case ev := <-s.ep.PeerDown():
			if name, ok := s.coords[ev.Peer]; ok && ev.LinksLeft == 0 {
				s.fail(name, fmt.Sprintf("coordinator connection lost: %v", ev.Err))
			}
		case in := <-msgs:
			s.handle(in)
		case r := <-s.drainReqs():
			r.reply <- s.drain(r)
		case r := <-s.joinReqs():
			s.join(r)
		case res := <-s.joinsDone():
			if w := s.joined(res); w != nil {
				s.watchExit(wctx, w.Host.Name, w, exited)
			}
		case now := <-tick.C:
			s.hearGateways()
			for _, p := range s.live.Check(prev, now) {
				if g := s.gatewayNamed(p.Name); g != nil {
					s.lostGateway(g, p)
					continue
				}
				s.fail(p.Name, "coordinator sent "+p.Silence())
			}
			prev = now
			if now.Sub(lastBeat) >= worker.DownInterval {
				lastBeat = now
				for id := range s.coords {
					s.post(id, worker.HeartbeatMsg(s.toStart == 0))
				}
			}
			s.sampleResidual(now)
			s.noteRecovered(now)
			s.snapshot(now, false)
		}
	}
	s.finished = time.Now()
	if s.failed != nil {
		s.end(worker.MsgAbort, s.failed.Cause, msgs)
	} else {
		s.end(worker.MsgEnd, "done", msgs)
	}
	s.sampleResidual(time.Now())
	s.snapshot(time.Now(), true)
}

// watchExits reports the name of every worker of the run whose process
// ends (a local worker killed, an SSH session gone) until ctx ends: a
// node's (a loss) or a spare's (said in the log; no recovery takes it).
func (s *submission) watchExits(ctx context.Context) chan string {
	exited := make(chan string, len(s.workers))
	for name, w := range s.workers {
		if s.inRun(name) || !isDone(w) {
			s.watchExit(ctx, name, w, exited)
		}
	}
	return exited
}

// watchExit sends name on exited when w's process ends, unless ctx ends
// first.
func (s *submission) watchExit(ctx context.Context, name string, w *deploy.Worker, exited chan<- string) {
	go func() {
		select {
		case <-w.Done():
			select {
			case exited <- name:
			case <-ctx.Done():
			}
		case <-ctx.Done():
		}
	}()
}

// spareEnded says in the log that a spare's worker process ended (a joined
// host's, or one started beside the job's nodes): no loss or drain moves a
// part there (replace skips a worker that ended).
func (s *submission) spareEnded(name string) {
	w := s.workers[name]
	if w == nil || !isDone(w) {
		return // another worker of that host joined since
	}
	why := ""
	if err := w.Err(); err != nil {
		why = ": " + err.Error()
	}
	s.logf(name, "spare's worker process exited%s: no loss or drain moves a part here", why)
}

func (s *submission) inRun(name string) bool { return slices.Contains(s.plan.Ranks, name) }

// handle applies one message from a coordinator.
func (s *submission) handle(in inbound) {
	t, body, err := worker.DecodeMsg(in.msg)
	if err == nil {
		err = s.apply(t, body, in.msg)
	}
	if err != nil && !errors.Is(err, worker.ErrStale) {
		s.logf(s.coords[in.src], "bad control message: %v", err)
	}
}

func (s *submission) apply(t worker.MsgType, body, raw []byte) error {
	switch t {
	case worker.MsgHeartbeat:
	case worker.MsgStatus:
		var ss []solve.NodeStatus
		if err := worker.DecodeBody(t, body, &ss); err != nil {
			return err
		}
		for _, st := range ss {
			if st.Run != s.run || st.Rank < 0 || st.Rank >= len(s.statuses) || s.plan.Ranks[st.Rank] != st.Node {
				continue
			}
			// Statuses travel in the background and may arrive late: never
			// go back in iterations, nor past a result or a failure.
			cur := s.statuses[st.Rank]
			if s.headers[st.Rank] == nil && cur.State != solve.StateFailed && st.Iteration >= cur.Iteration {
				if st.Load == nil { // a coordinator's own status of a member: keep the load known
					st.Load = cur.Load
				}
				if len(st.Copies) == 0 { // none yet in this attempt: those it restored from
					st.Copies = cur.Copies
				}
				if len(st.StepStarts) == 0 {
					st.StepStarts, st.StepBase = cur.StepStarts, cur.StepBase
				}
				s.statuses[st.Rank], s.dirty = st, true
				s.noteStarted(st.Node, cur.State, st.State)
			}
		}
	case worker.MsgResult:
		var h worker.ResultHeader
		if err := worker.DecodeBody(t, body, &h); err != nil {
			return err
		}
		if h.Run != s.run {
			return fmt.Errorf("%w: result of %s", worker.ErrStale, h.Node)
		}
		if h.Rank < 0 || h.Rank >= len(s.headers) || h.Count != len(s.values[h.Rank]) || s.plan.Ranks[h.Rank] != h.Node {
			return fmt.Errorf("%w: result of %s rank %d with %d values", worker.ErrProtocol, h.Node, h.Rank, h.Count)
		}
		s.headers[h.Rank] = &h
		st := &s.statuses[h.Rank]
		s.noteStarted(h.Node, st.State, solve.StateTerminated)
		st.State, st.Iteration, st.Sigma, st.Traffic = solve.StateTerminated, h.Iterations, h.Sigma, h.Traffic
		st.Compute, st.Send, st.Wait, s.dirty = h.Compute, h.Send, h.Wait, true
		st.PeakRSS = max(st.PeakRSS, h.PeakRSS)
		s.noteRecovered(time.Now()) // a short run may end before a status tick saw it
		s.logf(h.Node, "result: %d iterations, local σ %.3g", h.Iterations, h.Sigma)
	case worker.MsgValues:
		r, k, err := worker.DecodeValues(raw, s.run, s.values)
		if err != nil {
			return err
		}
		s.got[r] += k
	case worker.MsgFailed:
		var f worker.Failure
		if err := worker.DecodeBody(t, body, &f); err != nil {
			return err
		}
		if f.Run != s.run {
			return fmt.Errorf("%w: failure of %s (%s)", worker.ErrStale, f.Node, f.Cause)
		}
		s.fail(f.Node, f.Cause)
	case worker.MsgDrain:
		var d worker.DrainRequest
		if err := worker.DecodeBody(t, body, &d); err != nil {
			return err
		}
		if d.Run != s.run {
			return fmt.Errorf("%w: drain request of %s", worker.ErrStale, d.Node)
		}
		s.drainAsked(d)
	case worker.MsgLog:
		var ev solve.LogEvent
		if err := worker.DecodeBody(t, body, &ev); err != nil {
			return err
		}
		if s.opt.OnLog != nil {
			s.opt.OnLog(ev)
		}
	default:
		return fmt.Errorf("%w: unexpected %s", worker.ErrProtocol, t)
	}
	return nil
}

// noteStarted counts node out of the start-up when its state leaves
// starting: the top coordinator it is reached through has started once
// its whole subtree has, and the run once every node has.
func (s *submission) noteStarted(node string, from, to solve.NodeState) {
	id, ok := s.via[node]
	if !ok || from != solve.StateStarting || to == solve.StateStarting {
		return
	}
	s.toStart--
	if s.starting[id]--; s.starting[id] == 0 {
		s.live.StartedPeer(id)
	}
}

func (s *submission) complete() bool {
	for r, h := range s.headers {
		if h == nil || s.got[r] != h.Count {
			return false
		}
	}
	return true
}

// abort records that the run's context ended (Ctrl-C, the console's abort,
// a deadline) as the run's failure, unless it failed before.
func (s *submission) abort(ctx context.Context) {
	if s.failed != nil {
		return
	}
	s.aborted = newAbortError(s.spec.Name, ctx)
	s.outcome = "aborted"
	s.fail("", s.aborted.reason())
}

// fail records the first failure of the run. The cause is text, from this
// process or a worker's; it is printed after the node's name, so without
// the package prefix.
func (s *submission) fail(node, cause string) {
	if s.failed != nil {
		return
	}
	node, cause = s.blame(node, solve.Bare(cause))
	s.failed = &worker.Failure{Node: node, Cause: cause}
	if s.outcome == "" {
		s.outcome = "failed"
	}
	for i := range s.statuses {
		if s.statuses[i].Node == node {
			s.statuses[i].State, s.statuses[i].Err, s.dirty = solve.StateFailed, cause, true
		}
	}
	if s.outcome == "aborted" {
		s.logf(node, "ABORTED: %s", cause) // the user's doing, not a failure
		return
	}
	s.logf(node, "FAILED: %s", cause)
}

// lostNodes names the workers not to wait on when stopping: the node the
// run failed on, which is hung, stopped or cut off (missed heartbeats), or
// gone, or failed its task — none of which calls for a graceful exit; for
// a gateway, its host.
func (s *submission) lostNodes() map[string]bool {
	if s.failed == nil || s.failed.Node == "" {
		return nil
	}
	return s.lostHosts(map[string]bool{s.failed.Node: true})
}

// silentNode names the node the run failed on when it was lost to silence
// (hung, stopped or cut off: no heartbeat), "" otherwise: a local worker
// still running is then asked for its goroutine stacks before it is killed.
func (s *submission) silentNode() string {
	if s.failed == nil || !strings.HasPrefix(s.failed.Cause, worker.SilentCause) {
		return ""
	}
	return s.failed.Node
}

func (s *submission) err() error {
	if s.failed == nil {
		return nil
	}
	if s.aborted != nil {
		return s.aborted
	}
	if s.failed.Node == "" {
		return fmt.Errorf("%w: %s", ErrRunFailed, s.failed.Cause)
	}
	return fmt.Errorf("%w: node %s: %s", ErrRunFailed, s.failed.Node, s.failed.Cause)
}

// end tells every coordinator the run is over (they pass it down). On
// reused workers it then waits (bounded) for every live coordinator to
// acknowledge that its group left the run, so the next run starts clean.
func (s *submission) end(t worker.MsgType, reason string, msgs <-chan inbound) {
	a := worker.Abort{Run: s.run, Reason: reason}
	if s.failed != nil && s.failed.Node != "" {
		a.Lost = lostWith(s, s.failed.Node)
	}
	m, _ := worker.EncodeMsg(t, a)
	// end waits a second for the sends, but never cuts their frames: a
	// cut mid-frame costs the coordinator its parent's link, and it exits
	// "parent lost" (rmnp/spec.md §5). They finish in the background,
	// bounded as a post.
	done := make(chan struct{}, len(s.coords))
	for id := range s.coords {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), worker.BeatTimeout)
			defer cancel()
			s.ep.Send(ctx, id, m, rmnp.CTRL)
			done <- struct{}{}
		}()
	}
	wait := time.NewTimer(time.Second)
	defer wait.Stop()
sent:
	for range s.coords {
		select {
		case <-done:
		case <-wait.C:
			break sent
		}
	}
	if msgs == nil || s.opt.Workers == nil && s.ckpt == nil {
		return // workers Run started are stopped anyway, unless a recovery reuses them
	}
	pending := map[rmnp.PeerID]bool{}
	for id, name := range s.coords {
		if s.failed == nil || s.failed.Node != name {
			pending[id] = true
		}
	}
	timeout := time.After(worker.EndAckTimeout + time.Second)
	for len(pending) > 0 {
		select {
		case in := <-msgs:
			if len(in.msg) > 0 && worker.MsgType(in.msg[0]) == worker.MsgEnded {
				delete(pending, in.src)
			}
		case <-timeout:
			return
		}
	}
}

func (s *submission) post(id rmnp.PeerID, m []byte) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), worker.BeatTimeout)
		defer cancel()
		s.ep.Send(ctx, id, m, rmnp.CTRL)
	}()
}

// snapshot emits the run's telemetry, at most 10 Hz unless final.
func (s *submission) snapshot(now time.Time, final bool) {
	if s.opt.OnSnapshot == nil || (!s.dirty && !final) || (!final && now.Sub(s.lastSnap) < 100*time.Millisecond) {
		return
	}
	s.dirty, s.lastSnap = false, now
	snap := Snapshot{At: now, Elapsed: now.Sub(s.start), Nodes: slices.Clone(s.statuses), Gateways: gatewayReports(s.gateways),
		Recoveries: slices.Clone(s.recoveries)}
	for _, st := range s.statuses {
		snap.GlobalSigma = max(snap.GlobalSigma, st.Sigma)
	}
	if s.gainRef != nil && snap.GlobalSigma > 0 {
		snap.Gain = s.gainRef.gain(snap.GlobalSigma, snap.Elapsed)
	}
	s.opt.OnSnapshot(snap)
}
