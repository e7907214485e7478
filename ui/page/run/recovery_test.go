package run

import (
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// TestWithRecoveries: a part moved to a spare leaves the lost node a row
// of its own, marked lost, naming the spare and the checkpoint; the spare's
// note says whose part it took. A later loss of the same node replaces its
// row.
func TestWithRecoveries(t *testing.T) {
	rows := []listRow{
		{Key: "a", Cells: []string{"a", "A ", "0", "90", "", "", ""}},
		{Key: "s", Cells: []string{"s", "A ", "1", "90", "", "", ""}},
	}
	recs := []jobs.Recovery{
		{Node: "b", Cause: "worker process exited", Rank: 1, To: "s", How: "spare", From: 75, Took: 612 * time.Millisecond},
	}
	got := withRecoveries(rows, recs)
	if len(got) != 3 || got[2].Key != "b" || got[2].Cells[1] != lostGlyph+" " || got[2].Tone != toneWarn {
		t.Fatalf("rows %+v, want b's row added, marked lost", got)
	}
	if want := "lost (worker process exited): rank 1 → s (spare), from it. 75, in 612ms"; got[2].Cells[6] != want {
		t.Errorf("b's note %q, want %q", got[2].Cells[6], want)
	}
	if want := "rank 1 from b (lost), from it. 75, in 612ms"; got[1].Cells[6] != want {
		t.Errorf("the spare's note %q, want %q", got[1].Cells[6], want)
	}
	if got[0].Cells[6] != "" {
		t.Errorf("a's note %q, want none", got[0].Cells[6])
	}
	recs = append(recs, jobs.Recovery{Node: "b", Cause: "silent", Rank: 1, To: "b", How: "new worker on its host"})
	if got := withRecoveries(rows, recs); len(got) != 3 || !strings.Contains(got[2].Cells[6], "silent") {
		t.Errorf("rows %+v, want one row for b, its latest loss", got)
	}
}
