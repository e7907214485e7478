package predict

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gridtui/gridtui/jobs"
)

// Request is a job to predict before it runs: the problem, its size on a
// platform and what-if edits of the networks.
type Request struct {
	Problem Problem
	// Nodes is the job's node count: the traced runs' clusters are resized
	// to it (see PlatformFor). Clusters, when set, are the job's clusters
	// instead.
	Nodes    int
	Clusters []Cluster
	Cores    int // per node; < 1 counts as 1
	// Networks are what-if edits, as SetNetwork takes them
	// ("ethernet=10Gbit/s,100us").
	Networks []string
	// Schemes to predict; nil: synchronous, asynchronous and hybrid.
	Schemes []jobs.Scheme
	// MaxTraceNodes, when positive, rests the prediction only on runs of
	// at most that many nodes.
	MaxTraceNodes int
	// SharedCores and Topology: see Options.
	SharedCores int
	Topology    func(nodes int) ([][]int, error)
	// Inside is the network inside each cluster as the inventory gives it
	// (grid.InsideNetworks), for the clusters no traced run shows a link inside:
	// a run of one node traces no network. nil: Ethernet for those.
	Inside map[string]string
	// InventoryNodes is the inventory's node count, which a caution's
	// advice to run the problem on another node count stays within; 0:
	// unknown.
	InventoryNodes int
}

// Outlook is what every scheme of one job is expected to do on one
// platform, side by side, with the traced runs (Model.Sources) it rests on.
type Outlook struct {
	Problem     Problem      `json:"problem"`
	Cores       int          `json:"cores"`
	Platform    Platform     `json:"platform"`
	Predictions []Prediction `json:"predictions"`
	// Unavailable says, per scheme, why it has no prediction and what to
	// run first.
	Unavailable map[jobs.Scheme]string `json:"unavailable,omitempty"`
	// Cautions say, per predicted scheme, what its traces leave unknown
	// for this job (see cautions); nil when nothing.
	Cautions map[jobs.Scheme]string `json:"cautions,omitempty"`
	// Verdict says which scheme is predicted fastest; nil with fewer than
	// two predictions.
	Verdict *Verdict `json:"verdict,omitempty"`
	Model   *Model   `json:"model"`
}

// CloseCall is the relative gap between two schemes' predicted times
// under which a prediction does not tell which is faster. On the
// multi-host harness (passes 4–15, docs/bench/prediction-passes.md, "Which scheme wins"),
// pairs of schemes predicted less than 5 % apart ran in the predicted
// order 17 times in 28 (61 %, hardly better than a coin), pairs further
// apart 223 times in 236 (94 %): the sums of `gridtui bench predict`'s
// pairs line (Validation.Pairs) over those passes' stores.
const CloseCall = 0.05

// Verdict is the scheme an Outlook predicts fastest and those too close
// to it to tell apart.
type Verdict struct {
	Fastest jobs.Scheme `json:"fastest"`
	// Next is the scheme predicted next fastest and Gap how much longer it
	// takes, relative to Fastest's time (0.08: 8 % longer).
	Next jobs.Scheme `json:"next"`
	Gap  float64     `json:"gap"`
	// Close are the schemes within CloseCall of Fastest, fastest first:
	// runs could order them either way.
	Close []jobs.Scheme `json:"close,omitempty"`
}

// Lead says how far Fastest is ahead of Next: "8 % ahead of hybrid",
// "hybrid takes 4.0× as long" from twice as long on.
func (v *Verdict) Lead() string {
	if v.Gap >= 1 {
		return fmt.Sprintf("%s takes %.1f× as long", v.Next, 1+v.Gap)
	}
	return fmt.Sprintf("%.0f %% ahead of %s", 100*v.Gap, v.Next)
}

// verdict orders the predictions; nil with fewer than two.
func verdict(ps []Prediction) *Verdict {
	if len(ps) < 2 {
		return nil
	}
	ps = slices.Clone(ps)
	slices.SortStableFunc(ps, func(a, b Prediction) int { return cmp.Compare(a.Seconds, b.Seconds) })
	v := &Verdict{Fastest: ps[0].Scheme, Next: ps[1].Scheme}
	if ps[0].Seconds > 0 {
		v.Gap = ps[1].Seconds/ps[0].Seconds - 1
	}
	for _, p := range ps[1:] {
		if p.Seconds <= ps[0].Seconds*(1+CloseCall) {
			v.Close = append(v.Close, p.Scheme)
		}
	}
	return v
}

// AllSchemes are the schemes an Outlook predicts by default.
var AllSchemes = []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous, jobs.Hybrid}

// PredictSchemes predicts req for each of its schemes from the traces in
// res. With no usable trace of the problem it returns an error wrapping
// ErrNoTrace that says what to run first; a scheme the traces cannot
// predict (no asynchronous run to fit staleness on) is listed in
// Unavailable with the reason. A bad platform edit returns an error
// wrapping ErrPlatform.
func PredictSchemes(res *jobs.Results, req Request) (*Outlook, error) {
	if req.MaxTraceNodes > 0 && res != nil {
		kept := *res
		kept.Records = slices.DeleteFunc(slices.Clone(res.Records), func(r jobs.RunRecord) bool { return len(r.Nodes) > req.MaxTraceNodes })
		res = &kept
	}
	m, err := BuildWith(res, req.Problem, Options{SharedCores: req.SharedCores, Topology: req.Topology})
	if err != nil {
		return nil, err
	}
	pl := PlatformWith(res, m, max(req.Nodes, 1), req.Inside)
	if len(req.Clusters) > 0 {
		pl.Clusters = slices.Clone(req.Clusters)
	}
	for _, e := range req.Networks {
		// A name the platform does not know would be added and used by no
		// link: a typo would change nothing and say nothing.
		if name, _, ok := strings.Cut(e, "="); ok && name != "" {
			if _, known := pl.Networks[name]; !known {
				return nil, fmt.Errorf("%w: %q: no such network here (its networks: %s)", ErrPlatform, name,
					strings.Join(slices.Sorted(maps.Keys(pl.Networks)), ", "))
			}
		}
		if err := pl.SetNetwork(e); err != nil {
			return nil, err
		}
	}
	graph, err := m.Graph(pl.Nodes())
	if err != nil {
		return nil, err
	}
	out := &Outlook{Problem: req.Problem, Cores: max(req.Cores, 1), Platform: pl, Model: m, Unavailable: map[jobs.Scheme]string{}}
	schemes := req.Schemes
	if schemes == nil {
		schemes = AllSchemes
	}
	for _, s := range schemes {
		if s != jobs.Synchronous && m.Staleness.Runs == 0 {
			// The fit relates asynchronous iteration counts to a synchronous
			// run's, so it needs one of each.
			out.Unavailable[s] = "the staleness model is fitted on traced asynchronous or hybrid runs against a traced synchronous run of the same problem: run it with --scheme sync and --scheme " + string(s)
			if m.SyncIterations == 0 {
				out.Unavailable[s] = "the staleness model needs a traced synchronous run of the same problem: run it once with --scheme sync"
			}
			continue
		}
		p, err := Predict(m, pl, Job{Scheme: s, Cores: out.Cores, Graph: graph})
		if err != nil {
			if !errors.Is(err, ErrNoTrace) {
				return nil, err
			}
			out.Unavailable[s] = strings.TrimPrefix(err.Error(), "predict: ")
			continue
		}
		out.Predictions = append(out.Predictions, p)
	}
	out.Verdict = verdict(out.Predictions)
	out.Cautions = cautions(m, out.Predictions, pl.Nodes(), req.InventoryNodes)
	return out, nil
}

// tracedRange is the range of value over the fit points of scheme the
// staleness model was fitted on (those where it is positive); 0, 0
// without one.
func tracedRange(m *Model, scheme jobs.Scheme, value func(FitPoint) float64) (lo, hi float64) {
	for _, p := range m.Staleness.Fit {
		if x := value(p); p.Scheme == scheme && x > 0 {
			if hi == 0 || x < lo {
				lo = x
			}
			hi = max(hi, x)
		}
	}
	return lo, hi
}

// farFrom reports whether x lies more than farOutside times outside the
// range lo–hi (false for x or the range unknown).
func farFrom(x, lo, hi float64) bool {
	return x > 0 && hi > 0 && (x > farOutside*hi || x < lo/farOutside)
}

// cautions says, for each asynchronous or hybrid prediction, what its
// traces leave unknown for this job (see caution); nil when nothing.
func cautions(m *Model, ps []Prediction, nodes, inventory int) map[jobs.Scheme]string {
	var out map[jobs.Scheme]string
	for _, p := range ps {
		if c := caution(m, p, nodes, inventory); c != "" {
			if out == nil {
				out = map[jobs.Scheme]string{}
			}
			out[p.Scheme] = c
		}
	}
	return out
}

// caution is what the traces leave unknown for an asynchronous or hybrid
// prediction p: with no traced run of its scheme at all, that its
// iterations come from the other scheme's staleness fit and can be far
// off; for an asynchronous one whose slowest link's round, or a hybrid one
// whose L, lies far outside the traced runs' (a what-if of a much slower
// or faster link), that the rounds factor is extrapolated; else, when the
// scheme's traced runs are all of one node count (not the job's), that
// how its iterations grow with the node count is unknown (the fits take it
// as flat), with a node count to run it on that the inventory of inventory
// nodes (0: unknown) holds. "" for a synchronous one or nothing to say.
func caution(m *Model, p Prediction, nodes, inventory int) string {
	if p.Scheme == jobs.Synchronous {
		return ""
	}
	counts := map[int]bool{}
	for _, s := range m.Sources {
		if s.Scheme == p.Scheme {
			counts[s.Nodes] = true
		}
	}
	if len(counts) == 0 {
		return fmt.Sprintf("no %s run of this problem was traced: its iterations are those of the staleness fitted on "+
			"the other scheme's runs, which can be off by a factor of ten: run it once with --scheme %s to predict it from its own trace",
			schemeWord(p.Scheme), p.Scheme)
	}
	if lo, hi := tracedRange(m, jobs.Asynchronous, func(f FitPoint) float64 { return f.Round }); farFrom(p.RoundSeconds, lo, hi) {
		return fmt.Sprintf("a round of its slowest link would last %.3g ms, the traced asynchronous runs' "+
			"%.3g–%.3g ms: the rounds factor fitted on those (with the costs of a message that do not grow with the link) "+
			"is extrapolated far outside them (a traced run over a link as slow, or as fast, would tell)",
			1e3*p.RoundSeconds, 1e3*lo, 1e3*hi)
	}
	if lo, hi := tracedRange(m, jobs.Hybrid, func(f FitPoint) float64 { return f.Sweeps }); farFrom(p.SweepsPerRound, lo, hi) {
		return fmt.Sprintf("its clusters would do %.3g iterations per round of the link between them, the traced "+
			"hybrid runs %.3g–%.3g: the rounds law fitted on those is extrapolated far outside them "+
			"(a traced hybrid run over a link as slow, or as fast, would tell)", p.SweepsPerRound, lo, hi)
	}
	if len(counts) != 1 || counts[nodes] {
		return ""
	}
	one := 0
	for k := range counts {
		one = k
	}
	msg := fmt.Sprintf("traced on %d nodes only: how its iterations grow with the node count is unknown (taken as flat)", one)
	if other := otherCount(one, nodes, inventory); other > 0 {
		msg += fmt.Sprintf(": run it on %d nodes too", other)
	}
	return msg
}

// schemeWord is the adjective of a scheme: "asynchronous", "hybrid".
func schemeWord(s jobs.Scheme) string {
	switch s {
	case jobs.Asynchronous:
		return "asynchronous"
	case jobs.Synchronous:
		return "synchronous"
	}
	return string(s)
}

// otherCount is a node count to trace a scheme on besides one, the count
// it was traced on, for the prediction of a job of nodes nodes: twice one,
// else one more, half or one less, the first that is not the job's count
// and that an inventory of inventory nodes holds (0: any); the job's count
// when nothing else fits; 0 when no count but one fits (a grid of one or
// two nodes).
func otherCount(one, nodes, inventory int) int {
	fits := func(k int) bool { return k >= 2 && k != one && (inventory <= 0 || k <= inventory) }
	for _, k := range []int{2 * one, one + 1, one / 2, one - 1} {
		if fits(k) && k != nodes {
			return k
		}
	}
	if fits(nodes) {
		return nodes
	}
	return 0
}
