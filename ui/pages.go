package ui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/ui/common"
)

// The views are the console's pages (common.Page) through their pointers:
// the root holds them in a slice, in tab order, and routes, draws and
// helps through the interface. A page's own update stays a value method
// (update), which its tests call directly.

// Update implements common.Component.
func (v *ComposeView) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	var cmd tea.Cmd
	*v, cmd = v.update(msg)
	return v, cmd
}

// Title implements common.Page.
func (v *ComposeView) Title() string { return "Compose" }

// Help implements common.Component.
func (v *ComposeView) Help() help.KeyMap { return v.help() }

// Capturing implements common.Component: a field is being edited.
func (v *ComposeView) Capturing() bool { return v.capturing() }

// Paging implements common.Page: Compose shows no pager.
func (v *ComposeView) Paging() bool { return false }

// Update implements common.Component.
func (v *RunView) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	var cmd tea.Cmd
	*v, cmd = v.update(msg)
	return v, cmd
}

// Title implements common.Page.
func (v *RunView) Title() string { return "Run" }

// Help implements common.Component.
func (v *RunView) Help() help.KeyMap { return v.help() }

// Capturing implements common.Component.
func (v *RunView) Capturing() bool { return v.list.Filtering() }

// Paging implements common.Page.
func (v *RunView) Paging() bool { return v.page.Open }

// RunEndedMsg says that the run shown in the Run page ended, and how
// ("finished", "failed", "aborted"): Compose replaces its "starting" line.
type RunEndedMsg struct{ Name, How string }

// Snapshot returns the run's last telemetry snapshot.
func (v *RunView) Snapshot() engine.Snapshot { return v.snap }

// Name returns the name of the run's job.
func (v *RunView) Name() string { return v.spec.Name }

// EndState says how the run ended.
func (v *RunView) EndState() string { return v.endState() }

// Cursor implements common.Cursor: where the terminal's cursor goes while a
// field is edited.
func (v *ComposeView) Cursor() *tea.Cursor { return v.editCursor() }
