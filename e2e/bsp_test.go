//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/bsp/conformance"
)

// repoRoot is the repository's directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..")
}

// buildSuite compiles every program of the BSPlib conformance suite
// against bsp.c (compiled once) into dir, or skips the test when gcc is
// missing. It returns the programs' paths by name.
func buildSuite(t *testing.T, dir string, progs []conformance.Program) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed (Debian: apt-get install gcc): the BSPlib programs are not built")
	}
	lib := filepath.Join(repoRoot(), "apps", "bsp", "bsplib")
	gcc := func(args ...string) {
		cmd := exec.Command("gcc", append([]string{"-O2", "-std=c99", "-I" + lib}, args...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	obj := filepath.Join(dir, "bsp.o")
	gcc("-c", "-o", obj, filepath.Join(lib, "bsp.c"))
	out := map[string]string{}
	for _, p := range progs {
		out[p.Name] = filepath.Join(dir, p.Name)
		gcc("-o", out[p.Name], p.Source, obj, "-lm")
	}
	return out
}

// hostGroups splits the grid's hosts into disjoint groups of n, alpha's
// and beta's hosts alternating so that every group of two or more spans
// both clusters; each group is a --nodes list.
func hostGroups(g *Grid, n int) []string {
	alpha, beta := g.Cluster(clusterDefs[0].Name), g.Cluster(clusterDefs[1].Name)
	var order []string
	for i := 0; i < max(len(alpha), len(beta)); i++ {
		for _, c := range [][]*Host{alpha, beta} {
			if i < len(c) {
				order = append(order, c[i].Ethernet.String())
			}
		}
	}
	var groups []string
	for i := 0; i+n <= len(order); i += n {
		groups = append(groups, strings.Join(order[i:i+n], ","))
	}
	return groups
}

// concurrentRuns is how many runs of the suite go side by side at least:
// most of a run's time is its workers' start over SSH, which waits far
// more than it computes.
const concurrentRuns = 4

// runSlots gives each group of hosts as many slots as needed for
// concurrentRuns runs at once: with fewer groups than that (4 and 8
// processes on 8 hosts), two or more runs share each group's hosts, as
// two users' jobs would.
func runSlots(groups []string) []string {
	if len(groups) == 0 {
		return nil
	}
	copies := (concurrentRuns + len(groups) - 1) / len(groups)
	var slots []string
	for range copies {
		slots = append(slots, groups...)
	}
	return slots
}

// bspCounts are the process counts the conformance suite runs on over
// SSH: 1, 2, 4 and 8, or those GRIDTUI_E2E_BSP_PROCS names ("2 8").
func bspCounts(t *testing.T) []int {
	s := os.Getenv("GRIDTUI_E2E_BSP_PROCS")
	if s == "" {
		return []int{1, 2, 4, 8}
	}
	var out []int
	for _, f := range strings.Fields(strings.ReplaceAll(s, ",", " ")) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > 8 {
			t.Fatalf("GRIDTUI_E2E_BSP_PROCS=%q: %q is no count of 1…8", s, f)
		}
		out = append(out, n)
	}
	return out
}

// TestRunBSPConformance runs the whole BSPlib conformance suite of
// apps/bsp (every program, the error cases included) over SSH on 1, 2, 4
// and 8 processes spread across both clusters' hosts, the programs shipped
// to every host with deploy --ship, each program held to
// the outcome its first comment states (package apps/bsp/conformance): a
// run that succeeds with the output it names, or a failed run whose cause
// names the process, the call and the rule. The runs of one process count
// go side by side (runSlots; 8 hosts: 8 runs of 1 process at once, each on
// its own host, 4 of 2, and 4 of 4 or 8 sharing the hosts).
func TestRunBSPConformance(t *testing.T) {
	progs, err := conformance.Suite(filepath.Join(repoRoot(), "apps", "bsp", "testdata", "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	bins := buildSuite(t, programDir(t), progs)
	g := newGridT(t, Config{HostsA: 4, HostsB: 4})
	deployOrSkip(t, g)
	// As a user without a shared file system would: ship the programs
	// beside every host's worker and name them by their base names.
	ship := []string{"deploy"}
	for _, p := range progs {
		ship = append(ship, "--ship", bins[p.Name])
	}
	if r := gridtui(t, g, g.SitesFile, deployTimeout, ship...); r.code != 0 {
		t.Fatalf("deploy --ship of %d programs: exit %d:\n%s", len(progs), r.code, r.out)
	}
	for _, n := range bspCounts(t) {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			start := time.Now()
			queue := make(chan conformance.Program)
			var wg sync.WaitGroup
			for _, nodes := range runSlots(hostGroups(g, n)) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for p := range queue {
						t.Run(p.Name, func(t *testing.T) { runConformance(t, g, p, nodes) })
					}
				}()
			}
			ran := 0
			for _, p := range progs {
				if p.Runs(n) {
					queue <- p
					ran++
				}
			}
			close(queue)
			wg.Wait()
			t.Logf("%d programs on %d processes in %v", ran, n, time.Since(start).Round(time.Millisecond))
		})
	}
}

// runConformance runs one program of the suite, shipped beside the
// workers, on nodes and judges it.
func runConformance(t *testing.T, g *Grid, p conformance.Program, nodes string) {
	out := runJob(t, g, "--app", "bsp", "--nodes", nodes, "--param", "program="+p.Name,
		"--param", "args="+p.Args, "--param", "timeout="+p.Timeout, "--wall-time", "2m")
	rep := out.report
	if rep == nil {
		t.Fatalf("exit %d and no report:\n%s", out.code, tail(out.raw, 40))
	}
	failed := out.code != 0 || rep.Outcome != "ok"
	var output strings.Builder
	for _, f := range rep.Figures {
		if strings.HasPrefix(f.Name, "output of") {
			output.WriteString(f.Text + "\n")
		}
	}
	if err := p.Judge(failed, rep.Cause, output.String()); err != nil {
		t.Errorf("on %s: %v (exit %d)", nodes, err, out.code)
	}
}
