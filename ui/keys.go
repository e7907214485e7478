package ui

import "charm.land/bubbles/v2/key"

// KeyMap holds the console-wide bindings. Each view adds its own (see the
// views' keyMap methods); the help bar shows both.
type KeyMap struct {
	Tab1, Tab2, Tab3, Tab4, Tab5 key.Binding
	NextTab, PrevTab             key.Binding
	Help                         key.Binding
	Quit                         key.Binding
	Up, Down                     key.Binding
	PageUp, PageDown             key.Binding
	Home, End                    key.Binding
	Filter                       key.Binding
	Sort, Reverse                key.Binding
	Enter, Back                  key.Binding
	Yes, No                      key.Binding
}

// DefaultKeyMap returns the console-wide bindings.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Tab1:     b("1", "sites", "1"),
		Tab2:     b("2", "network", "2"),
		Tab3:     b("3", "compose", "3"),
		Tab4:     b("4", "run", "4"),
		Tab5:     b("5", "results", "5"),
		NextTab:  b("tab", "next tab", "tab"),
		PrevTab:  b("shift+tab", "prev tab", "shift+tab"),
		Help:     b("?", "help", "?"),
		Quit:     b("q", "quit", "q", "ctrl+c"),
		Up:       b("↑/k", "up", "up", "k"),
		Down:     b("↓/j", "down", "down", "j"),
		PageUp:   b("pgup", "page up", "pgup"),
		PageDown: b("pgdn", "page down", "pgdown", "pgdn"),
		Home:     b("home/g", "first", "home", "g"),
		End:      b("end/G", "last", "end", "G"),
		Filter:   b("/", "filter", "/"),
		Sort:     b("s", "sort column", "s"),
		Reverse:  b("S", "reverse sort", "S"),
		Enter:    b("enter", "select", "enter"),
		Back:     b("esc", "back", "esc"),
		Yes:      b("y", "yes", "y"),
		No:       b("n", "no", "n", "esc"),
	}
}

// bindingList is a view's key map rendered by the help bubble.
type bindingList struct {
	short []key.Binding
	full  [][]key.Binding
	// noList is set by views without a filterable, sortable list (Compose):
	// the help then leaves out /, s, S, enter and esc as list keys.
	noList bool
}

// ShortHelp implements help.KeyMap.
func (b bindingList) ShortHelp() []key.Binding { return b.short }

// FullHelp implements help.KeyMap.
func (b bindingList) FullHelp() [][]key.Binding { return b.full }

// globalHelp returns the console-wide bindings as help columns; withList
// adds the list keys (filter, sort, select, back).
func (k KeyMap) globalHelp(withList bool) [][]key.Binding {
	g := [][]key.Binding{
		{key.NewBinding(key.WithKeys("1", "2", "3", "4", "5"), key.WithHelp("1-5", "switch tab")), k.NextTab, k.PrevTab, k.Help, k.Quit},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End},
	}
	if withList {
		g = append(g, []key.Binding{k.Filter, k.Sort, k.Reverse, k.Enter, k.Back})
	}
	return g
}
