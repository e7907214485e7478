package predict

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/jobs"
)

// BSPPrediction is a BSP program's predicted time on a network: the sum
// over its traced supersteps of W + h·g + l (BSP's cost model, W the
// traced computation in seconds, h the h-relation in bytes, g and l the
// network's as `gridtui bench bsp` measured them), plus the traced run's
// time outside its supersteps.
type BSPPrediction struct {
	Seconds float64 `json:"seconds"`
	Work    float64 `json:"work_seconds"` // ΣW
	Comm    float64 `json:"comm_seconds"` // g·Σh
	Sync    float64 `json:"sync_seconds"` // supersteps·l
	// Startup is the traced run's time outside its supersteps (the
	// programs' start, the pre-flight, the results), as traced.
	Startup    float64 `json:"startup_seconds"`
	Supersteps int     `json:"supersteps"` // traced
	H          int64   `json:"h_bytes"`    // Σh
	Network    string  `json:"network"`    // whose g and l
	G          float64 `json:"g_seconds_per_byte"`
	L          float64 `json:"l_seconds"`
	Source     string  `json:"source"`         // the traced run's record id
	SourceWall float64 `json:"source_seconds"` // its wall time
}

// PredictBSP predicts a BSP program from its traced supersteps (groups of
// consecutive supersteps, as jobs.RunRecord.Supersteps keeps them) with
// network's g and l (all pairs' when network has none of its own). A
// negative g or l (noise of a loaded machine's fit) counts as 0.
func (p BSPParams) PredictBSP(groups []gridapp.SuperstepGroup, network string) (BSPPrediction, error) {
	if len(groups) == 0 {
		return BSPPrediction{}, fmt.Errorf("%w: the traced run kept no supersteps", ErrNoTrace)
	}
	n, ok := p.Networks[network]
	if !ok {
		if n, ok = p.Networks[AllPairs]; !ok {
			return BSPPrediction{}, fmt.Errorf("predict: bsp parameters: no g and l for %s nor for all pairs: run gridtui bench bsp", network)
		}
		network = AllPairs
	}
	out := BSPPrediction{Network: network, G: math.Max(n.G, 0), L: math.Max(n.L, 0)}
	for _, g := range groups {
		out.Supersteps += g.Supersteps
		out.Work += g.Work
		out.H += g.H
	}
	out.Comm = float64(out.H) * out.G
	out.Sync = float64(out.Supersteps) * out.L
	out.Seconds = out.Work + out.Comm + out.Sync
	return out, nil
}

// PredictBSPTrace predicts a BSP program from a traced run of it: its
// supersteps by PredictBSP, plus the run's time outside them (BSPStartup).
func (p BSPParams) PredictBSPTrace(tr jobs.RunRecord, network string) (BSPPrediction, error) {
	out, err := p.PredictBSP(tr.Supersteps, network)
	if err != nil {
		return out, err
	}
	out.Startup = BSPStartup(tr)
	out.Seconds += out.Startup
	out.Source, out.SourceWall = tr.ID, tr.WallSeconds
	return out, nil
}

// BSPStartup is a BSP run's wall time outside its supersteps: the wall
// time less the longest time a process spent in them (computation,
// communication, barrier: its node's compute, send and wait); 0 when the
// record has no such times.
func BSPStartup(r jobs.RunRecord) float64 {
	in := 0.0
	for _, n := range r.Nodes {
		in = math.Max(in, n.ComputeSeconds+n.SendSeconds+n.WaitSeconds)
	}
	if in == 0 {
		return 0
	}
	return math.Max(0, r.WallSeconds-in)
}

// SlowestNetwork is the network among those a job's pairs use whose
// supersteps cost most (the largest l, then the largest g), of those
// with figures of their own: a superstep waits for its slowest pair.
// AllPairs when none has figures.
func (p BSPParams) SlowestNetwork(networks []string) string {
	best := AllPairs
	var bn BSPNetwork
	for _, name := range networks {
		n, ok := p.Networks[name]
		if !ok || name == AllPairs {
			continue
		}
		if best == AllPairs || n.L > bn.L || n.L == bn.L && n.G > bn.G {
			best, bn = name, n
		}
	}
	return best
}

// BSPTrace is the newest successful run of a BSP problem on nodes nodes
// (of inventory inv; "" for any) that kept its supersteps. Without one it
// returns an error wrapping ErrNoTrace that says what to run, and on which
// node counts the problem was traced.
func BSPTrace(res *jobs.Results, p Problem, nodes int, inv string) (jobs.RunRecord, error) {
	var other []int
	if res != nil {
		for _, r := range slices.Backward(res.Records) {
			if !r.OK() || len(r.Supersteps) == 0 || !p.solved(r.Job) || inv != "" && r.Job.Inventory != inv {
				continue
			}
			if r.Job.Nodes == nodes {
				return r, nil
			}
			if !slices.Contains(other, r.Job.Nodes) {
				other = append(other, r.Job.Nodes)
			}
		}
	}
	msg := fmt.Sprintf("no traced run of %s on %d nodes: run it once (gridtui run %s --nodes %d)", p.Describe(), nodes, p.runFlags(), nodes)
	if len(other) > 0 {
		slices.Sort(other)
		var s []string
		for _, n := range other {
			s = append(s, fmt.Sprint(n))
		}
		msg += "; traced on " + strings.Join(s, ", ") + " nodes (BSP traces are not rescaled)"
	}
	return jobs.RunRecord{}, fmt.Errorf("%w: %s", ErrNoTrace, msg)
}
