package list

import (
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// NavKeyMap holds the moves of a list, a pane or a page of text.
type NavKeyMap struct {
	Up, Down, PageUp, PageDown, Home, End key.Binding
}

// Bindings returns the moves in help order.
func (k NavKeyMap) Bindings() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}
}

// KeyMap is the list's key map: its moves, its filter and sort, the
// detail key of the row under the cursor and the keys of the filter being
// typed.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Home, End key.Binding
	Filter, Sort, Reverse, ClearFilter    key.Binding
	Details                               key.Binding
	// Typing the filter: keep, drop, delete a character.
	Accept, Cancel, DeleteChar key.Binding
}

// DefaultKeyMap returns the list's default keys.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up: b("↑/k", "up", "up", "k"), Down: b("↓/j", "down", "down", "j"),
		PageUp: b("pgup", "page up", "pgup"), PageDown: b("pgdn", "page down", "pgdown", "pgdn"),
		Home: b("home/g", "first", "home", "g"), End: b("end/G", "last", "end", "G"),
		Filter: b("/", "filter", "/"), Sort: b("s", "sort column", "s"), Reverse: b("S", "reverse sort", "S"),
		ClearFilter: b("esc", "clear filter", "esc"), Details: b("enter", "details", "enter"),
		Accept: b("enter", "keep", "enter"), Cancel: b("esc", "cancel", "esc"), DeleteChar: b("backspace", "delete", "backspace"),
	}
}

// Nav returns the moves of the key map.
func (k KeyMap) Nav() NavKeyMap {
	return NavKeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Home: k.Home, End: k.End}
}

// Bindings is the list's part of a page's help: its filter, sort and
// detail keys, enabled for the state the list is in.
type Bindings struct {
	Filter, Sort, Reverse, ClearFilter, Details key.Binding
}

// Bindings returns the list's bindings: reverse only once sorted (it does
// nothing in the tree's own order), esc only with a filter kept, details
// only with a row to describe.
func (l *Model) Bindings() Bindings {
	_, sel := l.Selected()
	k := l.KeyMap
	return Bindings{
		Filter:      k.Filter,
		Sort:        k.Sort,
		Reverse:     enabled(k.Reverse, l.sortCol >= 0),
		ClearFilter: enabled(k.ClearFilter, l.filter != ""),
		Details:     enabled(k.Details, sel),
	}
}

// Only returns the bindings enabled only if on (a list not shown takes no
// keys).
func (lk Bindings) Only(on bool) Bindings {
	if !on {
		for _, b := range []*key.Binding{&lk.Filter, &lk.Sort, &lk.Reverse, &lk.ClearFilter, &lk.Details} {
			b.SetEnabled(false)
		}
	}
	return lk
}

// Column is the list keys as a column of the full help.
func (lk Bindings) Column() []key.Binding {
	return []key.Binding{lk.Details, lk.Filter, lk.Sort, lk.Reverse, lk.ClearFilter}
}

func enabled(b key.Binding, on bool) key.Binding {
	b.SetEnabled(on)
	return b
}

// Styles are the list's styles: its header, the row under the cursor, the
// footer and the rows' tones.
type Styles struct {
	Header, Selected, Dim, Err, Warn, OK lipgloss.Style
}

// DefaultStyles returns the list's default styles (the console's).
func DefaultStyles() Styles {
	c := lipgloss.Color
	return Styles{
		Header:   lipgloss.NewStyle().Bold(true).Underline(true),
		Selected: lipgloss.NewStyle().Reverse(true),
		Dim:      lipgloss.NewStyle().Foreground(c("244")),
		Err:      lipgloss.NewStyle().Bold(true).Foreground(c("196")),
		Warn:     lipgloss.NewStyle().Foreground(c("214")),
		OK:       lipgloss.NewStyle().Foreground(c("42")),
	}
}
