package predict

import (
	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/jobs"
)

// ProblemOf is the problem a job's runs are recorded under: an application
// other than the obstacle takes n and ε from its own parameters, as the
// engine records them. A job whose application or parameters do not check
// returns their error.
func ProblemOf(spec jobs.Spec) (Problem, error) {
	p := Problem{App: spec.App, N: spec.Obstacle.N, Eps: spec.Obstacle.Eps}
	if p.App == "" {
		p.App = "obstacle"
	}
	if p.App == "obstacle" {
		return p, nil
	}
	app, v, err := spec.Application()
	if err != nil {
		return p, err
	}
	for _, prm := range app.Params() {
		switch {
		case prm.Name == "n" && prm.Kind == gridapp.Int:
			p.N = v.Int("n")
		case prm.Name == "eps" && prm.Kind == gridapp.Float:
			p.Eps = v.Float("eps")
		}
	}
	return p, nil
}
