package bspbench

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/bsp"
)

// Name is the application's name.
const Name = "bspbench"

func init() {
	bsp.Register(Name, bsp.Program{
		Summary: "bspbench: the BSP parameters r, g and l of the job's nodes, per network (a Go BSP program)",
		Params: []gridapp.Param{
			gridapp.IntParam("h", 64, 1, 1<<16, "the largest h-relation, in 8-byte words"),
			gridapp.IntParam("reps", 5, 2, 1000, "repetitions of each fit (the confidence interval is over them)"),
			gridapp.IntParam("iters", 10, 1, 100000, "supersteps timed for each h"),
		},
		SPMD: run,
	})
}

// fit is the least-squares line through (h, t).
func fit(hs []int, ts []float64) (g, l float64) {
	var sx, sy, sxx, sxy float64
	m := float64(len(hs))
	for i, h := range hs {
		x := float64(h)
		sx, sy, sxx, sxy = sx+x, sy+ts[i], sxx+x*x, sxy+x*ts[i]
	}
	g = (m*sxy - sx*sy) / (m*sxx - sx*sx)
	return g, (sy - g*sx) / m
}

// Rate returns the DAXPY flop rate of this process, in flop/s.
func Rate() float64 {
	const n, reps = 1024, 2000
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = float64(i), float64(i)
	}
	a := 1.0 / 3
	start := time.Now()
	for range reps {
		for i := range y {
			y[i] += a * x[i]
		}
		a = -a
	}
	return 2 * n * reps / time.Since(start).Seconds()
}

// pattern says which processes put to which in an h-relation: all (every
// process h words spread cyclically over the others, bspbench's), or the
// pair (0, q) only.
type pattern struct {
	all bool
	q   int
}

// superstepTimes times iters supersteps carrying an h-relation of pattern
// pat for each h in hs; every process takes part in every barrier.
func superstepTimes(ctx context.Context, m *bsp.Machine, r bsp.Reg, hs []int, iters int, pat pattern) ([]float64, error) {
	p, s := m.NProcs(), m.Pid()
	word := []float64{float64(s)}
	ts := make([]float64, len(hs))
	for k, h := range hs {
		if err := m.Sync(ctx); err != nil {
			return nil, err
		}
		start := time.Now()
		for range iters {
			for i := range h {
				to := -1
				switch {
				case pat.all && p > 1:
					to = (s + 1 + i%(p-1)) % p
				case pat.all:
					to = s
				case s == 0:
					to = pat.q
				case s == pat.q:
					to = 0
				}
				if to >= 0 {
					if err := bsp.PutSlice(m, to, word, r, s*len(hs)+i%len(hs)); err != nil {
						return nil, err
					}
				}
			}
			if err := m.Sync(ctx); err != nil {
				return nil, err
			}
		}
		ts[k] = time.Since(start).Seconds() / float64(iters)
	}
	return ts, nil
}

// estimate is g and l over repetitions: mean and 95 % half-width.
type estimate struct{ g, gci, l, lci float64 }

func estimateOf(gs, ls []float64) estimate {
	mean := func(v []float64) (float64, float64) {
		var s, ss float64
		for _, x := range v {
			s += x
		}
		mu := s / float64(len(v))
		for _, x := range v {
			ss += (x - mu) * (x - mu)
		}
		return mu, 1.96 * math.Sqrt(ss/float64(len(v)-1)) / math.Sqrt(float64(len(v)))
	}
	var e estimate
	e.g, e.gci = mean(gs)
	e.l, e.lci = mean(ls)
	return e
}

func run(ctx context.Context, m *bsp.Machine, v gridapp.Values) ([]gridapp.Figure, error) {
	hmax, reps, iters := v.Int("h"), v.Int("reps"), v.Int("iters")
	var hs []int
	for k := range 5 {
		hs = append(hs, hmax*k/4)
	}
	rate := Rate()
	dst := make([]float64, m.NProcs()*len(hs)+1)
	r := bsp.PushSlice(m, dst)
	if err := m.Sync(ctx); err != nil {
		return nil, err
	}
	// The patterns: the whole machine, then (0, q) for each q, grouped by
	// the network of 0's link to q.
	pats := []pattern{{all: true}}
	names := []string{"all pairs"}
	for q := 1; q < m.NProcs(); q++ {
		pats = append(pats, pattern{q: q})
		names = append(names, m.Network(q))
	}
	gs, ls := map[string][]float64{}, map[string][]float64{}
	for range reps {
		for i, pat := range pats {
			ts, err := superstepTimes(ctx, m, r, hs, iters, pat)
			if err != nil {
				return nil, err
			}
			g, l := fit(hs, ts)
			gs[names[i]] = append(gs[names[i]], g)
			ls[names[i]] = append(ls[names[i]], l)
		}
	}
	if m.Pid() != 0 {
		return nil, nil
	}
	figs := []gridapp.Figure{{Name: "r", Value: rate, Text: fmt.Sprintf("%.0f Mflop/s (DAXPY, process 0)", rate/1e6)}}
	keys := make([]string, 0, len(gs))
	for k := range gs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := estimateOf(gs[k], ls[k])
		figs = append(figs,
			gridapp.Figure{Name: "g " + k, Value: e.g / 8, Text: fmt.Sprintf("%.2f ± %.2f ns/byte (%.1f flop/word)", 1e9*e.g/8, 1e9*e.gci/8, e.g*rate)},
			gridapp.Figure{Name: "l " + k, Value: e.l, Text: fmt.Sprintf("%.1f ± %.1f µs (%.0f flop)", 1e6*e.l, 1e6*e.lci, e.l*rate)})
	}
	return figs, nil
}
