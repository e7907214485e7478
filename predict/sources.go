package predict

import (
	"cmp"
	"slices"

	"github.com/gridtui/gridtui/jobs"
)

// This file groups what a prediction rests on for display: a store holds
// many runs of each scheme and node count, and a user reads them as one
// line each with their spread (the ids stay in Model.Sources and Fit).

// SourceGroup is the traced runs of one scheme on one node count: how
// many, and the range of their wall times and mean iterations.
type SourceGroup struct {
	Scheme                       jobs.Scheme
	Nodes                        int
	Runs                         int
	MinWall, MaxWall             float64
	MinIterations, MaxIterations float64
}

// GroupSources groups srcs by scheme (in AllSchemes' order) and node count.
func GroupSources(srcs []Source) []SourceGroup {
	var out []SourceGroup
	for _, s := range srcs {
		i := slices.IndexFunc(out, func(g SourceGroup) bool { return g.Scheme == s.Scheme && g.Nodes == s.Nodes })
		if i < 0 {
			out = append(out, SourceGroup{Scheme: s.Scheme, Nodes: s.Nodes, MinWall: s.WallSeconds, MaxWall: s.WallSeconds,
				MinIterations: s.Iterations, MaxIterations: s.Iterations})
			i = len(out) - 1
		}
		g := &out[i]
		g.Runs++
		g.MinWall, g.MaxWall = min(g.MinWall, s.WallSeconds), max(g.MaxWall, s.WallSeconds)
		g.MinIterations, g.MaxIterations = min(g.MinIterations, s.Iterations), max(g.MaxIterations, s.Iterations)
	}
	slices.SortStableFunc(out, func(a, b SourceGroup) int {
		return cmp.Or(cmp.Compare(schemeIndex(a.Scheme), schemeIndex(b.Scheme)), cmp.Compare(a.Nodes, b.Nodes))
	})
	return out
}

// FitGroup is the staleness fit's runs of one scheme on one node count:
// their mean round, crossing and sweeps per round, the spread of their
// measured factors and the mean modelled one.
type FitGroup struct {
	Scheme                   jobs.Scheme
	Nodes                    int
	Runs                     int
	Round, Crossing, Sweeps  float64
	MinMeasured, MaxMeasured float64
	MedianMeasured, Modelled float64
}

// GroupFit groups the staleness model's fit points as GroupSources does.
func GroupFit(pts []FitPoint) []FitGroup {
	type key struct {
		s jobs.Scheme
		n int
	}
	by := map[key][]FitPoint{}
	var keys []key
	for _, p := range pts {
		k := key{p.Scheme, p.Nodes}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], p)
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(schemeIndex(a.s), schemeIndex(b.s)), cmp.Compare(a.n, b.n))
	})
	out := make([]FitGroup, 0, len(keys))
	for _, k := range keys {
		ps := by[k]
		g := FitGroup{Scheme: k.s, Nodes: k.n, Runs: len(ps), MinMeasured: ps[0].Measured, MaxMeasured: ps[0].Measured}
		var measured, rounds, crossings, sweeps, modelled []float64
		for _, p := range ps {
			g.MinMeasured, g.MaxMeasured = min(g.MinMeasured, p.Measured), max(g.MaxMeasured, p.Measured)
			measured = append(measured, p.Measured)
			rounds = append(rounds, p.Round)
			crossings = append(crossings, p.Crossing)
			sweeps = append(sweeps, p.Sweeps)
			modelled = append(modelled, p.Modelled)
		}
		g.MedianMeasured, g.Round, g.Crossing, g.Sweeps, g.Modelled = median(measured), mean(rounds), mean(crossings), mean(sweeps), mean(modelled)
		out = append(out, g)
	}
	return out
}

// schemeIndex orders schemes as AllSchemes, others after them.
func schemeIndex(s jobs.Scheme) int {
	if i := slices.Index(AllSchemes, s); i >= 0 {
		return i
	}
	return len(AllSchemes)
}
