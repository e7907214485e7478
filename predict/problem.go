package predict

import (
	"fmt"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/jobs"
)

// ProblemOf is the problem a job's runs are recorded under: the
// application with the n and ε it declares, as the engine records them. A
// job whose application or parameters do not check returns their error.
func ProblemOf(spec jobs.Spec) (Problem, error) {
	spec = spec.WithDefaults()
	p := Problem{App: spec.App}
	_, v, err := spec.Application()
	if err != nil {
		return p, err
	}
	p.Params = jobs.RunConfig{App: p.App, Params: v.Encode(), Iterations: spec.Iterations}.Instance().ParamKey()
	if v.Declares("n", gridapp.Int) {
		p.N = v.Int("n")
	}
	if v.Declares("eps", gridapp.Float) {
		p.Eps = v.Float("eps")
	}
	return p, nil
}

// declares reports which of n (an integer) and eps (a real) the problem's
// application declares; an application not registered here declares both.
func (p Problem) declares() (n, eps bool) {
	app, err := gridapp.Lookup(p.App)
	if err != nil {
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
// parameters its application declares among n and eps, with --n and --eps
// for the default job's application (the others, such
// as a matrix file or a program, the user knows best).
func (p Problem) runFlags() string {
	if p.App == jobs.DefaultSpec().App { // gridtui run's own application
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
