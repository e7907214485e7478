package predict

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gridtui/gridtui/jobs"
)

// Case is one measured configuration (problem, scheme, node count) of a
// validation against its prediction from smaller runs.
type Case struct {
	Problem Problem     `json:"problem"`
	Scheme  jobs.Scheme `json:"scheme"`
	Nodes   int         `json:"nodes"`
	// Measured is the median wall time of the configuration's Runs, with
	// its range; MeasuredIterations the median of their mean iterations.
	Measured           float64 `json:"measured_seconds"`
	MeasuredMin        float64 `json:"measured_min_seconds"`
	MeasuredMax        float64 `json:"measured_max_seconds"`
	MeasuredIterations float64 `json:"measured_iterations"`
	Runs               int     `json:"runs"`
	// Predicted is the predicted time (0 with Reason set when the traces
	// could not predict it); Error is (Predicted − Measured) / Measured.
	Predicted           float64 `json:"predicted_seconds"`
	PredictedIterations float64 `json:"predicted_iterations"`
	Error               float64 `json:"error"`
	Reason              string  `json:"reason,omitempty"`
}

// Ranking is the schemes of one problem and node count ordered by
// predicted and by measured time, fastest first.
type Ranking struct {
	Problem   Problem       `json:"problem"`
	Nodes     int           `json:"nodes"`
	Predicted []jobs.Scheme `json:"predicted"`
	Measured  []jobs.Scheme `json:"measured"`
	// PredictedTies and MeasuredTies say, for each scheme after the first,
	// whether its time equals the one before it (a tie, which no order
	// breaks); nil without a tie.
	PredictedTies []bool `json:"predicted_ties,omitempty"`
	MeasuredTies  []bool `json:"measured_ties,omitempty"`
	// Right says the prediction orders every pair of schemes as the
	// measured times do: a pair tied on one side only is out of order.
	Right bool `json:"right"`
	// Separated says the measured order stands beyond the runs' spread:
	// each scheme's slowest run was faster than the next scheme's fastest.
	// Where two schemes' runs overlap, another pair of runs could have
	// ordered them the other way.
	Separated bool `json:"separated"`
	// Called says the prediction tells every pair of schemes apart: no
	// two predicted within CloseCall of each other (see Verdict).
	Called bool `json:"called"`
}

// Validation is a results store's larger runs against the predictions made
// from its smaller ones.
type Validation struct {
	MaxTraceNodes int       `json:"max_trace_nodes"`
	SharedCores   int       `json:"shared_cores,omitempty"`
	Tolerance     float64   `json:"tolerance"`
	Cases         []Case    `json:"cases"`
	Rankings      []Ranking `json:"rankings"`
	// Within counts the predicted cases within Tolerance, Ranked the
	// rankings in the measured order. WithinFastest counts them against
	// the fastest run of each case instead of the median (the study's
	// tables keep the faster run: on a shared machine it is the one least
	// disturbed).
	Within        int `json:"within"`
	WithinFastest int `json:"within_fastest"`
	Ranked        int `json:"ranked"`
	// Separated counts the rankings whose measured order stands beyond
	// the runs' spread (Ranking.Separated), RankedSeparated those of them
	// the prediction ranked in the measured order. Ranked, over every
	// ranking, is the criterion; these say how many rankings the runs
	// decide at all.
	Separated       int `json:"separated"`
	RankedSeparated int `json:"ranked_separated"`
	// Called counts the rankings the prediction calls (Ranking.Called),
	// RankedCalled those of them in the measured order.
	Called       int `json:"called"`
	RankedCalled int `json:"ranked_called"`
	// Pairs counts the pairs of schemes in the rankings (three schemes make
	// three pairs), PairsRight those the prediction orders as the measured
	// times do: which of two schemes to run is the question a user asks of
	// it. ClosePairs and ClosePairsRight count the pairs predicted within
	// CloseCall of each other, the ones a prediction does not call.
	Pairs           int `json:"pairs"`
	PairsRight      int `json:"pairs_right"`
	ClosePairs      int `json:"close_pairs"`
	ClosePairsRight int `json:"close_pairs_right"`
}

// Predicted is the number of cases that have a prediction.
func (v *Validation) Predicted() int {
	n := 0
	for _, c := range v.Cases {
		if c.Reason == "" {
			n++
		}
	}
	return n
}

// Validate predicts every completed run in res of more than maxTraceNodes
// nodes from the runs of at most maxTraceNodes nodes of the same problem
// (PredictSchemes with MaxTraceNodes) and compares: per configuration the
// median measured time against the prediction, and per problem and node
// count the order of the schemes. tol is the relative error a case must be
// within to count in Within (0.15 for dPerf's 15 %).
//
// sharedCores, when positive, says every run's nodes shared one host of
// that many cores (see Options).
func Validate(res *jobs.Results, maxTraceNodes int, tol float64, sharedCores int) (*Validation, error) {
	if maxTraceNodes < 1 {
		return nil, fmt.Errorf("predict: validate: max trace nodes %d: want at least 1", maxTraceNodes)
	}
	type key struct {
		p      Problem
		nodes  int
		scheme jobs.Scheme
	}
	groups := map[key][]jobs.RunRecord{}
	for _, r := range res.Records {
		if !r.OK() || len(r.Nodes) <= maxTraceNodes {
			continue
		}
		k := key{problemOfRecord(r.Job), len(r.Nodes), r.Job.Scheme}
		groups[k] = append(groups[k], r)
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.p.App, b.p.App), cmp.Compare(a.p.N, b.p.N), cmp.Compare(a.p.Eps, b.p.Eps),
			cmp.Compare(a.nodes, b.nodes), cmp.Compare(slices.Index(AllSchemes, a.scheme), slices.Index(AllSchemes, b.scheme)))
	})
	v := &Validation{MaxTraceNodes: maxTraceNodes, Tolerance: tol, SharedCores: sharedCores}
	for _, k := range keys {
		c := measuredCase(k.p, k.scheme, k.nodes, groups[k])
		rec := groups[k][0]
		// The application's own graph when it is registered, else a chain.
		topology, _ := TopologyOf(jobs.Spec{App: rec.Job.Instance().App, Params: rec.Job.AppParams()})
		out, err := PredictSchemes(res, Request{Problem: k.p, Nodes: k.nodes, Schemes: []jobs.Scheme{k.scheme},
			MaxTraceNodes: maxTraceNodes, Cores: rec.Nodes[0].Cores, SharedCores: sharedCores, Topology: topology})
		switch {
		case errors.Is(err, ErrNoTrace):
			c.Reason = err.Error()
		case err != nil:
			return nil, err
		case len(out.Predictions) == 0:
			c.Reason = out.Unavailable[k.scheme]
		default:
			p := out.Predictions[0]
			c.Predicted, c.PredictedIterations = p.Seconds, p.MeanIterations
			c.Error = (p.Seconds - c.Measured) / c.Measured
			if math.Abs(c.Error) <= tol {
				v.Within++
			}
			if math.Abs(p.Seconds-c.MeasuredMin) <= tol*c.MeasuredMin {
				v.WithinFastest++
			}
		}
		v.Cases = append(v.Cases, c)
	}
	v.rank()
	return v, nil
}

// measuredCase summarises the runs of one configuration.
func measuredCase(p Problem, s jobs.Scheme, nodes int, runs []jobs.RunRecord) Case {
	c := Case{Problem: p, Scheme: s, Nodes: nodes, Runs: len(runs), MeasuredMin: math.Inf(1)}
	var walls, iters []float64
	for _, r := range runs {
		walls = append(walls, r.WallSeconds)
		c.MeasuredMin, c.MeasuredMax = min(c.MeasuredMin, r.WallSeconds), max(c.MeasuredMax, r.WallSeconds)
		it := 0.0
		for _, n := range r.Nodes {
			it += float64(n.Iterations) / float64(len(r.Nodes))
		}
		iters = append(iters, it)
	}
	c.Measured, c.MeasuredIterations = median(walls), median(iters)
	return c
}

// rank orders the schemes of every problem and node count whose cases all
// have a prediction.
func (v *Validation) rank() {
	type key struct {
		p     Problem
		nodes int
	}
	by := map[key][]Case{}
	var order []key
	for _, c := range v.Cases {
		k := key{c.Problem, c.Nodes}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], c)
	}
	for _, k := range order {
		cs := by[k]
		if len(cs) < 2 || slices.ContainsFunc(cs, func(c Case) bool { return c.Reason != "" }) {
			continue
		}
		predicted := func(c Case) float64 { return c.Predicted }
		measured := func(c Case) float64 { return c.Measured }
		r := Ranking{Problem: k.p, Nodes: k.nodes, Predicted: schemesBy(cs, predicted), Measured: schemesBy(cs, measured),
			PredictedTies: ties(cs, predicted), MeasuredTies: ties(cs, measured), Right: sameOrder(cs, predicted, measured)}
		r.Separated = separated(cs)
		r.Called = called(cs)
		v.countPairs(cs)
		if r.Called {
			v.Called++
			if r.Right {
				v.RankedCalled++
			}
		}
		if r.Right {
			v.Ranked++
		}
		if r.Separated {
			v.Separated++
			if r.Right {
				v.RankedSeparated++
			}
		}
		v.Rankings = append(v.Rankings, r)
	}
}

// countPairs adds the pairs of cases of one ranking to Pairs and
// ClosePairs and those ordered as measured to PairsRight and
// ClosePairsRight.
func (v *Validation) countPairs(cs []Case) {
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			a, b := cs[i], cs[j]
			right := cmp.Compare(a.Predicted, b.Predicted) == cmp.Compare(a.Measured, b.Measured)
			lo, hi := min(a.Predicted, b.Predicted), max(a.Predicted, b.Predicted)
			v.Pairs++
			if right {
				v.PairsRight++
			}
			if hi <= lo*(1+CloseCall) {
				v.ClosePairs++
				if right {
					v.ClosePairsRight++
				}
			}
		}
	}
}

// separated reports whether the cases' measured order stands beyond their
// runs' spread: ordered by measured time, each case's slowest run is
// faster than the next case's fastest.
func separated(cs []Case) bool {
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, func(a, b Case) int { return cmp.Compare(a.Measured, b.Measured) })
	for i := 1; i < len(cs); i++ {
		if cs[i-1].MeasuredMax >= cs[i].MeasuredMin {
			return false
		}
	}
	return true
}

// called reports whether no two cases' predicted times are within
// CloseCall of each other.
func called(cs []Case) bool {
	ts := make([]float64, len(cs))
	for i, c := range cs {
		ts[i] = c.Predicted
	}
	slices.Sort(ts)
	for i := 1; i < len(ts); i++ {
		if ts[i] <= ts[i-1]*(1+CloseCall) {
			return false
		}
	}
	return true
}

// sameOrder reports whether the two times order every pair of cases
// alike: the same one faster, or both tied. Comparing the sorted lists
// instead would count a tie as whichever order the cases came in.
func sameOrder(cs []Case, a, b func(Case) float64) bool {
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			if cmp.Compare(a(cs[i]), a(cs[j])) != cmp.Compare(b(cs[i]), b(cs[j])) {
				return false
			}
		}
	}
	return true
}

// ties is, for the cases ordered by time (as schemesBy), whether each
// after the first has the time of the one before it; nil without a tie.
func ties(cs []Case, time func(Case) float64) []bool {
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, func(a, b Case) int { return cmp.Compare(time(a), time(b)) })
	out := make([]bool, len(cs)-1)
	tied := false
	for i := 1; i < len(cs); i++ {
		out[i-1] = time(cs[i]) == time(cs[i-1])
		tied = tied || out[i-1]
	}
	if !tied {
		return nil
	}
	return out
}

// schemesBy is the cases' schemes ordered by time, fastest first.
func schemesBy(cs []Case, time func(Case) float64) []jobs.Scheme {
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, func(a, b Case) int { return cmp.Compare(time(a), time(b)) })
	out := make([]jobs.Scheme, len(cs))
	for i, c := range cs {
		out[i] = c.Scheme
	}
	return out
}
