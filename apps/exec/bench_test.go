package exec_test

import (
	"cmp"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
)

// nullApp is testdata/null.c in Go: a chain whose sweep does nothing and
// returns σ = 1, with halos of the job's halo values, ended by max_iter.
type nullApp struct{}

func init() { gridapp.Register("test-exec-null", nullApp{}) }

func (nullApp) Info() gridapp.Info {
	return gridapp.Info{Summary: "a sweep that does nothing (benchmarks)"}
}

func (nullApp) Params() []gridapp.Param {
	return []gridapp.Param{gridapp.IntParam("max_iter", 1000, 1, 1<<40, "iterations"),
		gridapp.IntParam("halo", 1, 1, 1<<30, "values per message")}
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

func (nullApp) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	p := &nullPart{out: make([]float64, v.Int("halo")), res: make([]float64, 1)}
	for range sub.Neighbours {
		p.halo = append(p.halo, make([]float64, v.Int("halo")))
	}
	return p, nil
}

func (nullApp) Assemble(gridapp.Values, gridapp.Task, [][]float64) (gridapp.Result, error) {
	return gridapp.Result{OK: true}, nil
}

type nullPart struct {
	out, res []float64
	halo     [][]float64
}

func (p *nullPart) Sweep() float64         { return 1 }
func (p *nullPart) Outgoing(int) []float64 { return p.out }
func (p *nullPart) Halo(i int) []float64   { return p.halo[i] }
func (p *nullPart) Result() []float64      { return p.res }
func (p *nullPart) Close()                 {}

// BenchmarkIteration measures one synchronous iteration on 2 worker
// processes of the local grid, halos of 8 B and 4 MiB each way: the exec
// bridge with testdata/null.c (GRID_Receive, GRID_Send, GRID_Iterate; c in
// the window's buffers, c-copy from and into arrays of its own,
// c-inprocess with link = "inprocess", in the library's buffers) and the
// same null sweep as a Go application (ns/op is per iteration, the run's
// wall time over its iterations; run with -benchtime Nx).
// GRIDTUI_BENCH_SPIN sets the job's spin parameter (µs);
// GRIDTUI_INPROC_LIB names a libgridhpc_inproc.so built already.
func BenchmarkIteration(b *testing.B) {
	for _, size := range []int{8, 4 << 20} {
		name := strconv.Itoa(size) + "B"
		if size >= 1<<20 {
			name = strconv.Itoa(size>>20) + "MiB"
		}
		halo := strconv.Itoa(size / 8)
		for _, mode := range []string{"c", "c-copy", "c-inprocess"} {
			args := strings.TrimPrefix(mode, "c") // "-copy" or ""
			b.Run(mode+"/"+name, func(b *testing.B) {
				prog := build(b, "null", "gcc", append(cflags, "apps/exec/testdata/null.c", "apps/exec/gridhpc/gridhpc.c")...)
				params := map[string]string{"program": prog, "items": "2", "halo": halo, "eps": "1e-300",
					"args": strings.TrimPrefix(args, "-"), "spin": cmp.Or(os.Getenv("GRIDTUI_BENCH_SPIN"), "0")}
				if mode == "c-inprocess" {
					params["args"] = ""
					inprocess(b, params)
				}
				iterate(b, "exec", params)
			})
		}
		b.Run("go/"+name, func(b *testing.B) {
			iterate(b, "test-exec-null", map[string]string{"halo": halo})
		})
	}
}

func iterate(b *testing.B, app string, params map[string]string) {
	n := max(b.N, 10)
	params["max_iter"] = strconv.Itoa(n)
	spec := jobs.Spec{App: app, Params: params, Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Hosts: []string{"alpha-1", "alpha-2"}}, Cores: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b.ResetTimer()
	rep, err := engine.Run(ctx, spec, engine.RunOptions{Inventory: inventory.Embedded(), NoRecord: true, StoreDir: b.TempDir()})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if it := rep.Nodes[0].Iterations; it != n {
		b.Fatalf("%d iterations, want %d", it, n)
	}
	b.ReportMetric(float64(rep.Wall.Nanoseconds())/float64(n), "ns/iter")
}
