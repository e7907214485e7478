package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// isBSP reports whether spec's application is a BSP program
// (bsp.Supersteps): its prediction is BSP's cost model.
func isBSP(spec jobs.Spec) bool {
	app, _, err := spec.Application()
	if err != nil {
		return false
	}
	_, ok := app.(interface{ Supersteps() })
	return ok
}

// predictBSP is gridtui predict for a BSP program's job: the supersteps
// of the newest traced run of the program on as many nodes, each W + h·g
// + l with the g and l bench bsp kept in dir for the slowest network of
// the job's pairs, plus that run's start-up.
func predictBSP(w io.Writer, spec jobs.Spec, inv *inventory.Inventory, res *jobs.Results, dir string, prob predict.Problem, asJSON bool) error {
	names, err := spec.Nodes.Resolve(grid.Refs(inv), inv.Source)
	if err != nil {
		return usageError(fmt.Errorf("gridtui predict: --nodes: %w", err))
	}
	tr, err := predict.BSPTrace(res, prob, len(names), engine.InventoryKey(inv))
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	params, err := predict.LoadBSP(dir)
	if errors.Is(err, os.ErrNotExist) {
		return &exitError{code: 1, err: fmt.Errorf("gridtui predict: no BSP parameters (g and l) in %s: run gridtui bench bsp", dir)}
	}
	if err != nil {
		return err
	}
	var nets []string
	if h, err := grid.Htable(inv); err == nil {
		for i := range names {
			for j := i + 1; j < len(names); j++ {
				if r, err := h.Route(names[i], names[j]); err == nil {
					nets = append(nets, string(r.Network))
				}
			}
		}
	}
	p, err := params.PredictBSPTrace(tr, params.SlowestNetwork(nets))
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if asJSON {
		return jsonout.Write(w, p)
	}
	d := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)).Round(time.Microsecond) }
	_, err = fmt.Fprintf(w, "%s on %d nodes: %s for %d supersteps (BSP: W + h·g + l per superstep)\n"+
		"  W         %-10s computation, as traced\n"+
		"  h·g       %-10s h-relations of %d bytes in all\n"+
		"  l         %-10s %d barriers\n"+
		"  start-up  %-10s outside the supersteps, as traced\n"+
		"g and l of %s: g %.4g ns/byte, l %s (gridtui bench bsp, %s)\n"+
		"rests on run %s (%s measured)\n",
		prob.App, len(names), d(p.Seconds), p.Supersteps, d(p.Work), d(p.Comm), p.H, d(p.Sync), p.Supersteps, d(p.Startup),
		p.Network, p.G*1e9, d(p.L), params.Measured.UTC().Format("2006-01-02 15:04 UTC"), p.Source, d(p.SourceWall))
	return err
}
