package compose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// SetBSP gives the Predict panel the BSP cost model's g and l that
// `gridtui bench bsp` kept (predict.LoadBSP; nil: none measured); a BSP
// program's job is predicted with them.
func (v *Model) SetBSP(p *predict.BSPParams) {
	v.fc.params, v.fc.key = p, ""
}

// bspRequest marks r as a BSP program's when spec's application has
// supersteps (bsp.Supersteps), with the networks of the job's pairs.
func (v *Model) bspRequest(spec jobs.Spec, r *predictRequest) {
	app, _, err := spec.Application()
	if err != nil {
		return
	}
	if _, ok := app.(interface{ Supersteps() }); !ok {
		return
	}
	r.bsp = true
	if v.inv != nil {
		r.inv = engine.InventoryKey(v.inv)
	}
	for _, p := range v.pairs {
		if n := string(p.Route.Network); p.Err == nil && n != "" && !slices.Contains(r.pairs, n) {
			r.pairs = append(r.pairs, n)
		}
	}
	slices.Sort(r.pairs)
}

// runBSPPrediction predicts a BSP program's job: the supersteps of the
// newest traced run of its program on as many nodes, each W + h·g + l
// with the g and l of the slowest network of its pairs.
func runBSPPrediction(res *jobs.Results, params *predict.BSPParams, r predictRequest) (*predict.BSPPrediction, error) {
	tr, err := predict.BSPTrace(res, r.problem, r.nodes, r.inv)
	if err != nil {
		return nil, err
	}
	if params == nil {
		return nil, fmt.Errorf("predict: no BSP parameters (g and l) measured: run gridtui bench bsp")
	}
	p, err := params.PredictBSPTrace(tr, params.SlowestNetwork(r.pairs))
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// bspLines are a BSP prediction's time and its terms, the network whose
// g and l it used and the traced run it rests on.
func (v Model) bspLines(p *predict.BSPPrediction, w int) []string {
	s := v.common.Styles
	row := func(label, val, note string) string {
		return fitLine("  "+padRight(label, 11)+" "+val+s.Dim.Render(note), w)
	}
	net := fmt.Sprintf("g %.3g ns/B, l %s", p.G*1e9, secs(p.L))
	if pr := v.fc.params; pr != nil && !pr.Measured.IsZero() {
		net += s.Dim.Render(" (bench bsp, " + pr.Measured.UTC().Format("2 Jan 15:04") + ")")
	}
	out := []string{"",
		row("network", p.Network+": "+net, ""),
		row("time", secs(p.Seconds), fmt.Sprintf(" for %d supersteps", p.Supersteps)),
		row("W", secs(p.Work), " computation, as traced"),
		row("h·g", secs(p.Comm), fmt.Sprintf(" h-relations of %s in all", bytesText(p.H))),
		row("l", secs(p.Sync), fmt.Sprintf(" %d barriers", p.Supersteps)),
		row("start-up", secs(p.Startup), " outside the supersteps, as traced"),
	}
	return append(out, s.Dim.Render(fitLine(fmt.Sprintf("  rests on run %s (%s measured)", p.Source, secs(p.SourceWall)), w)))
}

// bytesText writes a byte count with a binary unit.
func bytesText(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f, i = f/1024, i+1
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.3g", f), ".0") + " " + units[i]
}
