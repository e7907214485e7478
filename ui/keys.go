package ui

import "charm.land/bubbles/v2/key"

// KeyMap holds the console-wide bindings and those every view shares: moving
// in a list, a pane or a page of text, the list widget's filter and sort,
// text entry and the detail view. Each view has its own key map (sitesKeyMap,
// networkKeyMap, composeKeyMap, runKeyMap, resultsKeyMap) built from these
// and its own keys; it satisfies help.KeyMap, its bindings are enabled only
// where they act, and the view matches keys against it with key.Matches, so
// the help shown is the key handling itself.
type KeyMap struct {
	Tab1, Tab2, Tab3, Tab4, Tab5 key.Binding
	// Tabs stands for Tab1…Tab5 in the help.
	Tabs             key.Binding
	NextTab, PrevTab key.Binding
	Help             key.Binding
	Quit             key.Binding
	// Interrupt quits even while text is being typed (q then types a q).
	Interrupt key.Binding

	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	Home, End        key.Binding
	// ScrollLeft and ScrollRight move a page of text sideways.
	ScrollLeft, ScrollRight key.Binding

	Filter, Sort, Reverse key.Binding
	// ClearFilter drops a kept filter.
	ClearFilter key.Binding

	// Text entry (the list filter, a form field, a passphrase).
	Accept, Cancel, DeleteChar, ClearText key.Binding

	// Details opens the detail view of the row under the cursor; Close
	// leaves it (or a report, a table); Copy puts its text on the
	// clipboard.
	Details, Close, Copy key.Binding

	Yes, No key.Binding
}

// DefaultKeyMap returns the console-wide bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Tab1:        bind("1", "sites", "1"),
		Tab2:        bind("2", "network", "2"),
		Tab3:        bind("3", "compose", "3"),
		Tab4:        bind("4", "run", "4"),
		Tab5:        bind("5", "results", "5"),
		Tabs:        bind("1-5", "switch tab", "1", "2", "3", "4", "5"),
		NextTab:     bind("tab", "next tab", "tab"),
		PrevTab:     bind("shift+tab", "prev tab", "shift+tab"),
		Help:        bind("?", "help", "?"),
		Quit:        bind("q", "quit", "q", "ctrl+c"),
		Interrupt:   bind("ctrl+c", "quit", "ctrl+c"),
		Up:          bind("↑/k", "up", "up", "k"),
		Down:        bind("↓/j", "down", "down", "j"),
		PageUp:      bind("pgup", "page up", "pgup"),
		PageDown:    bind("pgdn", "page down", "pgdown", "pgdn"),
		Home:        bind("home/g", "first", "home", "g"),
		End:         bind("end/G", "last", "end", "G"),
		ScrollLeft:  bind("←", "scroll left", "left"),
		ScrollRight: bind("→", "scroll right", "right"),
		Filter:      bind("/", "filter", "/"),
		Sort:        bind("s", "sort column", "s"),
		Reverse:     bind("S", "reverse sort", "S"),
		ClearFilter: bind("esc", "clear filter", "esc"),
		Accept:      bind("enter", "keep", "enter"),
		Cancel:      bind("esc", "cancel", "esc"),
		DeleteChar:  bind("backspace", "delete", "backspace"),
		ClearText:   bind("ctrl+u", "clear", "ctrl+u"),
		Details:     bind("enter", "details", "enter"),
		Close:       bind("esc", "back", "esc"),
		Copy:        bind("y", "copy", "y"),
		Yes:         bind("y", "yes", "y"),
		No:          bind("n", "no", "n", "esc"),
	}
}

// bind is a binding of keys with its help.
func bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// enabled returns b enabled or disabled (a copy: key maps are values).
func enabled(b key.Binding, on bool) key.Binding {
	b.SetEnabled(on)
	return b
}

// navKeys are the moves every list, pane and page of text takes.
func (k KeyMap) navKeys() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}
}

// globalHelp is the console-wide column of the full help.
func (k KeyMap) globalHelp() []key.Binding {
	return []key.Binding{k.Tabs, k.NextTab, k.PrevTab, k.Help, k.Quit}
}

// navOnly returns the moves, enabled only if on.
func (k KeyMap) navOnly(on bool) []key.Binding {
	nav := k.navKeys()
	for i := range nav {
		nav[i].SetEnabled(on)
	}
	return nav
}
