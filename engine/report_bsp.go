package engine

import (
	"errors"
	"os"
	"strings"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// setBSPPrediction predicts a BSP program's run by BSP's cost model: the
// supersteps of the newest traced run of its problem on as many nodes,
// each costing W + h·g + l with the g and l `gridtui bench bsp` kept in
// the data directory for the slowest network of the run's pairs, plus
// that run's start-up (predict.PredictBSPTrace). Nothing
// without a traced run; without g and l, Unpredicted says so.
func setBSPPrediction(rep *Report, s *submission, res *jobs.Results, dir string) {
	sp := rep.Spec
	c := jobs.RunConfig{App: sp.App}
	recordParams(&c, sp)
	prob := predict.Problem{App: c.App, N: c.N, Eps: c.Eps, Params: c.Instance().ParamKey()}
	tr, err := predict.BSPTrace(res, prob, len(rep.Nodes), s.inventory)
	if err != nil {
		return // no traced run of the program: nothing to say
	}
	d, err := jobs.DataDir(dir)
	if err != nil {
		return
	}
	params, err := predict.LoadBSP(d)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			rep.Unpredicted = "no BSP parameters (g and l) measured on this data directory: run gridtui bench bsp"
		} else {
			rep.Unpredicted = strings.TrimPrefix(err.Error(), "predict: ")
		}
		return
	}
	var nets []string
	for _, r := range s.plan.Routes {
		nets = append(nets, string(r.Network))
	}
	p, err := params.PredictBSPTrace(tr, params.SlowestNetwork(nets))
	if err != nil {
		rep.Unpredicted = strings.TrimPrefix(err.Error(), "predict: ")
		return
	}
	rep.Predicted = &Prediction{Seconds: p.Seconds, MeanIterations: float64(p.Supersteps), Sources: 1, BSP: &p}
}
