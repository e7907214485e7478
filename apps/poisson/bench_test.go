package poisson

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// BenchmarkPoissonVsC measures the Poisson application through the API —
// Define for one node of one core, NewPart, Sweep — against the C peer
// (../structured/testdata/jacobi7.c, the same Jacobi sweep in plain C built
// with gcc -O3 -march=native) in the same run: n = 48 (the grids in cache)
// and n = 256 (DRAM). Both run the same sweeps by turns, five rounds, each
// keeping its best (the machine is shared); go/c is the ratio of those
// rates. It skips, and says so, without gcc.
func BenchmarkPoissonVsC(b *testing.B) {
	prog := buildPeer(b)
	app, _ := gridapp.Lookup(Name)
	for _, n := range []int{48, 256} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			v, err := gridapp.Parse(app.Params(), map[string]string{"n": strconv.Itoa(n), "eps": "1e-300"})
			if err != nil {
				b.Fatal(err)
			}
			task, err := app.Define(v, []gridapp.Node{{Name: "bench", Cores: 1}})
			if err != nil {
				b.Fatal(err)
			}
			part, err := app.NewPart(v, gridapp.Subtask{Ranks: 1, Cores: 1, Spec: task.Parts[0].Spec})
			if err != nil {
				b.Fatal(err)
			}
			defer part.Close()
			sweeps := max(10, 200*48*48*48/(n*n*n))
			updates := float64(n*n*n) * float64(sweeps)
			for b.Loop() {
				var goRate, cRate float64
				for range 5 {
					cRate = max(cRate, peerRate(b, prog, n, sweeps))
					t0 := time.Now()
					for range sweeps {
						part.Sweep()
					}
					goRate = max(goRate, updates/time.Since(t0).Seconds()/1e6)
				}
				b.ReportMetric(goRate, "go-Mupdates/s")
				b.ReportMetric(cRate, "c-Mupdates/s")
				b.ReportMetric(goRate/cRate, "go/c")
			}
		})
	}
}

// buildPeer compiles the C peer with gcc -O3 -march=native, or skips.
func buildPeer(b *testing.B) string {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		b.Skip("poisson: gcc not found: the C peer is not measured (apt-get install gcc)")
	}
	prog := filepath.Join(b.TempDir(), "jacobi7")
	var stderr bytes.Buffer
	cmd := exec.Command(gcc, "-O3", "-march=native", "-o", prog, filepath.Join("..", "structured", "testdata", "jacobi7.c"), "-lm")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("poisson: gcc jacobi7.c: %v: %s", err, stderr.String())
	}
	return prog
}

// peerRate runs the C peer for n and sweeps and returns its rate.
func peerRate(b *testing.B, prog string, n, sweeps int) float64 {
	out, err := exec.Command(prog, strconv.Itoa(n), strconv.Itoa(sweeps)).Output()
	if err != nil {
		b.Fatalf("poisson: %s: %v", prog, err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || f[1] != "Mupdates/s" {
		b.Fatalf("poisson: %s: unexpected output %q", prog, out)
	}
	rate, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		b.Fatalf("poisson: %s: %v", prog, err)
	}
	return rate
}
