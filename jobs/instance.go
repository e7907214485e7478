package jobs

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Instance is the problem a run solved: the application and its
// parameters. Runs are compared (Tables III and IV, t1 of the computing
// gain) only within one instance: a single-node run of the same
// application with the same parameters gives t1.
type Instance struct {
	App string
	N   int
	Eps float64
	// Params are an application's parameters other than the obstacle
	// problem's (RunConfig.Params, defaults included); nil for the obstacle
	// problem, whose instance is (N, Eps).
	Params map[string]string
}

// ObstacleInstance is the obstacle problem at (n, eps).
func ObstacleInstance(n int, eps float64) Instance {
	return Instance{App: "obstacle", N: n, Eps: eps}
}

// Instance returns the problem instance of a recorded run.
func (c RunConfig) Instance() Instance {
	in := Instance{App: c.App, N: c.N, Eps: c.Eps, Params: c.Params}
	if in.App == "" {
		in.App = "obstacle" // records older than other applications
	}
	if in.App == "obstacle" {
		in.Params = nil
	}
	in.Params = canonicalParams(in.App, in.Params)
	if c.Iterations > 0 {
		// Exactly K sweeps: timed over them, not to a solution, so a
		// problem of its own, beside the runs that converged.
		in.Params = maps.Clone(in.Params)
		if in.Params == nil {
			in.Params = map[string]string{}
		}
		in.Params["iterations"] = strconv.Itoa(c.Iterations)
	}
	return in
}

// canonicalParams writes params as the application's declarations encode
// them (gridapp.Values.Encode), so that a run given eps=1e-8 and one given
// eps=1e-08 (or --eps 1e-8, or eps = 1e-8 in a job file) are one problem
// with one t1; it leaves out the layout parameters (Param.Layout: blocks =
// 2x2x1 and blocks = auto are one problem) and names a file parameter by
// its content's hash (the same matrix under two paths is one problem, two
// matrices at one path are two). Params that do not parse, or of an
// application this binary does not carry, are kept as recorded.
func canonicalParams(app string, params map[string]string) map[string]string {
	a, err := gridapp.Lookup(app)
	if err != nil || params == nil {
		return params
	}
	v, err := gridapp.Parse(a.Params(), params)
	if err != nil {
		return params
	}
	out := v.Encode()
	for _, p := range a.Params() {
		switch {
		case p.Layout:
			delete(out, p.Name)
		case p.File && out[p.Name] != "":
			out[p.Name] = fileIdentity(out[p.Name])
		}
	}
	return out
}

// ParamKey writes the instance's parameters as one comparable string
// ("eps=1e-08 n=32", sorted): what the predictor keys its problems by.
func (in Instance) ParamKey() string {
	keys := slices.Sorted(maps.Keys(in.Params))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + in.Params[k]
	}
	return strings.Join(parts, " ")
}

// AppParams returns the parameters of the run's application as a job gives
// them: Params, or, in a record written before every application kept its
// parameters (the obstacle problem's, which kept only n and ε), n and eps.
func (c RunConfig) AppParams() map[string]string {
	if c.Params != nil || (c.N == 0 && c.Eps == 0) {
		return c.Params
	}
	return map[string]string{"n": strconv.Itoa(c.N), "eps": strconv.FormatFloat(c.Eps, 'g', -1, 64)}
}

// Has reports whether c is a run of the instance.
func (in Instance) Has(c RunConfig) bool {
	return in.Equal(c.Instance())
}

// Equal reports whether two instances are the same problem.
func (in Instance) Equal(o Instance) bool {
	return in.App == o.App && in.N == o.N && in.Eps == o.Eps && maps.Equal(in.Params, o.Params)
}

// String names the instance as titles show it: "obstacle problem n = 48,
// eps = 1e-08", "poisson blocks=auto eps=1e-08 n=32".
func (in Instance) String() string {
	if in.App == "obstacle" || in.App == "" {
		return fmt.Sprintf("obstacle problem n = %d, eps = %g", in.N, in.Eps)
	}
	keys := slices.Sorted(maps.Keys(in.Params))
	parts := []string{in.App}
	for _, k := range keys {
		parts = append(parts, k+"="+in.Params[k])
	}
	if len(keys) == 0 {
		parts = append(parts, fmt.Sprintf("n = %d, eps = %g", in.N, in.Eps))
	}
	return strings.Join(parts, " ")
}
