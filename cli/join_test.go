package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/engine"
)

// TestJoinCommand has a host join a headless run (a real process, no
// spares) with gridtui join RUN HOST, then drains a node of the run: its
// part moves to the joined host, a spare, and the run ends ok. A join of
// an unknown run is a usage error; one of a host the inventory does not
// know, or of a node of the run, is refused.
func TestJoinCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	dataDir := t.TempDir()
	all, joined := runActing(t, dataDir, 60, func(id string) {
		for _, bad := range []struct {
			args []string
			code int
			says string
		}{
			{[]string{"join", "20260101T000000Z-000000", "beta-4"}, 2, "gridtui join"},
			{[]string{"join", id, "gamma-9"}, 1, "not a host of the inventory"},
			{[]string{"join", id, "alpha-1"}, 1, "already holds a part"},
		} {
			out, err := gridtuiProc(t, dataDir, bad.args...).CombinedOutput()
			if exitCodeOf(err) != bad.code || !strings.Contains(string(out), bad.says) {
				t.Errorf("%v: exit %d, want %d saying %q:\n%s", bad.args, exitCodeOf(err), bad.code, bad.says, out)
			}
		}
		if out, err := gridtuiProc(t, dataDir, "join", id, "beta-4").CombinedOutput(); err != nil {
			t.Fatalf("join beta-4: %v\n%s", err, out)
		}
		// The joined worker is in the run's record: a resume after the
		// console's loss stops it as the others.
		if m, err := engine.LoadManifest(dataDir, id); err != nil || !slices.ContainsFunc(m.Workers, func(w engine.ManifestWorker) bool { return w.Host == "beta-4" }) {
			t.Errorf("manifest of run %s after the join: %v, workers %+v, want beta-4 among them", id, err, m)
		}
		if out, err := gridtuiProc(t, dataDir, "drain", id, "alpha-3").CombinedOutput(); err != nil {
			t.Fatalf("drain alpha-3: %v\n%s", err, out)
		}
	})
	got := reportOf(t, []byte(all))
	if !joined || got.Outcome != "ok" || got.moved() != 1 {
		t.Fatalf("joined %v: outcome %s, recoveries %+v", joined, got.Outcome, got.Recoveries)
	}
	if rc := got.Recoveries[0]; rc.Node != "alpha-3" || rc.How != "spare" || rc.To != "beta-4" {
		t.Errorf("recovery %+v: want alpha-3's part on the joined spare beta-4", rc)
	}
}
