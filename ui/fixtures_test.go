package ui

import (
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/ui/internal/uitest"
)

// The fixtures the console's tests share with the pages' (ui/internal/uitest).
var t0 = uitest.T0

const sampleReport = uitest.SampleReport

func fakeRun(n, steps, failAt int) []engine.Snapshot { return uitest.FakeRun(n, steps, failAt) }

func stoppedReport(s engine.Snapshot) []engine.NodeReport { return uitest.StoppedReport(s) }
