package common

import (
	tea "charm.land/bubbletea/v2"
	"github.com/gridtui/gridtui/ui/widget/pager"

	"github.com/gridtui/gridtui/ui/widget/list"
)

// NewList returns a list widget of the columns with the console's keys and
// styles.
func NewList(c *Common, cols []list.Column) list.Model {
	l := list.New(cols)
	l.KeyMap = c.Keys.ListKeys()
	l.Styles = c.Styles.ListStyles()
	return l
}

// ListKeys is the list widget's key map made of the console's bindings.
func (k KeyMap) ListKeys() list.KeyMap {
	return list.KeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Home: k.Home, End: k.End,
		Filter: k.Filter, Sort: k.Sort, Reverse: k.Reverse, ClearFilter: k.ClearFilter, Details: k.Details,
		Accept: k.Accept, Cancel: k.Cancel, DeleteChar: k.DeleteChar}
}

// Nav is the console's moves as the widgets take them.
func (k KeyMap) Nav() list.NavKeyMap {
	return list.NavKeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Home: k.Home, End: k.End}
}

// ListStyles is the list widget's styles made of the console's.
func (s *Styles) ListStyles() list.Styles {
	return list.Styles{Header: s.Header, Selected: s.Selected, Dim: s.Dim, Err: s.Err, Warn: s.Warn, OK: s.OK}
}

// Navigate moves a cursor over n items with the console's moves
// (list.Navigate).
func Navigate(msg tea.KeyPressMsg, k KeyMap, cursor *int, n, page int) bool {
	return list.Navigate(msg, k.Nav(), cursor, n, page)
}

// NewPager gives a pager (ui/widget/pager) the console's keys and styles.
func NewPager(c *Common, p pager.Model) pager.Model {
	k := c.Keys
	p.KeyMap = pager.KeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Home: k.Home, End: k.End,
		Left: k.ScrollLeft, Right: k.ScrollRight, Close: k.Close, Copy: k.Copy}
	p.Styles = pager.Styles{Title: c.Styles.Title, Dim: c.Styles.Dim}
	return p
}
