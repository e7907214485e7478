package engine

import (
	"fmt"
	"testing"

	"github.com/gridtui/gridtui/deploy"
)

// A batch allocation's pending status reaches the run's log once per
// change, however many hosts report it; every event still reaches the
// caller's callback.
func TestLogPending(t *testing.T) {
	var logged []string
	passed := 0
	f := logPending(func(deploy.Event) { passed++ }, func(node, format string, args ...any) {
		logged = append(logged, fmt.Sprintf(format, args...))
	})
	for _, e := range []deploy.Event{
		{Host: "n1", Phase: deploy.PhaseStart},
		{Host: "n1", Phase: deploy.PhasePending, Detail: "Slurm job 7 pending (Resources)"},
		{Host: "n2", Phase: deploy.PhasePending, Detail: "Slurm job 7 pending (Resources)"},
		{Host: "n1", Phase: deploy.PhasePending, Detail: "Slurm job 7 pending (Priority), position 2 in the queue"},
		{Host: "n1", Phase: deploy.PhaseReady},
	} {
		f(e)
	}
	want := []string{"allocation pending: Slurm job 7 pending (Resources)", "allocation pending: Slurm job 7 pending (Priority), position 2 in the queue"}
	if fmt.Sprint(logged) != fmt.Sprint(want) || passed != 5 {
		t.Errorf("logged %q (%d passed on), want %q (5)", logged, passed, want)
	}
}
