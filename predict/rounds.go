package predict

import (
	"math"
	"slices"

	"github.com/gridtui/gridtui/jobs"
)

// StalenessModel is how long asynchronous iterations take to converge,
// counted in rounds of their slowest asynchronous link: a run of nodes
// lasts Rounds(scheme, nodes) · SyncIterations · T. T is the interval
// between two updates delivered over that link as the replay finds it (the
// transfer time where the link is saturated and skipped sends are the
// rule, a sweep where compute is the bottleneck), and for an asynchronous
// run the time an update takes to reach that link across the grid when
// the nodes share a host's cores (see crossing). The factor is fitted per
// scheme on the recorded runs: for the hybrid scheme from the sweeps a
// cluster does in lockstep per round, L, between L^−α and 1/L + f∞
// (HybridAlpha, HybridFloor, see hybridRounds),
// and where the traces give no exponent as a line in log₂ of the node
// count (slope at least 0); for the asynchronous scheme the
// same, but where its rounds have a crossing, on its runs of the largest
// node count recorded, their mean (the crossing carries the growth with
// the node count; a smaller run's clusters have fewer hops, one node per
// cluster none, and its factor is that of another regime). Fit lists each
// run's measured and modelled factor.
type StalenessModel struct {
	Lines map[jobs.Scheme]RoundsLine `json:"lines"`
	// Pooled is the line over every asynchronous and hybrid run, for a
	// scheme without runs of its own.
	Pooled RoundsLine `json:"pooled"`
	Runs   int        `json:"runs"` // the runs it was fitted on
	// HybridAlpha is α in the hybrid scheme's factor L^−α, L the sweeps a
	// cluster does in lockstep per round (see hybridFactor); 0: the
	// hybrid scheme's line.
	HybridAlpha float64 `json:"hybrid_alpha,omitempty"`
	// HybridFloor is f∞ in the floor 1/L + f∞ that bounds the hybrid
	// factor with L^−α (see hybridRounds); 0: L^−α alone.
	HybridFloor float64    `json:"hybrid_floor,omitempty"`
	Fit         []FitPoint `json:"fit,omitempty"`
}

// RoundsLine is the rounds factor A + B · log₂(nodes).
type RoundsLine struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// minRounds keeps an extrapolated factor positive.
const minRounds = 0.05

// At is the factor on nodes nodes.
func (l RoundsLine) At(nodes int) float64 {
	return max(minRounds, l.A+l.B*math.Log2(float64(max(nodes, 1))))
}

// Rounds is the factor of scheme on nodes nodes.
func (s StalenessModel) Rounds(scheme jobs.Scheme, nodes int) float64 {
	if l, ok := s.Lines[scheme]; ok {
		return l.At(nodes)
	}
	return s.Pooled.At(nodes)
}

// FitPoint is one recorded run against the staleness model.
type FitPoint struct {
	ID     string      `json:"id"`
	Scheme jobs.Scheme `json:"scheme"`
	Nodes  int         `json:"nodes"`
	// Round is the replayed interval between updates on the run's slowest
	// asynchronous link, in seconds, and Crossing the time an update took
	// to reach that link (see crossing), which T adds to it.
	Round    float64 `json:"round_seconds"`
	Crossing float64 `json:"crossing_seconds,omitempty"`
	Measured float64 `json:"measured_factor"`
	// Sweeps is, for a hybrid run, its round over the time per iteration
	// of its cluster that iterated fastest: the sweeps that cluster did
	// per round (L in hybridFactor).
	Sweeps   float64 `json:"sweeps_per_round,omitempty"`
	Modelled float64 `json:"modelled_factor"`
}

// fitRounds replays each asynchronous or hybrid source's own job on its
// traced platform for its round and crossing, takes its factor (wall time
// less the overhead, over SyncIterations rounds of both) and fits the
// lines.
func (m *Model) fitRounds(res *jobs.Results) {
	if m.SyncIterations == 0 {
		return
	}
	recs := map[string]jobs.RunRecord{}
	for _, r := range res.Records {
		recs[r.ID] = r
	}
	var pts []FitPoint
	for _, s := range m.Sources {
		if s.Scheme == jobs.Synchronous {
			continue
		}
		g, err := m.Graph(s.Nodes)
		if err != nil {
			continue
		}
		r, err := newReplay(m, PlatformFor(res, m, s.Nodes), Job{Scheme: s.Scheme, Cores: 1, Graph: g})
		if err != nil {
			continue
		}
		iters := m.syncIterations(s.Nodes)
		ends := r.run(min(iters, maxReplay))
		round := r.round(ends)
		if round <= 0 {
			continue
		}
		cross := r.crossing(m, s.Scheme, ends)
		pt := FitPoint{ID: s.ID, Scheme: s.Scheme, Nodes: s.Nodes, Round: round, Crossing: cross,
			Measured: max(0, s.WallSeconds-m.Overhead) / (float64(iters) * (round + cross))}
		if it := fastestIteration(recs[s.ID]); s.Scheme == jobs.Hybrid && it > 0 {
			pt.Sweeps = round / it
		}
		pts = append(pts, pt)
	}
	st := StalenessModel{Lines: map[jobs.Scheme]RoundsLine{}, Runs: len(pts), Pooled: fitLine(pts)}
	for _, sc := range []jobs.Scheme{jobs.Asynchronous, jobs.Hybrid} {
		var own []FitPoint
		for _, p := range pts {
			if p.Scheme == sc {
				own = append(own, p)
			}
		}
		if sc == jobs.Asynchronous && slices.ContainsFunc(own, func(p FitPoint) bool { return p.Crossing > 0 }) {
			own = largestNodes(own)
		}
		if len(own) > 0 {
			st.Lines[sc] = fitLine(own)
		}
	}
	st.HybridAlpha = fitHybridRounds(pts)
	if st.HybridAlpha > 0 {
		st.HybridFloor = fitHybridFloor(pts)
	}
	for i, p := range pts {
		pts[i].Modelled = st.Rounds(p.Scheme, p.Nodes)
		if p.Scheme == jobs.Hybrid && st.HybridAlpha > 0 && p.Sweeps > 0 {
			pts[i].Modelled = hybridRounds(st.HybridAlpha, st.HybridFloor, p.Sweeps)
		}
	}
	st.Fit = pts
	m.Staleness = st
}

// largestNodes keeps the points of the largest node count among pts.
func largestNodes(pts []FitPoint) []FitPoint {
	most := 0
	for _, p := range pts {
		most = max(most, p.Nodes)
	}
	var out []FitPoint
	for _, p := range pts {
		if p.Nodes == most {
			out = append(out, p)
		}
	}
	return out
}

// fitLine fits factor = A + B · log₂(nodes) by least squares when the
// points span two node counts or more (else B = 0 and A their mean); a
// negative slope, which staleness cannot cause, is read as noise: B = 0.
func fitLine(pts []FitPoint) RoundsLine { return fitLog2(pts, false) }

// fitLog2 fits Measured = A + B · log₂(nodes) by least squares, B = 0 when
// the points span one node count, or when falling is not allowed and B < 0.
func fitLog2(pts []FitPoint, falling bool) RoundsLine {
	if len(pts) == 0 {
		return RoundsLine{A: 1}
	}
	var mx, my float64
	for _, p := range pts {
		mx += math.Log2(float64(p.Nodes)) / float64(len(pts))
		my += p.Measured / float64(len(pts))
	}
	var sxy, sxx float64
	for _, p := range pts {
		dx := math.Log2(float64(p.Nodes)) - mx
		sxy += dx * (p.Measured - my)
		sxx += dx * dx
	}
	if sxx == 0 || sxy <= 0 && !falling {
		return RoundsLine{A: my}
	}
	b := sxy / sxx
	return RoundsLine{A: my - b*mx, B: b}
}
