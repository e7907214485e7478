package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/gridtui/gridtui/ui/widget/pager"

	"github.com/gridtui/gridtui/ui/widget/list"
	"github.com/gridtui/gridtui/ui/widget/text"
)

// The pages' names for the list widget's values (ui/widget/list).
type (
	column  = list.Column
	listRow = list.Row
)

// The list rows' tones.
const (
	toneNormal = list.ToneNormal
	toneDim    = list.ToneDim
	toneErr    = list.ToneErr
	toneOK     = list.ToneOK
	toneWarn   = list.ToneWarn
)

// newList returns a list widget of the columns with the console's keys and
// styles.
func newList(c *Common, cols []column) list.Model {
	l := list.New(cols)
	l.KeyMap = c.Keys.listKeys()
	l.Styles = c.Styles.listStyles()
	return l
}

// listKeys is the list widget's key map made of the console's bindings.
func (k KeyMap) listKeys() list.KeyMap {
	return list.KeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Home: k.Home, End: k.End,
		Filter: k.Filter, Sort: k.Sort, Reverse: k.Reverse, ClearFilter: k.ClearFilter, Details: k.Details,
		Accept: k.Accept, Cancel: k.Cancel, DeleteChar: k.DeleteChar}
}

// nav is the console's moves as the widgets take them.
func (k KeyMap) nav() list.NavKeyMap {
	return list.NavKeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Home: k.Home, End: k.End}
}

// listStyles is the list widget's styles made of the console's.
func (s *Styles) listStyles() list.Styles {
	return list.Styles{Header: s.Header, Selected: s.Selected, Dim: s.Dim, Err: s.Err, Warn: s.Warn, OK: s.OK}
}

// navigate moves a cursor over n items with the console's moves
// (list.Navigate).
func navigate(msg tea.KeyPressMsg, k KeyMap, cursor *int, n, page int) bool {
	return list.Navigate(msg, k.nav(), cursor, n, page)
}

// Text fitting (ui/widget/text), under the pages' names.
func cellWidth(s string) int          { return text.Width(s) }
func padRight(s string, w int) string { return text.PadRight(s, w) }
func padLeft(s string, w int) string  { return text.PadLeft(s, w) }
func fitLine(s string, w int) string  { return text.Fit(s, w) }

// newPager gives a pager (ui/widget/pager) the console's keys and styles.
func newPager(c *Common, p pager.Model) pager.Model {
	k := c.Keys
	p.KeyMap = pager.KeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Home: k.Home, End: k.End,
		Left: k.ScrollLeft, Right: k.ScrollRight, Close: k.Close, Copy: k.Copy}
	p.Styles = pager.Styles{Title: c.Styles.Title, Dim: c.Styles.Dim}
	return p
}
