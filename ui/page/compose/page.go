package compose

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/internal/termsafe"
	"github.com/gridtui/gridtui/ui/common"
)

// Compose is a page of the console (common.Page) through its pointer, as
// the pages of ui/page are: the root holds it in its slice of pages and
// routes, draws and helps through the interface. Its own update stays a
// value method (update), which its tests call directly.

// Update implements common.Component.
func (v *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	var cmd tea.Cmd
	*v, cmd = v.update(msg)
	return v, cmd
}

// Title implements common.Page.
func (v *Model) Title() string { return "Compose" }

// Help implements common.Component.
func (v *Model) Help() help.KeyMap { return v.help() }

// Capturing implements common.Component: a field is being edited.
func (v *Model) Capturing() bool { return v.capturing() }

// Paging implements common.Page: Compose shows no pager.
func (v *Model) Paging() bool { return false }

// Cursor implements common.Cursor: where the terminal's cursor goes while a
// field is edited.
func (v *Model) Cursor() *tea.Cursor { return v.editCursor() }

// RunEndedMsg says that the run shown in the Run page ended, and how
// ("finished", "failed", "aborted"): Compose replaces its "starting" line.
type RunEndedMsg struct{ Name, How string }

// SafeMsg makes the text of Compose's own messages from outside the console
// (a prediction's error) terminal-safe, as the root's safeMsg does for its
// own; it returns any other message as it is.
func SafeMsg(msg tea.Msg) tea.Msg {
	if m, ok := msg.(predictedMsg); ok {
		m.err = termsafe.Error(m.err)
		return m
	}
	return msg
}
