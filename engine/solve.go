package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/rmnp"
)

// Subtask is one worker's share of a job, as its coordinator hands it down.
type Subtask struct {
	Problem  jobs.Obstacle
	Rank     int
	Ranks    int
	Range    jobs.Range
	Cores    int
	Scheme   jobs.Scheme
	Detector jobs.Detector // empty: tokens for sync, activity for async and hybrid
	MaxIter  int           // 0: Problem.MaxIter (0 there too: no limit)
	// Lower and Upper are the slab neighbours, nil at the domain boundary.
	Lower, Upper *Neighbour
	// SwitchPeriod is the initial length of the asynchronous sections of the
	// switch detector (AIAC); 0: DefaultSwitchPeriod.
	SwitchPeriod time.Duration

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
	Values     []float64 // the slab's owned values, (Hi−Lo)·n·n, x-major
	Iterations int       // sweeps done on this worker (hybrid: equal across a cluster)
	Sigma      float64   // local σ of the last sweep
	Converged  bool      // the detector saw the global test pass (false: MaxIter)
	Compute    time.Duration
	Send       time.Duration
	Wait       time.Duration
}

// solveHooks are fault-injection points for tests.
type solveHooks struct {
	// beforeSend is called before each DATA send to side; a test sleeps in it
	// to delay one link and provoke stale halos.
	beforeSend func(side Side)
}

// reportEvery bounds how often Solve calls report.
const reportEvery = 100 * time.Millisecond

// ErrScheme reports a Subtask whose scheme, detector or links do not fit.
var ErrScheme = errors.New("engine: unsupported scheme")

// Solve runs the iteration on this worker's slab until the detector declares
// termination, exchanging halos and detector messages with its neighbours over
// ep (rank r ↔ peer ids given in Neighbour). Halos are DATA messages, detector
// messages CTRL (GRIDHPC Sec. V-A). report is called at most every ~100 ms
// and once at the end with the final state.
func Solve(ctx context.Context, ep *rmnp.Endpoint, t Subtask, report func(NodeStatus)) (SolveResult, error) {
	s, err := newSolver(ep, t, report)
	if err != nil {
		return SolveResult{}, err
	}
	defer s.slab.Close()
	switch {
	case t.Scheme == jobs.Synchronous && s.detector == jobs.DetectTokens:
		err = s.runSync(ctx)
	case s.detector == jobs.DetectActivity:
		err = s.runActivity(ctx)
	case s.detector == jobs.DetectSwitch:
		err = s.runSwitch(ctx)
	default:
		err = fmt.Errorf("%w: scheme %q with detector %q", ErrScheme, t.Scheme, s.detector)
	}
	s.res.Values = append([]float64(nil), s.slab.Values()...)
	s.res.Iterations = s.slab.Iteration()
	s.res.Sigma = s.sigma
	if err != nil {
		s.state = StateFailed
		s.emit(time.Now(), err)
		return s.res, wrapErr(err, "rank %d", t.Rank)
	}
	s.state = StateTerminated
	s.emit(time.Now(), nil)
	return s.res, nil
}

// link is the solver's view of one neighbour.
type link struct {
	side Side
	peer rmnp.PeerID
	rank int
	sync bool
	out  []float64 // halo message: header + plane
	in   []float64
	sent []float64 // plane as last sent (asynchronous drift test)
	ctrl []byte
	seq  uint64 // highest update seq taken (halo filter for all detectors)
	ever bool   // an update was sent on this link
}

// solver holds one worker's run.
type solver struct {
	ep       *rmnp.Endpoint
	t        Subtask
	detector jobs.Detector
	slab     *jobs.Slab
	links    [2]*link
	eps      float64
	maxIter  int
	report   func(NodeStatus)
	plane    int
	ctrlOut  []byte // control message being sent

	state      NodeState
	sigma      float64
	res        SolveResult
	lastReport time.Time
}

func newSolver(ep *rmnp.Endpoint, t Subtask, report func(NodeStatus)) (*solver, error) {
	p := t.Problem.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	switch t.Scheme {
	case jobs.Synchronous, jobs.Asynchronous, jobs.Hybrid:
	default:
		return nil, fmt.Errorf("%w: %q", ErrScheme, t.Scheme)
	}
	if t.Ranks < 1 || t.Rank < 0 || t.Rank >= t.Ranks {
		return nil, fmt.Errorf("engine: rank %d of %d", t.Rank, t.Ranks)
	}
	if (t.Lower == nil) != (t.Rank == 0) || (t.Upper == nil) != (t.Rank == t.Ranks-1) {
		return nil, fmt.Errorf("engine: rank %d of %d: neighbours do not match the chain", t.Rank, t.Ranks)
	}
	if ep == nil && t.Ranks > 1 {
		return nil, fmt.Errorf("engine: rank %d: no endpoint", t.Rank)
	}
	slab, err := jobs.NewSlab(p, t.Range, max(t.Cores, 1))
	if err != nil {
		return nil, err
	}
	s := &solver{ep: ep, t: t, slab: slab, eps: p.Eps, maxIter: t.MaxIter, report: report,
		plane: p.N * p.N, state: StateActive, sigma: -1, ctrlOut: make([]byte, ctrlHeader+8*p.N*p.N)}
	if s.maxIter <= 0 {
		s.maxIter = p.MaxIter
	}
	s.detector = t.Detector
	if s.detector == "" {
		s.detector = jobs.DetectActivity
		if t.Scheme == jobs.Synchronous {
			s.detector = jobs.DetectTokens
		}
	}
	for side, nb := range [2]*Neighbour{t.Lower, t.Upper} {
		if nb == nil {
			continue
		}
		l := &link{side: Side(side), peer: nb.Peer, rank: nb.Rank, sync: nb.Mode == rmnp.Sync,
			out: make([]float64, haloHeader+s.plane), in: make([]float64, haloHeader+s.plane),
			ctrl: make([]byte, ctrlHeader+8*s.plane)}
		if t.Scheme == jobs.Asynchronous && l.sync {
			slab.Close()
			return nil, fmt.Errorf("%w: asynchronous scheme over a synchronous link to rank %d", ErrScheme, nb.Rank)
		}
		if t.Scheme == jobs.Synchronous && !l.sync {
			slab.Close()
			return nil, fmt.Errorf("%w: synchronous scheme over an asynchronous link to rank %d", ErrScheme, nb.Rank)
		}
		s.links[side] = l
	}
	return s, nil
}

// plane returns the slab plane sent to side and the halo received from it.
func (s *solver) planes(side Side) (own, halo []float64) {
	if side == Lower {
		return s.slab.LowPlane(), s.slab.LowHalo()
	}
	return s.slab.HighPlane(), s.slab.HighHalo()
}

// sweep runs one iteration of the slab and accounts its time.
func (s *solver) sweep() float64 {
	start := time.Now()
	s.sigma = s.slab.Sweep()
	now := time.Now()
	s.res.Compute += now.Sub(start)
	s.maybeReport(now)
	return s.sigma
}

func (s *solver) exhausted() bool { return s.maxIter > 0 && s.slab.Iteration() >= s.maxIter }

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
	st := NodeStatus{Rank: s.t.Rank, State: s.state, Iteration: s.slab.Iteration(), Sigma: s.sigma,
		Compute: s.res.Compute, Send: s.res.Send, Wait: s.res.Wait}
	if err != nil {
		st.Err = bare(err.Error()) // shown after the node's name
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
		return wrapErr(err, "control message to rank %d", l.rank)
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
		return ctrlMsg{}, wrapErr(err, "control message from rank %d", l.rank)
	}
	m, err := decodeCtrl(l.ctrl[:n])
	if err != nil {
		return ctrlMsg{}, wrapErr(err, "control message from rank %d", l.rank)
	}
	return m, nil
}
