package worker

import (
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
)

// TestRestoredKeepsOnlyTheRestored: a part that loads its newest
// checkpoint (step 1) and then restarts at its step's start (iteration 200)
// keeps, here and on its buddy, only what it restored: the abandoned newest,
// dropped (DropAfter), must not come back from the load that read it —
// a second loss would restore it as the part's newest.
func TestRestoredKeepsOnlyTheRestored(t *testing.T) {
	n := &node{boot: deploy.Boot{Node: "alpha-1"}, self: NodeID("alpha-1"), log: slog.New(slog.DiscardHandler), copies: newCopyStore()}
	j := &jobCopies{n: n, ctx: t.Context(), plan: solve.CheckpointPlan{Memory: true, Every: 200, Run: "key"}}
	want := checkpoint.Header{Run: "key", Rank: 1, Ranks: 4}
	for _, h := range []checkpoint.Header{{Run: "key", Rank: 1, Ranks: 4, Iteration: 200}, {Run: "key", Rank: 1, Ranks: 4, Step: 1, Iteration: 400}} {
		enc, err := checkpoint.Append(nil, h, []byte("state"))
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Save(h, enc); err != nil {
			t.Fatal(err)
		}
	}
	if h, _, _, err := j.Load(want, 0, true); err != nil || h.Iteration != 400 {
		t.Fatalf("newest: %d, %v", h.Iteration, err)
	}
	if h, _, _, err := j.Load(want, 200, false); err != nil || h.Iteration != 200 {
		t.Fatalf("step's start: %d, %v", h.Iteration, err)
	}
	j.DropAfter("key", 1, 200)
	j.Restored(200)
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) { // the restored one is kept in the background
		time.Sleep(50 * time.Millisecond)
		j.mu.Lock()
		held := slices.Clone(j.held)
		j.mu.Unlock()
		if slices.Contains(held, 400) {
			t.Fatalf("held %v: the abandoned newest came back", held)
		}
	}
	if h, _, _, err := j.Load(want, 0, true); err != nil || h.Iteration != 200 {
		t.Fatalf("after the restore the newest is %d (%v), want 200", h.Iteration, err)
	}
}

// TestSaveNotCopied: a copy the buddy cannot be reached for is kept here,
// and Save says so (solve.ErrNotCopied): a step's end is then sent once
// more and noted, never taken as held. Before, Save returned nil and the
// part voted as if its buddy held the step's end.
func TestSaveNotCopied(t *testing.T) {
	n, _ := sendPair(t, t.Context(), 0)
	j := &jobCopies{n: n, ctx: t.Context(), plan: solve.CheckpointPlan{Memory: true, Every: 200, Run: "key",
		Buddy: &solve.Holder{Node: "beta-1"}}} // no address: never reached
	h := checkpoint.Header{Run: "key", Rank: 1, Ranks: 4, Iteration: 200, End: true}
	enc, err := checkpoint.Append(nil, h, []byte("state"))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Save(h, enc); !errors.Is(err, solve.ErrNotCopied) || !strings.Contains(err.Error(), "beta-1") {
		t.Fatalf("save to an unreachable buddy: %v, want ErrNotCopied naming beta-1", err)
	}
	if got, _, _, err := j.Load(checkpoint.Header{Run: "key", Rank: 1, Ranks: 4}, 0, true); err != nil || got != h {
		t.Fatalf("kept here: %+v %v, want %+v", got, err, h)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.held) != 0 {
		t.Errorf("held %v: reported as on the buddy", j.held)
	}
}
