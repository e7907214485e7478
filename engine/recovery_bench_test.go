package engine

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"

	_ "github.com/gridtui/gridtui/apps/obstacle" // the overhead of its checkpoints
)

// TestResilienceFigures measures what docs/bench/resilience.md reports
// (opt-in: GRIDTUI_RESILIENCE_BENCH=rounds): the wall time of poisson
// n = 64 with checkpoints at the default interval against none, on 2 and 8
// nodes, alternated in the same run; the recovery time of synchronous runs
// with one worker killed past their first checkpoint (brought forward to
// iteration 200); and an asynchronous run with one kill (at the default
// interval, before its first checkpoint) against the undisturbed one. Only same-run ratios count (the machine is shared).
func TestResilienceFigures(t *testing.T) {
	rounds := 0
	fmt.Sscan(os.Getenv("GRIDTUI_RESILIENCE_BENCH"), &rounds)
	if rounds == 0 {
		t.Skip("set GRIDTUI_RESILIENCE_BENCH=5 (rounds) to measure")
	}
	eps := os.Getenv("GRIDTUI_RESILIENCE_EPS")
	if eps == "" {
		eps = "1e-6"
	}
	var cpu time.Duration   // the processor time of the last run's workers
	var first time.Duration // RunOptions.FirstCheckpoint (0: the default)
	wall := func(spec jobs.Spec, node string, after int) (time.Duration, *Report) {
		before := childrenCPU()
		rep, _, err := runSignalledWith(t, spec, node, syscall.SIGKILL, after, func(o *RunOptions) { o.FirstCheckpoint = first })
		if err != nil {
			t.Fatalf("%v\n%s", err, summary(rep))
		}
		cpu = childrenCPU() - before
		return rep.Wall, rep
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	fmedian := func(v []float64) float64 { v = slices.Clone(v); slices.Sort(v); return v[len(v)/2] }
	parts := os.Getenv("GRIDTUI_RESILIENCE_PARTS") // overhead, recovery, async; "": all
	want := func(part string) bool { return parts == "" || strings.Contains(parts, part) }
	overhead := []struct {
		app   string
		nodes int
	}{{"poisson", 2}, {"poisson", 8}, {"obstacle", 8}}
	for _, o := range overhead {
		if !want("overhead") {
			break
		}
		spec := recoverySpec(jobs.Synchronous, 64, eps)
		spec.App, spec.Nodes.Any = o.app, o.nodes
		var on, off, ratios, cpuRatios []float64
		for i := range rounds {
			// Alternated, and in turn first, so that a drift of the load
			// favours neither.
			var d, d2, c, c2 time.Duration
			var rep *Report
			for k := range 2 {
				if (i+k)%2 == 0 {
					spec.Resilience.CheckpointEvery = -1
					d, rep = wall(spec, "", 0)
					c = cpu
				} else {
					spec.Resilience.CheckpointEvery = 0
					d2, _ = wall(spec, "", 0)
					c2 = cpu
				}
			}
			off, on = append(off, d.Seconds()), append(on, d2.Seconds())
			ratios, cpuRatios = append(ratios, d2.Seconds()/d.Seconds()), append(cpuRatios, c2.Seconds()/c.Seconds())
			t.Logf("sync %s n=64 %d nodes: %d iterations, no checkpoints %v (workers' CPU %v), default interval %v (CPU %v): %.3f, CPU %.3f",
				o.app, o.nodes, rep.Nodes[0].Iterations, d, c, d2, c2, ratios[i], cpuRatios[i])
		}
		m0, m1 := fmedian(off), fmedian(on)
		t.Logf("RESULT checkpoint overhead, %s %d nodes: median %.3fs without, %.3fs with: ratio of medians %.3f, median of pair ratios %.3f, of the workers' CPU %.3f",
			o.app, o.nodes, m0, m1, m1/m0, fmedian(ratios), fmedian(cpuRatios))
	}
	spec := recoverySpec(jobs.Synchronous, 64, eps)
	spec.Resilience.CheckpointEvery = 0
	var took []time.Duration
	nodes := []string{"alpha-2", "alpha-3", "beta-2", "beta-3", "alpha-4"}
	// The recovery from a checkpoint: the first brought forward to the
	// base (200), so that a kill after 250 iterations rolls back to it.
	first = time.Nanosecond
	for i := range rounds {
		if !want("recovery") {
			break
		}
		_, rep := wall(spec, nodes[i%len(nodes)], 250)
		for _, r := range rep.Recoveries {
			took = append(took, r.Took)
		}
	}
	if len(took) > 0 {
		t.Logf("RESULT recovery time (detection → every part iterating), sync, %d kills: median %v, all %v", len(took), median(slices.Clone(took)), took)
	}
	spec.Scheme = jobs.Asynchronous
	first = 0 // the default: a kill after 250 iterations restarts the lost part alone
	var calm, hit []time.Duration
	for i := range rounds {
		if !want("async") {
			return
		}
		d, _ := wall(spec, "", 0)
		calm = append(calm, d)
		d2, _ := wall(spec, nodes[i%len(nodes)], 250)
		hit = append(hit, d2)
		t.Logf("async n=64 8 nodes: undisturbed %v, one kill %v", d, d2)
	}
	m0, m1 := median(calm), median(hit)
	t.Logf("RESULT async with one kill: median %v undisturbed, %v with a kill: ratio %.3f", m0, m1, float64(m1)/float64(m0))
}

// childrenCPU is the processor time (user and system) of this process's
// children that ended and were waited for: a run's workers once it ended.
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
