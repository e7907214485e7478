//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/predict"
)

// TestBenchBSPAcrossHosts measures the BSP parameters g and l across
// hosts: `gridtui bench bsp` on 2 hosts of alpha and 2 of beta, whose
// Ethernet halves meet over a WAN link limited to 100 Mbit/s (tbf), keeps
// g and l per network (process 0's pairs: ib0 inside alpha, Ethernet to
// beta); then a BSP program (apps/bsp/testdata/ring.c) runs twice on the
// same 4 hosts and the second run's report predicts it from the first's
// supersteps with those figures. A measurement (it logs the figures, in
// docs/bench/bsp.md): it runs with GRIDTUI_E2E_BSP_BENCH=1 only.
func TestBenchBSPAcrossHosts(t *testing.T) {
	if os.Getenv("GRIDTUI_E2E_BSP_BENCH") != "1" {
		t.Skip("a measurement: set GRIDTUI_E2E_BSP_BENCH=1")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed (Debian: apt-get install gcc): the BSPlib program is not built")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..")
	ring := filepath.Join(programDir(t), "ring")
	cmd := exec.Command("gcc", "-O2", "-std=c99", "-Iapps/bsp/bsplib", "-o", ring, "apps/bsp/testdata/ring.c", "apps/bsp/bsplib/bsp.c")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	g := newGridT(t, Config{HostsA: 2, HostsB: 2, LimitWAN: "100mbit"})
	deployOrSkip(t, g)
	if r := gridtui(t, g, g.SitesFile, 5*time.Minute, "bench", "bsp", "--nodes", "4", "--reps", "5"); r.code != 0 {
		t.Fatalf("bench bsp: exit %d", r.code)
	}
	params, err := predict.LoadBSP(filepath.Join(g.ConsoleHome, ".local", "share", "gridtui"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("g and l on %v: %+v", params.Nodes, params.Networks)
	if _, ok := params.Networks["ethernet"]; !ok {
		t.Errorf("no g and l for ethernet: %+v", params.Networks)
	}
	args := []string{"run", "--app", "bsp", "--nodes", "4", "--param", "program=" + ring, "--param", "args=100 2000", "--wall-time", "2m"}
	for i := range 2 {
		r := gridtui(t, g, g.SitesFile, 3*time.Minute, args...)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d", i+1, r.code)
		}
		for line := range strings.Lines(r.out) {
			if strings.HasPrefix(line, "wall time:") || strings.HasPrefix(line, "predicted:") || strings.HasPrefix(line, "process 0:") {
				t.Logf("run %d: %s", i+1, strings.TrimSpace(line))
			}
		}
		if i == 1 && !strings.Contains(r.out, "predicted: ") {
			t.Errorf("the second run was not predicted")
		}
	}
}
