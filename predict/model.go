package predict

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gridtui/gridtui/jobs"
)

// Problem names the runs a model may rest on: the same application with
// the same parameters (traces of other sizes are not rescaled).
type Problem struct {
	App string  `json:"app"`
	N   int     `json:"n"`
	Eps float64 `json:"eps"`
	// Params are the application's parameters as one key
	// (jobs.Instance.ParamKey: layout parameters left out, a file by its
	// content's hash), so that runs on another matrix never predict this
	// one; "" compares only App, N and Eps (the obstacle problem).
	Params string `json:"params,omitempty"`
}

// problemOfRecord is the problem a recorded run solved.
func problemOfRecord(c jobs.RunConfig) Problem {
	in := c.Instance()
	return Problem{App: in.App, N: c.N, Eps: c.Eps, Params: in.ParamKey()}
}

// solved reports whether a recorded run solved p.
func (p Problem) solved(c jobs.RunConfig) bool {
	q := problemOfRecord(c)
	return q.App == p.App && q.N == p.N && q.Eps == p.Eps && (p.Params == "" || q.Params == p.Params)
}

// Source is one recorded run a model rests on.
type Source struct {
	ID          string      `json:"id"`
	Scheme      jobs.Scheme `json:"scheme"`
	Nodes       int         `json:"nodes"`
	WallSeconds float64     `json:"wall_seconds"`
	// Iterations is the mean iteration count over the run's nodes.
	Iterations float64 `json:"iterations"`
	// TraceStaleness is the run's halo age read from its traces (sweeps per
	// received update, minus one, over its asynchronous links).
	TraceStaleness float64 `json:"trace_staleness,omitempty"`
}

// Model is what the traces of a problem say, scaled to a unit: compute per
// grid point, traffic per link and iteration, iteration counts.
type Model struct {
	Problem Problem `json:"problem"`
	// Points is the problem's grid points in total (the sum over a run's
	// nodes of the points each owned).
	Points int `json:"points"`
	// PointSeconds is one sweep's compute time per point on one
	// uncontended core (mean over the traced nodes).
	PointSeconds float64 `json:"point_seconds"`
	// Spread is the sweep-time distribution relative to its mean (16
	// quantiles pooled over the traced nodes): the replay draws from it.
	Spread []float64 `json:"spread"`
	// SchemePointSeconds is PointSeconds over the runs of each scheme
	// alone: on a shared host an asynchronous run's sweeps contend with its
	// communication, so each scheme replays its own compute cost when traced.
	SchemePointSeconds map[jobs.Scheme]float64 `json:"scheme_point_seconds"`
	// ExchangeDelay is the delay of one synchronous exchange beyond the
	// network's transfer on a host all nodes share (the embedded local
	// grid), as a line in the host's contention (see DelayModel), fitted on
	// such synchronous runs' waits; zero when no run shared a host.
	ExchangeDelay DelayModel `json:"exchange_delay"`
	// LinkBytes is the traffic one link carries per iteration and direction.
	LinkBytes float64 `json:"link_bytes"`
	// SyncIterations is the iteration count of a synchronous run (the same
	// on every node and for every node count); 0 if no synchronous run.
	SyncIterations int `json:"sync_iterations"`
	// SyncLine is the synchronous iteration count as a line in the node
	// count (detecting convergence costs a few sweeps per node), fitted on
	// the synchronous runs when they span two node counts or more.
	SyncLine RoundsLine `json:"sync_line"`
	// Overhead is the part of a run's wall time outside the iterations
	// (sending sub-tasks, detecting termination, gathering), in seconds:
	// the median over the sources.
	Overhead  float64        `json:"overhead_seconds"`
	Staleness StalenessModel `json:"staleness"`
	// ByteSeconds is the host's time to send one byte (the synchronous
	// runs' time spent sending over the bytes they sent: copying into the
	// kernel, which no network figure shows), the CPU a message costs.
	ByteSeconds float64 `json:"byte_seconds"`
	// AsyncSweeps is each asynchronous scheme's mean sweeps per node, a
	// line in log₂ of the node count fitted on its runs: the asynchronous
	// scheme's predicted iterations, and with the CPU of a sweep the time
	// it needs at the least.
	AsyncSweeps map[jobs.Scheme]RoundsLine `json:"async_sweeps,omitempty"`
	// HybridExcess is a in the hybrid scheme's iterations per rank,
	// K · (1 + a/c) for a rank in a cluster of c nodes (see
	// fitHybridExcess).
	HybridExcess float64 `json:"hybrid_excess,omitempty"`
	// Lockstep are the traced hybrid runs a hybrid iteration's time is
	// scaled from (see lockstepSeconds).
	Lockstep []LockstepRun `json:"lockstep,omitempty"`
	// CorePointSeconds is the CPU of one sweep per point: the least of the
	// traced runs' time per point (see fitCPU). SweepLinkBytes is, per
	// scheme, what one of its links sends per sweep.
	CorePointSeconds float64                  `json:"core_point_seconds,omitempty"`
	SweepLinkBytes   map[jobs.Scheme]LinkLoad `json:"sweep_link_bytes,omitempty"`
	// SharedCores, when positive, is the cores of the one host every
	// node shares (several nodes per machine; see Options).
	SharedCores int `json:"shared_cores,omitempty"`
	topology    func(nodes int) ([][]int, error)
	Sources     []Source `json:"sources"`
}

// ErrNoTrace is returned when the store holds no usable trace of a problem.
var ErrNoTrace = errors.New("predict: no usable trace")

// traced reports whether rec is a completed run of p with a trace on every node.
func traced(rec jobs.RunRecord, p Problem) bool {
	if !rec.OK() || !p.solved(rec.Job) || len(rec.Nodes) == 0 {
		return false
	}
	for _, n := range rec.Nodes {
		if n.Trace == nil || n.Trace.Sweeps.Count == 0 || n.Trace.Points == 0 {
			return false
		}
	}
	return true
}

// maxOtherTraces bounds the problems otherTraces names.
const maxOtherTraces = 4

// otherTraces names the problems of p's application that res has traces
// of, when p has none: a user who asked for another size or tolerance
// (the default ε, say) learns what the store can predict. "" without any.
func otherTraces(res *jobs.Results, p Problem) string {
	if res == nil {
		return ""
	}
	seen := map[Problem]bool{}
	var ps []Problem
	for _, r := range res.Records {
		q := problemOfRecord(r.Job)
		if q.App != p.App || seen[q] || !traced(r, q) {
			continue
		}
		seen[q] = true
		ps = append(ps, q)
	}
	if len(ps) == 0 {
		return ""
	}
	slices.SortFunc(ps, func(a, b Problem) int { return cmp.Or(cmp.Compare(a.N, b.N), cmp.Compare(a.Eps, b.Eps)) })
	names := make([]string, 0, maxOtherTraces+1)
	for _, q := range ps[:min(len(ps), maxOtherTraces)] {
		names = append(names, q.Describe())
	}
	if len(ps) > maxOtherTraces {
		names = append(names, fmt.Sprintf("%d more", len(ps)-maxOtherTraces))
	}
	return " (the store has traces of " + strings.Join(names, "; ") + ")"
}

// contention is how much slower a node's sweeps ran than on its own cores:
// the run's cores over the host's when every node shared the console's host
// (the embedded local grid), else 1.
func contention(rec jobs.RunRecord) float64 {
	if rec.Job.Inventory != jobs.InventoryEmbedded || rec.Machine.Cores <= 0 {
		return 1
	}
	return max(1, float64(rec.Job.Cores)/float64(rec.Machine.Cores))
}

// Build makes the model of p from the runs in res. Without a completed,
// traced run of p it returns an error wrapping ErrNoTrace that says what
// to run first.
func Build(res *jobs.Results, p Problem) (*Model, error) { return BuildWith(res, p, Options{}) }

// Options are what Build cannot read from the traces.
type Options struct {
	// SharedCores, when positive, says that every node, traced and
	// predicted alike, shares one host of that many cores (several nodes
	// per machine, as on the multi-host test harness): the replay shares
	// those cores between the nodes' sweeps, and an asynchronous run lasts
	// at least the CPU its sweeps and messages need on them.
	SharedCores int
	// Topology is the application's neighbour graph on a node count (each
	// rank's neighbours, as its Define lays the parts out), which dPerf
	// finds by static analysis; nil: a chain of slabs.
	Topology func(nodes int) ([][]int, error)
}

// BuildWith is Build with what the traces do not say.
func BuildWith(res *jobs.Results, p Problem, o Options) (*Model, error) {
	sharedCores := o.SharedCores
	var recs []jobs.RunRecord
	if res != nil {
		for _, r := range res.Records {
			if traced(r, p) {
				recs = append(recs, r)
			}
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w of %s in the results store: run it once first, e.g. gridtui run %s --scheme sync --nodes 2%s",
			ErrNoTrace, p.Describe(), p.runFlags(), otherTraces(res, p))
	}
	m := &Model{Problem: p, SharedCores: sharedCores, topology: o.Topology}
	var sentBytes, sendSeconds float64
	asyncIters := map[jobs.Scheme][]FitPoint{}
	var perPoint, linkBytes, overheads []float64
	byScheme := map[jobs.Scheme][]float64{}
	var delays [][2]float64 // (contention − 1, wait per iteration) of sync runs
	var syncs [][2]float64  // (nodes, iterations) of sync runs
	var spread [16]float64
	spreadN := 0
	for _, r := range recs {
		src := Source{ID: r.ID, Scheme: r.Job.Scheme, Nodes: len(r.Nodes), WallSeconds: r.WallSeconds}
		c := contention(r)
		points, busiest := 0, 0.0
		var ages []float64
		for _, n := range r.Nodes {
			tr := n.Trace
			points += tr.Points
			src.Iterations += float64(n.Iterations) / float64(len(r.Nodes))
			pp := tr.Sweeps.Mean() / c * float64(max(n.Cores, 1)) / float64(tr.Points)
			perPoint = append(perPoint, pp)
			byScheme[r.Job.Scheme] = append(byScheme[r.Job.Scheme], pp)
			if r.Job.Scheme == jobs.Synchronous && n.Iterations > 0 && r.Job.Inventory == jobs.InventoryEmbedded {
				delays = append(delays, [2]float64{c - 1, n.WaitSeconds / float64(n.Iterations)})
			}
			for i := range spread {
				spread[i] += tr.Sweeps.Quantile((float64(i)+0.5)/16) / tr.Sweeps.Mean()
			}
			spreadN++
			for _, l := range tr.Links {
				if n.Iterations > 0 && l.BytesSent > 0 {
					linkBytes = append(linkBytes, float64(l.BytesSent)/float64(n.Iterations))
				}
				if l.Async && l.Received > 0 {
					ages = append(ages, max(0, float64(n.Iterations)/float64(l.Received)-1))
				}
			}
			busiest = max(busiest, n.ComputeSeconds+n.SendSeconds+n.WaitSeconds)
		}
		m.Points = points
		if r.Job.Scheme == jobs.Synchronous {
			for _, n := range r.Nodes {
				sendSeconds += n.SendSeconds
				for _, l := range n.Trace.Links {
					sentBytes += float64(l.BytesSent)
				}
			}
		} else {
			asyncIters[r.Job.Scheme] = append(asyncIters[r.Job.Scheme], FitPoint{Nodes: len(r.Nodes), Measured: src.Iterations})
		}
		src.TraceStaleness = mean(ages)
		overheads = append(overheads, max(0, r.WallSeconds-busiest))
		if r.Job.Scheme == jobs.Synchronous {
			if m.SyncIterations == 0 {
				m.SyncIterations = r.Nodes[0].Iterations
			}
			syncs = append(syncs, [2]float64{float64(len(r.Nodes)), float64(r.Nodes[0].Iterations)})
		}
		m.Sources = append(m.Sources, src)
	}
	m.PointSeconds = mean(perPoint)
	m.SchemePointSeconds = map[jobs.Scheme]float64{}
	for sc, xs := range byScheme {
		m.SchemePointSeconds[sc] = mean(xs)
	}
	m.ExchangeDelay = fitDelay(delays)
	m.LinkBytes = mean(linkBytes)
	m.Overhead = median(overheads)
	for i := range spread {
		m.Spread = append(m.Spread, spread[i]/float64(spreadN))
	}
	m.SyncLine = fitSyncLine(syncs)
	if sentBytes > 0 {
		m.ByteSeconds = sendSeconds / sentBytes
	}
	m.AsyncSweeps = map[jobs.Scheme]RoundsLine{}
	for sc, pts := range asyncIters {
		// Falling is allowed: a hybrid run's ranks sweep in lockstep with
		// more synchronous neighbours as its clusters grow.
		m.AsyncSweeps[sc] = fitLog2(pts, true)
	}
	m.fitHybridExcess(recs)
	m.fitLockstep(recs)
	m.fitCPU(recs)
	m.fitRounds(res)
	return m, nil
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// DelayModel is a delay that grows linearly with the host's contention c
// (cores asked over cores there, at least 1): Base + PerContention·(c − 1).
// On a shared host a halo waits for its receiver to be scheduled, which the
// network's figures do not show.
type DelayModel struct {
	Base          float64 `json:"base_seconds"`
	PerContention float64 `json:"per_contention_seconds"`
}

// At is the delay at contention c.
func (d DelayModel) At(c float64) float64 { return max(0, d.Base+d.PerContention*(c-1)) }

// fitDelay fits the delay line by least squares on (c − 1, delay) points
// when they span at least three contention levels; with fewer, a slope
// would follow the host's other load rather than the job's, and the model
// is the median delay.
func fitDelay(pts [][2]float64) DelayModel {
	if len(pts) == 0 {
		return DelayModel{}
	}
	levels := map[float64]bool{}
	ys := make([]float64, len(pts))
	for i, p := range pts {
		levels[p[0]] = true
		ys[i] = p[1]
	}
	if len(levels) < 3 {
		return DelayModel{Base: median(ys)}
	}
	var mx, my float64
	for _, p := range pts {
		mx += p[0] / float64(len(pts))
		my += p[1] / float64(len(pts))
	}
	var sxy, sxx float64
	for _, p := range pts {
		sxy += (p[0] - mx) * (p[1] - my)
		sxx += (p[0] - mx) * (p[0] - mx)
	}
	if sxx == 0 {
		return DelayModel{Base: my}
	}
	b := sxy / sxx
	return DelayModel{Base: my - b*mx, PerContention: b}
}

// fitSyncLine fits iterations = A + B · nodes on the synchronous runs by
// least squares (B at least 0; B = 0 with one node count).
func fitSyncLine(pts [][2]float64) RoundsLine {
	var mx, my float64
	for _, p := range pts {
		mx += p[0] / float64(len(pts))
		my += p[1] / float64(len(pts))
	}
	var sxy, sxx float64
	for _, p := range pts {
		sxy += (p[0] - mx) * (p[1] - my)
		sxx += (p[0] - mx) * (p[0] - mx)
	}
	if sxx == 0 || sxy <= 0 {
		return RoundsLine{A: my}
	}
	return RoundsLine{A: my - sxy/sxx*mx, B: sxy / sxx}
}

// syncIterations is the synchronous iteration count on nodes nodes.
func (m *Model) syncIterations(nodes int) int {
	if m.SyncLine.A == 0 && m.SyncLine.B == 0 {
		return m.SyncIterations
	}
	return max(1, int(math.Round(m.SyncLine.A+m.SyncLine.B*float64(nodes))))
}

// Graph is the neighbour graph of the problem on nodes nodes: the
// application's (Options.Topology) or nil, a chain.
func (m *Model) Graph(nodes int) ([][]int, error) {
	if m.topology == nil {
		return nil, nil
	}
	g, err := m.topology(nodes)
	if err != nil {
		return nil, fmt.Errorf("predict: %w", err) // the application names itself and the node count
	}
	return g, nil
}
