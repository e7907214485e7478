package sites

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

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
func (v *Model) Title() string { return "Sites" }

// Help implements common.Component.
func (v *Model) Help() help.KeyMap { return v.help() }

// Capturing implements common.Component: the list's filter is typed.
func (v *Model) Capturing() bool { return v.list.Filtering() }

// Paging implements common.Page: a host's details are open.
func (v *Model) Paging() bool { return v.page.Open }

// Selected returns the row under the cursor.
func (v *Model) Selected() (list.Row, bool) { return v.list.Selected() }

// Filter returns the list's filter, kept or being typed.
func (v *Model) Filter() string { return v.list.Filter() }

// Cursor returns the index of the row under the cursor among those shown.
func (v *Model) Cursor() int { return v.list.Cursor() }
