package solve

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/obstacle"
	"github.com/gridtui/gridtui/rmnp"
)

// nullApp does nothing: a chain of parts whose sweep returns σ = 1 (never
// converged) and whose halos are one value, stopped by max_iter. It
// measures what the engine costs per iteration around an application.
type nullApp struct{}

func init() { gridapp.Register("test-null", nullApp{}) }

func (nullApp) Info() gridapp.Info {
	return gridapp.Info{Summary: "a sweep that does nothing (benchmarks)"}
}

func (nullApp) Params() []gridapp.Param {
	return []gridapp.Param{gridapp.IntParam("max_iter", 1000, 1, 1<<40, "iterations")}
}

func (nullApp) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	t := gridapp.Task{Eps: 1e-300, MaxIter: v.Int("max_iter"), Parts: make([]gridapp.PartSpec, len(nodes))}
	for r := range nodes {
		if r > 0 {
			t.Parts[r].Neighbours = append(t.Parts[r].Neighbours, r-1)
		}
		if r < len(nodes)-1 {
			t.Parts[r].Neighbours = append(t.Parts[r].Neighbours, r+1)
		}
		t.Parts[r].Size = 1
	}
	return t, nil
}

type nullPart struct{ v [3]float64 }

func (nullApp) NewPart(gridapp.Values, gridapp.Subtask) (gridapp.Part, error) {
	return &nullPart{}, nil
}
func (p *nullPart) Sweep() float64         { return 1 }
func (p *nullPart) Outgoing(int) []float64 { return p.v[0:1] }
func (p *nullPart) Halo(i int) []float64   { return p.v[1+i : 2+i] }
func (p *nullPart) Result() []float64      { return p.v[0:1] }
func (p *nullPart) Close()                 {}

func (nullApp) Assemble(gridapp.Values, gridapp.Task, [][]float64) (gridapp.Result, error) {
	return gridapp.Result{OK: true}, nil
}

// BenchmarkNullSweep compares, in the same run, one synchronous iteration of
// a sweep that does nothing on 2 in-process workers (halo of one value each
// way, convergence tokens, over loopback TCP rmnp) with one RMNP ping-pong of
// an 8-byte message on the same kind of link. Report ns/op of both.
func BenchmarkNullSweep(b *testing.B) {
	b.Run("rmnp-pingpong", func(b *testing.B) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		eps := chainRun{ranks: 2, scheme: Synchronous}.endpoints(b, ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			buf := make([]float64, 1)
			for {
				if _, err := eps[1].ReceiveFloat64s(ctx, 1, buf, rmnp.DATA); err != nil {
					return
				}
				if err := eps[1].SendFloat64s(ctx, 1, buf, rmnp.DATA); err != nil {
					return
				}
			}
		}()
		buf := make([]float64, 1)
		for b.Loop() {
			eps[0].SendFloat64s(ctx, 2, buf, rmnp.DATA)
			eps[0].ReceiveFloat64s(ctx, 2, buf, rmnp.DATA)
		}
		b.StopTimer()
		cancel()
		eps[1].Close()
		<-done
	})
	b.Run("sync-iteration", func(b *testing.B) {
		n := max(b.N, 10)
		c := chainRun{p: obstacle.Problem{N: 2, Eps: 1}, ranks: 2, cores: 1, scheme: Synchronous, app: "test-null",
			params: map[string]string{"max_iter": strconv.Itoa(n)}}
		b.ResetTimer()
		res, _ := c.run(b) // links and parts set up included: a few ms against b.N iterations
		b.StopTimer()
		if res[0].Iterations != n {
			b.Fatalf("%d iterations, want %d", res[0].Iterations, n)
		}
	})
}
