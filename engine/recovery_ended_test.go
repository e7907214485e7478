package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
)

// TestWithEndedReplaced: a node of the plan whose worker ended meanwhile
// (a member that exited "parent lost" as the attempt ended) is lost with
// the attempt, and an ended coordinator takes its group's members with it;
// each is then replaced (a spare first, else a new worker on its host),
// never planned on again. With none ended, the lost nodes stay as they
// were.
func TestWithEndedReplaced(t *testing.T) {
	ws, id, secret := startWorkers(t, "alpha-1", "alpha-2", "alpha-3", "alpha-4", "beta-1")
	byName := map[string]*deploy.Worker{}
	for _, w := range ws {
		byName[w.Host.Name] = w
	}
	plan := &Plan{Ranks: []string{"alpha-1", "alpha-2", "alpha-3", "alpha-4"}, Groups: []jobs.Group{
		{Coordinator: "alpha-1", Workers: []string{"alpha-1", "alpha-2"}},
		{Coordinator: "alpha-3", Workers: []string{"alpha-3", "alpha-4"}},
	}}
	s := &submission{plan: plan, workers: byName,
		failed: &worker.Failure{Node: "alpha-1", Cause: "rank 0: " + linkGone + " 3"}}

	if got := withEnded(s, nil); got != nil {
		t.Fatalf("every worker live: gone %v, want none", got)
	}
	if got := withEnded(s, []string{"alpha-4"}); !slices.Equal(got, []string{"alpha-4"}) {
		t.Fatalf("every worker live: gone %v, want alpha-4 only", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, name := range []string{"alpha-2", "alpha-3"} { // a member, a coordinator
		byName[name].Stop(ctx)
		select {
		case <-byName[name].Done():
		case <-ctx.Done():
			t.Fatalf("%s did not end", name)
		}
	}
	want := []string{"alpha-2", "alpha-3", "alpha-4"}
	if got := withEnded(s, nil); !slices.Equal(got, want) {
		t.Fatalf("alpha-2 and alpha-3 ended: gone %v, want %v", got, want)
	}
	gone := withEnded(s, []string{"alpha-4"})
	if want := []string{"alpha-4", "alpha-2", "alpha-3"}; !slices.Equal(gone, want) {
		t.Fatalf("alpha-4 lost, alpha-2 and alpha-3 ended: gone %v, want %v", gone, want)
	}

	workers := slices.Clone(ws)
	rc := &recoverer{inv: inventory.Embedded(), workers: &workers,
		opt: RunOptions{RunID: id, Secret: secret, Deploy: deploy.Options{StopTimeout: 30 * time.Second}}}
	t.Cleanup(func() { stopWorkers(workers, nil, "") })
	moved, err := rc.replace(ctx, s, gone)
	if err != nil {
		t.Fatal(err)
	}
	wantMoved := map[string]placement{"alpha-4": {"beta-1", "spare"},
		"alpha-2": {"alpha-2", "new worker on its host"}, "alpha-3": {"alpha-3", "new worker on its host"}}
	for name, to := range wantMoved {
		if moved[name] != to {
			t.Errorf("%s moved to %+v, want %+v", name, moved[name], to)
		}
	}
	for _, w := range workers {
		if isDone(w) {
			t.Errorf("an ended worker (%s) is still among the run's workers", w.Host.Name)
		}
	}
	if n := len(workers); n != 4 {
		t.Errorf("%d workers after the replacement, want 4 (alpha-1, beta-1, and alpha-2 and alpha-3 new)", n)
	}
}
