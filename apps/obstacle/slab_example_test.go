package obstacle_test

import (
	"fmt"

	"github.com/gridtui/gridtui/apps/obstacle"
)

// Two nodes of two cores each run synchronous iterations, exchanging their
// interface planes before every sweep as the network does; the result is
// bit-for-bit the serial one.
func ExampleSlab() {
	p := obstacle.Problem{N: 8, Eps: 1e-8}
	parts, _ := obstacle.Split(p.N, 2)
	lo, _ := obstacle.NewSlab(p, parts[0], 2)
	hi, _ := obstacle.NewSlab(p, parts[1], 2)
	defer lo.Close()
	defer hi.Close()
	for {
		copy(hi.LowHalo(), lo.HighPlane())
		copy(lo.HighHalo(), hi.LowPlane())
		if sigma := max(lo.Sweep(), hi.Sweep()); sigma < p.Eps {
			break
		}
	}
	u, _ := obstacle.Assemble(p, parts, [][]float64{lo.Values(), hi.Values()})
	serial, iters, _ := obstacle.SerialSolve(p)
	same := true
	for i := range u {
		same = same && u[i] == serial[i]
	}
	fmt.Println(lo.Iteration() == iters, same, obstacle.Residual(p, u) < p.Eps)
	// Output: true true true
}
