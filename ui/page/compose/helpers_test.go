package compose

import (
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	_ "github.com/gridtui/gridtui/apps/obstacle" // the default job's application
	_ "github.com/gridtui/gridtui/apps/sparse"   // an application whose problem is a file (Predict)
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/internal/uitest"
)

// TestMain runs the tests with no debounce of the Predict panel: they run
// the commands they get at once.
func TestMain(m *testing.M) {
	PredictDebounce = 0
	os.Exit(m.Run())
}

// sizes are the terminal sizes every view is checked at.
var sizes = []struct{ w, h int }{{80, 24}, {160, 48}}

func testCommon(w, h int) *Common                   { return uitest.Common(w, h) }
func requireGolden(t *testing.T, got string)        { t.Helper(); uitest.RequireGolden(t, got) }
func checkSize(t *testing.T, c *Common, out string) { t.Helper(); uitest.CheckSize(t, c, out) }
func bigInventory(n int) *inventory.Inventory       { return uitest.BigInventory(n) }
func keyPress(k string) tea.KeyPressMsg             { return uitest.KeyPress(k) }

func ansiStrip(s string) string { return ansi.Strip(s) }

// tracedRun and tracedStore are traced runs of the default job's
// application, the one the form starts with.
func tracedRun(id string, scheme jobs.Scheme, iters, size int, clusters ...string) jobs.RunRecord {
	return uitest.TracedRun(jobs.DefaultSpec().App, id, scheme, iters, size, clusters...)
}
func tracedStore(n int) *jobs.Results { return uitest.TracedStore(jobs.DefaultSpec().App, n) }
