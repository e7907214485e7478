package solve

import (
	"sync"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/poisson"
)

// BenchmarkPoissonOverhead measures, in the same run, one iteration of the
// Poisson problem (n = 64, 2×1×1 blocks, one core each) through the engine
// on 2 in-process workers (synchronous scheme, convergence tokens, halos over
// loopback TCP rmnp) and in a bare loop around the same parts: one
// goroutine per part sweeping, the halos copied in memory between two
// barriers. The ratio of their ns/op is the engine's per-iteration overhead.
func BenchmarkPoissonOverhead(b *testing.B) {
	params := map[string]string{"n": "64", "eps": "1e-300", "blocks": "2x1x1"}
	b.Run("bare", func(b *testing.B) {
		app, _ := gridapp.Lookup(poisson.Name)
		v, err := gridapp.Parse(app.Params(), params)
		if err != nil {
			b.Fatal(err)
		}
		task, err := app.Define(v, make([]gridapp.Node, 2))
		if err != nil {
			b.Fatal(err)
		}
		parts := make([]gridapp.Part, 2)
		for r, ps := range task.Parts {
			sub := gridapp.Subtask{Rank: r, Ranks: 2, Neighbours: ps.Neighbours, Cores: 1, Spec: ps.Spec}
			if parts[r], err = app.NewPart(v, sub); err != nil {
				b.Fatal(err)
			}
			defer parts[r].Close()
		}
		start := [2]chan bool{make(chan bool), make(chan bool)}
		done := make(chan struct{})
		var wg sync.WaitGroup
		for r := range parts {
			wg.Go(func() {
				for range start[r] {
					parts[r].Sweep()
					done <- struct{}{}
				}
			})
		}
		for b.Loop() {
			for r := range parts { // the exchange: each part's halo from its neighbour
				copy(parts[r].Halo(0), parts[1-r].Outgoing(0))
			}
			start[0] <- true
			start[1] <- true
			<-done
			<-done
		}
		b.StopTimer()
		close(start[0])
		close(start[1])
		wg.Wait()
	})
	b.Run("engine", func(b *testing.B) {
		n := max(b.N, 10)
		c := graphRun{app: poisson.Name, params: params, ranks: 2, cores: 1, scheme: Synchronous, maxIter: n}
		b.ResetTimer()
		res, _, _ := c.run(b) // links and parts set up included: a few ms against b.N iterations
		b.StopTimer()
		if res[0].Iterations != n {
			b.Fatalf("%d iterations, want %d", res[0].Iterations, n)
		}
	})
}
