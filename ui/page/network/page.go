package network

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/widget/list"
)

// Update implements common.Component.
func (v *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	var cmd tea.Cmd
	*v, cmd = v.update(msg)
	return v, cmd
}

// Title implements common.Page.
func (v *Model) Title() string { return "Network" }

// Help implements common.Component.
func (v *Model) Help() help.KeyMap { return v.help() }

// Capturing implements common.Component.
func (v *Model) Capturing() bool { return v.capturing() }

// Paging implements common.Page.
func (v *Model) Paging() bool { return v.page.Open }

// Summary is the line under the pairs: how many go over each network, how
// many cannot start.
func (v *Model) Summary() string { return v.summary() }

// RouteRows returns the rows of the job's pairs, shown or not.
func (v *Model) RouteRows() []list.Row { return v.routes.Rows() }

// Pairs returns the job's pairs as last set.
func (v *Model) Pairs() []PairRoute { return v.pairs }

// Selected returns the row under the cursor of the list in focus and
// which list it is (0: the nodes, 1: the pairs).
func (v *Model) Selected() (list.Row, int) {
	r, _ := v.focused().Selected()
	return r, v.focus
}
