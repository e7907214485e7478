package predict

import (
	"fmt"
	"strings"

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
	p.N, p.Eps = 0, 0 // as the engine records them: only what the application declares
	p.Params = jobs.RunConfig{App: p.App, Params: v.Encode()}.Instance().ParamKey()
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

// declares reports which of n (an integer) and eps (a real) the problem's
// application declares; the obstacle problem and an application not
// registered here declare both.
func (p Problem) declares() (n, eps bool) {
	app, err := gridapp.Lookup(p.App)
	if p.App == "obstacle" || err != nil {
		return true, true
	}
	for _, prm := range app.Params() {
		n = n || prm.Name == "n" && prm.Kind == gridapp.Int
		eps = eps || prm.Name == "eps" && prm.Kind == gridapp.Float
	}
	return n, eps
}

// Describe names the problem with the size and tolerance its application
// declares, e.g. "poisson n = 48, ε = 1e-08" or "sparse ε = 1e-10".
func (p Problem) Describe() string {
	n, eps := p.declares()
	var parts []string
	if n {
		parts = append(parts, fmt.Sprintf("n = %d", p.N))
	}
	if eps {
		parts = append(parts, fmt.Sprintf("ε = %g", p.Eps))
	}
	if len(parts) == 0 {
		return p.App
	}
	return p.App + " " + strings.Join(parts, ", ")
}

// runFlags are the `gridtui run` flags that give the problem: only the
// parameters its application declares among n and eps (the others, such
// as a matrix file or a program, the user knows best).
func (p Problem) runFlags() string {
	if p.App == "obstacle" {
		return fmt.Sprintf("--n %d --eps %g", p.N, p.Eps)
	}
	out := "--app " + p.App
	app, err := gridapp.Lookup(p.App)
	if err != nil {
		return out + fmt.Sprintf(" --param n=%d --param eps=%g", p.N, p.Eps)
	}
	for _, prm := range app.Params() {
		switch {
		case prm.Name == "n" && prm.Kind == gridapp.Int:
			out += fmt.Sprintf(" --param n=%d", p.N)
		case prm.Name == "eps" && prm.Kind == gridapp.Float:
			out += fmt.Sprintf(" --param eps=%g", p.Eps)
		}
	}
	return out
}
