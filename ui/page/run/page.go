package run

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/widget/list"
)

// Update implements common.Component: the page changes in place.
func (v *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	var cmd tea.Cmd
	*v, cmd = v.update(msg)
	return v, cmd
}

// Title implements common.Page.
func (v *Model) Title() string { return "Run" }

// Help implements common.Component.
func (v *Model) Help() help.KeyMap { return v.help() }

// Capturing implements common.Component: a list's filter is typed.
func (v *Model) Capturing() bool { return v.list.Filtering() || v.events.Filtering() }

// Paging implements common.Page: the report, a node or an event is open.
func (v *Model) Paging() bool { return v.page.Open }

// Snapshot returns the run's last telemetry snapshot.
func (v *Model) Snapshot() engine.Snapshot { return v.snap }

// Name returns the name of the run's job.
func (v *Model) Name() string { return v.spec.Name }

// EndState says how the run ended.
func (v *Model) EndState() string { return v.endState() }

// Selected returns the row under the cursor of the node list, or of the
// event log when it is expanded.
func (v *Model) Selected() (list.Row, bool) {
	if v.showEvents {
		return v.events.Selected()
	}
	return v.list.Selected()
}

// TitleLine is the page's header: the run, its state, elapsed time and gain.
func (v *Model) TitleLine() string { return v.titleLine() }

// CountsLine is the line of the nodes' state counts.
func (v *Model) CountsLine() string { return v.countsLine() }

// Outcome returns the key lines of the run's report once it has ended.
func (v *Model) Outcome() string { return v.outcome }

// Failed reports whether the run ended failed.
func (v *Model) Failed() bool { return v.failed }

// Gain returns the computing gain of the run's report (0: unknown).
func (v *Model) Gain() float64 { return v.finalGain }

// Report returns the engine's full report of the ended run.
func (v *Model) Report() string { return v.report }

// Spec returns the job of the run shown.
func (v *Model) Spec() jobs.Spec { return v.spec }
