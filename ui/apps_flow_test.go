package ui

import (
	"regexp"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

// TestConsolePoissonGain drives the console through a Poisson job on the
// local grid with real workers: choose the application in Compose, set its
// parameters, run it on one node (t1), then on two: the Run header shows
// the computing gain of the second run (before, only obstacle runs had a
// t1, so every other application read "gain –"), and Results lists both
// under the application with its parameters.
func TestConsolePoissonGain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	store := t.TempDir()
	patient := EngineRunWith(deploy.Options{HelloTimeout: 3 * time.Minute})
	m := New(Config{Inventory: inventory.Embedded(), Run: patient, StoreDir: store, NoLoad: true})
	scr := &screenText{}
	tm := teatest.NewTestModel(t, screenModel{Model: m, last: scr}, teatest.WithInitialTermSize(100, 30))
	sendKeys := func(ks ...string) {
		for _, k := range ks {
			tm.Send(keyPress(k))
		}
	}
	field := func(text string, down ...string) {
		sendKeys(down...)
		sendKeys("enter", "ctrl+u")
		tm.Type(text)
		sendKeys("enter")
	}
	sendKeys("3")
	waitScreen(t, scr, "Nodes (8 chosen)")
	sendKeys("down", "enter") // Application: obstacle → poisson
	waitScreen(t, scr, "‹poisson›")
	field("12", "down")                               // n
	field("1e-5", "down")                             // eps
	sendKeys("down", "down", "down", "down", "enter") // blocks, max iterations, wall time, scheme: hybrid → sync
	waitScreen(t, scr, "‹sync›")
	field("1", "down", "down", "down") // Take N nodes
	waitScreen(t, scr, "✓ ready: 1 node")
	sendKeys("r")
	waitScreen(t, scr, " · finished · ", " · failed · ")
	sendKeys("3")
	field("2")
	waitScreen(t, scr, "✓ ready: 2 nodes")
	sendKeys("r")
	waitScreen(t, scr, "· 2 nodes")
	text := waitScreen(t, scr, " · finished · ", " · failed · ")
	if !regexp.MustCompile(`gain \d+\.\d\d×`).MatchString(text) {
		t.Errorf("the Run header of the 2-node run after a 1-node one shows no gain:\n%s", text)
	}
	sendKeys("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(screenModel).Model
	res, err := jobs.Load(store)
	if final.run.Failed() || final.run.Gain() <= 0 {
		t.Fatalf("run failed (%v) or no gain (%g): %s\nstore: %+v", final.run.Failed(), final.run.Gain(), final.run.Outcome(), res)
	}
	if err != nil || len(res.Records) != 2 {
		t.Fatalf("store: %v, %+v", err, res)
	}
	for _, r := range res.Records {
		if r.Job.App != "poisson" || r.Job.Params["n"] != "12" || !r.OK() {
			t.Errorf("recorded %+v, want an ok poisson run of n = 12", r.Job)
		}
	}
}
