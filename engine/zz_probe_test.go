package engine

import (
	"os"
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

func TestZZProbe(t *testing.T) {
	if os.Getenv("ZZ_PROBE") == "" {
		t.Skip()
	}
	spec := recoverySpec(jobs.Synchronous, 64, "1e-6")
	spec.Nodes.Any = 2
	for i := range 4 {
		spec.Resilience.CheckpointEvery = []int{-1, 0}[i%2]
		if os.Getenv("ZZ_PROBE") == "on" {
			spec.Resilience.CheckpointEvery = 0
		} else if os.Getenv("ZZ_PROBE") == "off" {
			spec.Resilience.CheckpointEvery = -1
		}
		rep, _, err := runKilled(t, spec, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("every %d: wall %v", spec.Resilience.CheckpointEvery, rep.Wall)
		for _, n := range rep.Nodes {
			t.Logf("  %s it %d compute %v send %v wait %v", n.Node, n.Iterations, n.Compute, n.Send, n.Wait)
		}
	}
}
