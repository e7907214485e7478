package results

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/common"
)

// Update implements common.Component: the page changes in place.
func (v *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	var cmd tea.Cmd
	*v, cmd = v.update(msg)
	return v, cmd
}

// Title implements common.Page.
func (v *Model) Title() string { return "Results" }

// Help implements common.Component.
func (v *Model) Help() help.KeyMap { return v.help() }

// Capturing implements common.Component: the list's filter is typed.
func (v *Model) Capturing() bool { return v.capturing() }

// Paging implements common.Page: a run's details or a table is shown.
func (v *Model) Paging() bool { return v.mode != modeRuns }

// Results returns the store as last read (nil before, or unreadable).
func (v *Model) Results() *jobs.Results { return v.res }

// Message returns the page's last note (an export, a reload).
func (v *Model) Message() string { return v.message }

// SelectedRecord returns the run under the cursor.
func (v *Model) SelectedRecord() (jobs.RunRecord, bool) { return v.selectedRecord() }
