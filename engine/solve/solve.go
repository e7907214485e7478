package solve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/rmnp"
)

// PartTask is one rank's share of a task the submitter defined (Define
// runs once, there): the application and its parameters, this rank's part
// as Define described it, and what every rank needs of the whole task. It
// is the one shape of a task on the wire: the submitter sends it down the
// hierarchy in the worker's assignment, and the worker builds its part
// from it alone (gridapp.Application.NewPart).
type PartTask struct {
	App    string            // the registered application
	Params map[string]string // its checked parameters (gridapp.Values.Encode)
	Rank   int
	Ranks  int
	Part   gridapp.PartSpec // this rank's part: neighbours, spec, size
	// Trees are this rank's view of the detectors' two breadth-first
	// spanning trees of the task's graph, rooted at rank 0 and at the last
	// rank: the submitter computes them once from the whole graph, which
	// no worker needs.
	Trees [2]TreeView
	Eps   float64 // the task's threshold (gridapp.Task.Eps)
	Steps int     // the task's outer steps (gridapp.Task.Steps)
	// Sweeps is gridapp.Task.Sweeps: exactly that many sweeps a step (then
	// σ = 0; Eps is then the smallest positive number), 0: until converged.
	Sweeps int
}

// PartTasks turns a defined task into one PartTask per rank.
func PartTasks(app string, v gridapp.Values, task gridapp.Task) []PartTask {
	n := len(task.Parts)
	graph := make([][]int, n)
	for r, ps := range task.Parts {
		graph[r] = ps.Neighbours
	}
	var trees [2]*spanningTree
	var depths [2]int
	if n > 0 {
		trees = [2]*spanningTree{newSpanningTree(graph, 0), newSpanningTree(graph, n-1)}
		depths = [2]int{trees[0].maxDepth(), trees[1].maxDepth()}
	}
	params := v.Encode()
	out := make([]PartTask, n)
	for r, ps := range task.Parts {
		eps := task.Eps
		if task.Sweeps > 0 {
			eps = math.SmallestNonzeroFloat64 // only a part that has done them has σ = 0 < ε
		}
		out[r] = PartTask{App: app, Params: params, Rank: r, Ranks: n, Part: ps, Eps: eps, Steps: task.Steps, Sweeps: task.Sweeps,
			Trees: [2]TreeView{trees[0].view(r, depths[0]), trees[1].view(r, depths[1])}}
	}
	return out
}

// Subtask is one worker's share of a job as Solve runs it: its PartTask
// and how this run treats it (cores, scheme, detector, limit), where the
// worker runs and its neighbours' links.
type Subtask struct {
	PartTask
	Cores    int
	Scheme   Scheme
	Detector Detector // empty: tokens for sync, activity for async and hybrid
	MaxIter  int      // 0: no limit (the job's and the application's, the smaller)
	// Node and Cluster name this worker's host and its cluster, for the
	// application (empty in tests).
	Node, Cluster string
	// Neighbours are the part's neighbours (any connected graph: the
	// application's decomposition) with their links.
	Neighbours []Neighbour
	// SwitchPeriod is the initial length of the asynchronous sections of the
	// switch detector (AIAC); 0: DefaultSwitchPeriod.
	SwitchPeriod time.Duration
	// Checkpoint, when set, has the part checkpointed every few iterations
	// and, on a recovery, restored first (checkpoint.go).
	Checkpoint *CheckpointPlan
	// Copies keeps the checkpoints in memory, here and on the buddy (nil:
	// disk only, when Checkpoint.Dir is set).
	Copies CopyStore
	// Log takes the application's lines for the node's log (a program's
	// output: gridapp.Subtask.Log); nil: none.
	Log io.Writer

	hooks *solveHooks // tests only: fault injection
}

// Neighbour is the rank on one side of a slab and how to reach it.
type Neighbour struct {
	Rank int
	Peer rmnp.PeerID
	// Mode is decided by scheme and locality: hybrid = Sync inside a cluster,
	// Async across. The endpoint's link to Peer must have been made with it.
	Mode    rmnp.Mode
	Network string
}

// SolveResult is what Solve leaves on one worker.
type SolveResult struct {
	Values     []float64 // the part's Result
	Iterations int       // sweeps done on this worker (hybrid: equal across a cluster)
	Sigma      float64   // local σ of the last sweep
	Converged  bool      // the detector saw the global test pass (false: MaxIter)
	Compute    time.Duration
	Send       time.Duration
	Wait       time.Duration
	Sweeps     SweepHist // compute time per sweep (the node's trace)
	// Traffic is what another process moved for the node (gridapp.Host's
	// Usage), beside the endpoint's own counters.
	Traffic []NetTraffic

	// Restored is the iteration the part was restored from (0: none), at
	// RestoredStep outer steps; Checkpoints counts the checkpoints taken;
	// CheckpointNotes say what went wrong with them (a refused file, a
	// failed write).
	Restored        uint64
	RestoredStep    int
	Checkpoints     int
	CheckpointNotes []string

	counted int // sweeps the iteration limit counted (activity graph: see activityRun.exhausted)
}

// solveHooks are fault-injection points for tests.
type solveHooks struct {
	// beforeSend is called before each DATA send to the neighbour of the
	// given rank; a test sleeps in it to delay one link and provoke stale
	// halos.
	beforeSend func(rank int)
	// idleWait, if positive, replaces passiveWaitSlice, and afterIdleWait
	// is called when such a wait ended with nothing to read: a test
	// shortens the one and sleeps in the other so that the messages of an
	// inactive node's neighbours arrive while it is not waiting, as on a
	// loaded machine.
	idleWait      time.Duration
	afterIdleWait func()
}

// reportEvery bounds how often Solve calls report.
const reportEvery = 100 * time.Millisecond

// ErrScheme reports a Subtask whose scheme, detector or links do not fit.
var ErrScheme = errors.New("engine: unsupported scheme")

// Solve runs the iteration on this worker's part until the detector declares
// termination, exchanging halos and detector messages with its neighbours over
// ep (rank r ↔ peer ids given in Neighbour). Halos are DATA messages, detector
// messages CTRL (GRIDHPC Sec. V-A). report is called at most every ~100 ms
// and once at the end with the final state. A part that panics, returns a
// NaN σ or sends a halo its neighbour cannot take fails the run with an error
// naming the application.
func Solve(ctx context.Context, ep *rmnp.Endpoint, t Subtask, report func(NodeStatus)) (res SolveResult, err error) {
	s, err := newSolver(ep, t, report)
	if err != nil {
		return SolveResult{}, WrapErr(err, "rank %d", t.Rank)
	}
	defer s.part.Close()
	defer s.stopCheckpoints()
	defer func() {
		if r := recover(); r != nil {
			res, err = s.res, s.finish(s.fault(r))
		}
	}()
	calc, own := s.part.(gridapp.Calculator)
	switch {
	case own:
		err = s.runCalculate(ctx, calc)
	case t.Scheme == Synchronous && s.detector == DetectTokens:
		err = s.runSteps(ctx, s.runSync)
	case s.detector == DetectActivity:
		err = s.runSteps(ctx, s.runActivity)
	case s.detector == DetectSwitch:
		err = s.runSteps(ctx, s.runSwitch)
	default:
		err = fmt.Errorf("%w: scheme %q with detector %q", ErrScheme, t.Scheme, s.detector)
	}
	if err != nil {
		s.lastCheckpoint()
	}
	return s.res, s.finish(err)
}

// finish records the part's result and the final state.
func (s *solver) finish(err error) error {
	s.res.Iterations = s.iter
	s.res.counted = s.iter
	if s.detector == DetectActivity {
		s.res.counted = s.counted
	}
	s.res.Sigma = s.sigma
	if err != nil {
		s.state = StateFailed
		s.emit(time.Now(), err)
		return WrapErr(err, "rank %d", s.t.Rank)
	}
	v, err := s.result()
	if err != nil {
		s.state = StateFailed
		s.emit(time.Now(), err)
		return WrapErr(err, "rank %d", s.t.Rank)
	}
	s.res.Values = v
	s.state = StateTerminated
	s.emit(time.Now(), nil)
	return nil
}

// link is the solver's view of one neighbour.
type link struct {
	side Side
	nb   int // the neighbour's index in the part (Outgoing, Halo)
	peer rmnp.PeerID
	rank int
	sync bool
	nOut int       // values of Outgoing(nb)
	nIn  int       // values of Halo(nb)
	halo *float64  // &Halo(nb)[0] at the start (nil: an empty halo): Halo must return that buffer for the whole run
	out  []float64 // halo message: header + outgoing values
	in   []float64
	sent []float64 // values as last sent (asynchronous drift test)
	ctrl []byte
	seq  uint64 // highest update seq taken (halo filter for all detectors)
	ever bool   // an update was sent on this link
}

// solver holds one worker's run.
type solver struct {
	ep       *rmnp.Endpoint
	t        Subtask
	detector Detector
	app      string
	part     gridapp.Part
	recv     gridapp.HaloReceiver // nil: the part does not act on receipt
	iter     int                  // sweeps done
	counted  int                  // sweeps that count toward maxIter under the activity graph (activityRun.exhausted)
	links    []*link              // by the part's neighbour index (Side)
	eps      float64
	maxIter  int
	steps    int // outer steps of the task (gridapp.Task.Steps, ≥ 1)
	// stepStarts are the iterations at which the last steps began (the
	// first after stepBase steps): NodeStatus.StepStarts.
	stepStarts []uint64
	stepBase   int
	ckpt       *checkpointer // nil: no checkpoints
	// exact is gridapp.Task.Sweeps (0: none), stepSweeps the part's sweeps
	// in the current step.
	exact, stepSweeps int
	report            func(NodeStatus)
	ctrlOut           []byte // control message being sent

	state      NodeState
	sigma      float64
	res        SolveResult
	lastReport time.Time
}

func newSolver(ep *rmnp.Endpoint, t Subtask, report func(NodeStatus)) (*solver, error) {
	switch t.Scheme {
	case Synchronous, Asynchronous, Hybrid:
	default:
		return nil, fmt.Errorf("%w: %q", ErrScheme, t.Scheme)
	}
	if t.Ranks < 1 || t.Rank < 0 || t.Rank >= t.Ranks {
		return nil, fmt.Errorf("engine: rank %d of %d", t.Rank, t.Ranks)
	}
	nbs := t.Neighbours
	if ep == nil && t.Ranks > 1 {
		return nil, fmt.Errorf("engine: rank %d: no endpoint", t.Rank)
	}
	bp, err := buildPart(t)
	if err != nil {
		return nil, err
	}
	s := &solver{ep: ep, t: t, app: bp.app, part: bp.part, eps: t.Eps, maxIter: t.MaxIter, steps: bp.steps, exact: t.Sweeps,
		report: report, state: StateActive, sigma: -1}
	s.recv, _ = bp.part.(gridapp.HaloReceiver)
	s.detector = t.Detector
	if s.detector == "" {
		s.detector = DetectActivity
		if t.Scheme == Synchronous {
			s.detector = DetectTokens
		}
	}
	if err := s.makeLinks(nbs, t.Part.Neighbours); err != nil {
		bp.part.Close()
		return nil, err
	}
	if err := s.startCheckpoints(bp.identity); err != nil {
		bp.part.Close()
		return nil, err
	}
	return s, nil
}

// makeLinks builds one link per neighbour of the part, matching the
// Subtask's neighbours with the part's (by rank) and sizing the message
// buffers from the part's Outgoing and Halo.
func (s *solver) makeLinks(nbs []Neighbour, neighbours []int) error {
	t := s.t
	if len(nbs) != len(neighbours) {
		return fmt.Errorf("%w: application %q: rank %d's part has neighbours %v, the plan gives it %d", ErrScheme, s.app, t.Rank, neighbours, len(nbs))
	}
	maxOut := 1 // a section vote's σ
	s.links = make([]*link, len(neighbours))
	for i, q := range neighbours {
		j := slices.IndexFunc(nbs, func(nb Neighbour) bool { return nb.Rank == q })
		if j < 0 {
			return fmt.Errorf("%w: application %q: rank %d's part neighbours rank %d, which the plan does not link to it", ErrScheme, s.app, t.Rank, q)
		}
		nb := nbs[j]
		l := &link{side: Side(i), nb: i, peer: nb.Peer, rank: nb.Rank, sync: nb.Mode == rmnp.Sync,
			nOut: len(s.part.Outgoing(i)), nIn: len(s.part.Halo(i))}
		if h := s.part.Halo(i); len(h) > 0 {
			l.halo = &h[0]
		}
		l.out, l.in = make([]float64, haloHeader+l.nOut), make([]float64, haloHeader+l.nIn)
		l.ctrl = make([]byte, ctrlHeader+8*max(l.nIn, 1)) // a section halo, or a vote's σ on a link whose halo is empty
		maxOut = max(maxOut, l.nOut)
		if t.Scheme == Asynchronous && l.sync {
			return fmt.Errorf("%w: asynchronous scheme over a synchronous link to rank %d", ErrScheme, nb.Rank)
		}
		if t.Scheme == Synchronous && !l.sync {
			return fmt.Errorf("%w: synchronous scheme over an asynchronous link to rank %d", ErrScheme, nb.Rank)
		}
		s.links[i] = l
	}
	s.ctrlOut = make([]byte, ctrlHeader+8*maxOut)
	return nil
}

// sideOf returns the side (link index) of neighbour rank q.
func (s *solver) sideOf(q int) Side {
	for _, l := range s.links {
		if l.rank == q {
			return l.side
		}
	}
	panic("engine: sideOf: not a neighbour")
}

// tree returns this rank's view of the spanning tree rooted at root (rank
// 0 or the last rank, PartTask.Trees), its parent's side (−1 at the root)
// and its children's sides, in the view's order.
func (s *solver) tree(root int) (v TreeView, parent Side, children []Side) {
	v = s.t.Trees[0]
	if root != 0 {
		v = s.t.Trees[1]
	}
	parent = -1
	if v.Parent >= 0 {
		parent = s.sideOf(v.Parent)
	}
	for _, c := range v.Children {
		children = append(children, s.sideOf(c))
	}
	return v, parent, children
}

// planes returns the part's values sent on l and the halo received from it.
// A halo whose length or buffer changed since the run started fails the
// run (the Halo contract: the same slice for the whole run), naming the
// neighbour's rank (the error's prefix names the part's).
func (s *solver) planes(l *link) (own, halo []float64) {
	own, halo = s.part.Outgoing(l.nb), s.part.Halo(l.nb)
	if len(halo) != l.nIn {
		panic(appFault{fmt.Errorf("Halo(%d), the halo of neighbour rank %d, holds %d values, %d at the start (Halo must return the same slice for the whole run)",
			l.nb, l.rank, len(halo), l.nIn)})
	}
	if len(halo) > 0 && &halo[0] != l.halo {
		panic(appFault{fmt.Errorf("Halo(%d), the halo of neighbour rank %d, returned another buffer than at the start "+
			"(Halo must return the same slice for the whole run: a part that swaps iterates keeps its halos apart and copies them in, in Sweep or Received)",
			l.nb, l.rank)})
	}
	return own, halo
}

// outgoingChanged is the error of a part whose Outgoing(nb) changed length
// since the run started.
func (l *link) outgoingChanged(s *solver, n int) error {
	return fmt.Errorf("%w %q: %d outgoing values for rank %d, %d at the start (Outgoing must keep its length)",
		ErrApplication, s.app, n, l.rank, l.nOut)
}

// received tells the part that l's halo holds new values.
func (s *solver) received(l *link) {
	if s.recv != nil {
		s.recv.Received(l.nb)
	}
}

// sweep runs one iteration of the part and accounts its time. A NaN σ
// stops the run (see fault).
func (s *solver) sweep() float64 {
	start := time.Now()
	if s.exact > 0 && s.stepSweeps >= s.exact {
		s.sigma = 0 // Task.Sweeps done: the part keeps its values
	} else {
		s.sigma = s.part.Sweep()
		s.stepSweeps++
	}
	s.iter++
	if s.sigma != s.sigma {
		panic(appFault{fmt.Errorf("sweep %d returned σ = NaN", s.iter)})
	}
	s.maybeCheckpoint()
	now := time.Now()
	s.res.Compute += now.Sub(start)
	s.res.Sweeps.Add(now.Sub(start))
	s.maybeReport(now)
	return s.sigma
}

func (s *solver) exhausted() bool { return s.maxIter > 0 && s.iter >= s.maxIter }

// maybeReport calls report if the last call is old enough.
func (s *solver) maybeReport(now time.Time) {
	if now.Sub(s.lastReport) >= reportEvery {
		s.emit(now, nil)
	}
}

func (s *solver) emit(now time.Time, err error) {
	s.lastReport = now
	if s.report == nil {
		return
	}
	st := NodeStatus{Rank: s.t.Rank, State: s.state, Iteration: s.iter, Sigma: s.sigma,
		Compute: s.res.Compute, Send: s.res.Send, Wait: s.res.Wait, Traffic: slices.Clone(s.res.Traffic), Restored: s.res.Restored}
	if c := s.ckpt; c != nil && c.writes != nil {
		st.CheckpointEvery, st.CheckpointSince = c.pace.interval()
	}
	st.StepStarts, st.StepBase = slices.Clone(s.stepStarts), s.stepBase
	if err != nil {
		st.Err = Bare(err.Error()) // shown after the node's name
	}
	s.report(st)
}

// timed adds the time since start to *acc and returns now.
func timed(acc *time.Duration, start time.Time) {
	*acc += time.Since(start)
}

// sendCtrl sends an encoded control message to side.
func (s *solver) sendCtrl(ctx context.Context, side Side, m []byte) error {
	l := s.links[side]
	start := time.Now()
	defer timed(&s.res.Send, start)
	if err := s.ep.Send(ctx, l.peer, m, rmnp.CTRL); err != nil {
		return WrapErr(err, "control message to rank %d", l.rank)
	}
	return nil
}

// recvCtrl receives the next control message from side into the link's
// buffer; with rmnp.NoWait in flags it returns ErrNoMessage if none is there.
func (s *solver) recvCtrl(ctx context.Context, side Side, flags rmnp.Flags) (ctrlMsg, error) {
	l := s.links[side]
	start := time.Now()
	n, err := s.ep.Receive(ctx, l.peer, l.ctrl, rmnp.CTRL|flags)
	if flags&rmnp.NoWait == 0 {
		timed(&s.res.Wait, start)
	}
	if err != nil {
		if errors.Is(err, rmnp.ErrNoMessage) {
			return ctrlMsg{}, err
		}
		return ctrlMsg{}, WrapErr(err, "control message from rank %d", l.rank)
	}
	m, err := decodeCtrl(l.ctrl[:n])
	if err != nil {
		return ctrlMsg{}, WrapErr(err, "control message from rank %d", l.rank)
	}
	return m, nil
}
