// Command laplace is gridtui with a structured-grid application of its own,
// "laplace": the steady temperature of a square plate (Δu = 0 on (0,1)²,
// u = 1 on the edge y = 1, 0 on the other edges) by Jacobi sweeps of the
// 5-point stencil. The toolkit (apps/structured) cuts the plate into one
// tile per node and owns the ghosts and their exchange; this file holds
// the equation, its serial loop and its figures.
//
//	go build && ./laplace run --app laplace --nodes 4 --param n=64
package main

import (
	"fmt"
	"math"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/structured"
	"github.com/gridtui/gridtui/cli"
)

func main() {
	gridapp.Register("laplace", &structured.App{
		Summary: "a square plate, Δu = 0, the edge y = 1 held at 1, Jacobi, a×b tiles",
		Parameters: []gridapp.Param{
			gridapp.IntParam("n", 64, 1, 4096, "interior points per axis"),
			gridapp.FloatParam("eps", 1e-8, 0, 1, "tolerance on σ = max|u'−u|").Above(),
			gridapp.IntParam("sweeps", 0, 0, 1<<30, "do exactly this many sweeps and compare with the serial loop (0: until σ < eps)"),
		},
		Setup: func(v gridapp.Values) (structured.Setup, error) {
			n := v.Int("n")
			hot := func(i, j, k int) float64 { return float64(max(0, j-n+1)) } // 1 beyond y = n−1, else 0
			g := structured.Grid{N: []int{n, n}, Ghost: 1, Boundary: hot}
			return structured.Setup{Grid: g, Eps: v.Float("eps"), Sweeps: v.Int("sweeps")}, nil
		},
		Local: func(v gridapp.Values, b *structured.Block) (structured.Local, error) {
			return plate{zero: b.NewField()}, nil
		},
		Measure: measure,
	})
	cli.Main()
}

// plate is a tile's local function: u' = (0 + 1·s)/4 = s/4 over its box.
type plate struct{ zero []float64 }

func (p plate) Sweep(b *structured.Block, box structured.Box) float64 {
	return structured.Jacobi5(b.Next, b.U, p.zero, b.Layout, box, 1, 4)
}

// padded returns u (n×n, x-major) inside its boundary: (n+2)² values.
func padded(u []float64, n int) []float64 {
	w := n + 2
	p := make([]float64, w*w)
	for i := range w {
		p[i*w+w-1] = 1
		if i > 0 && i <= n {
			copy(p[i*w+1:i*w+1+n], u[(i-1)*n:i*n])
		}
	}
	return p
}

// sweep is the specification: one Jacobi sweep of the padded plate, s in
// Jacobi5Ref's order, s/4 (= (0 + 1·s)/4 bit for bit).
func sweep(u, next []float64, n int) (sigma float64) {
	w := n + 2
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			c := i*w + j
			next[c] = (((u[c-w] + u[c+w]) + u[c-1]) + u[c+1]) / 4
			sigma = max(sigma, math.Abs(next[c]-u[c]))
		}
	}
	return sigma
}

// measure gives the true residual (one more sweep) and, with sweeps set,
// the distance to the serial loop after as many sweeps (0 when synchronous).
func measure(v gridapp.Values, s structured.Solution) (gridapp.Result, error) {
	n, eps, k := v.Int("n"), v.Float("eps"), v.Int("sweeps")
	u := s.Levels[0]
	res := sweep(padded(u, n), make([]float64, (n+2)*(n+2)), n)
	out := gridapp.Result{Solution: u, Residual: res, OK: res < eps}
	if k > 0 {
		ref, next := padded(make([]float64, n*n), n), padded(make([]float64, n*n), n)
		for range k {
			sweep(ref, next, n)
			ref, next = next, ref
		}
		var d float64
		for i := range n * n {
			d = max(d, math.Abs(u[i]-ref[(i/n+1)*(n+2)+i%n+1]))
		}
		out.OK = d == 0
		out.Figures = []gridapp.Figure{{Name: fmt.Sprintf("max |u − serial loop| after %d sweeps", k), Value: d}}
	}
	return out, nil
}
