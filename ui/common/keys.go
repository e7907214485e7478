package common

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
		Tab1:        Bind("1", "sites", "1"),
		Tab2:        Bind("2", "network", "2"),
		Tab3:        Bind("3", "compose", "3"),
		Tab4:        Bind("4", "run", "4"),
		Tab5:        Bind("5", "results", "5"),
		Tabs:        Bind("1-5", "switch tab", "1", "2", "3", "4", "5"),
		NextTab:     Bind("tab", "next tab", "tab"),
		PrevTab:     Bind("shift+tab", "prev tab", "shift+tab"),
		Help:        Bind("?", "help", "?"),
		Quit:        Bind("q", "quit", "q", "ctrl+c"),
		Interrupt:   Bind("ctrl+c", "quit", "ctrl+c"),
		Up:          Bind("↑/k", "up", "up", "k"),
		Down:        Bind("↓/j", "down", "down", "j"),
		PageUp:      Bind("pgup", "page up", "pgup"),
		PageDown:    Bind("pgdn", "page down", "pgdown", "pgdn"),
		Home:        Bind("home/g", "first", "home", "g"),
		End:         Bind("end/G", "last", "end", "G"),
		ScrollLeft:  Bind("←", "scroll left", "left"),
		ScrollRight: Bind("→", "scroll right", "right"),
		Filter:      Bind("/", "filter", "/"),
		Sort:        Bind("s", "sort column", "s"),
		Reverse:     Bind("S", "reverse sort", "S"),
		ClearFilter: Bind("esc", "clear filter", "esc"),
		Accept:      Bind("enter", "keep", "enter"),
		Cancel:      Bind("esc", "cancel", "esc"),
		DeleteChar:  Bind("backspace", "delete", "backspace"),
		ClearText:   Bind("ctrl+u", "clear", "ctrl+u"),
		Details:     Bind("enter", "details", "enter"),
		Close:       Bind("esc", "back", "esc"),
		Copy:        Bind("y", "copy", "y"),
		Yes:         Bind("y", "yes", "y"),
		No:          Bind("n", "no", "n", "esc"),
	}
}

// Bind is a binding of keys with its help.
func Bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// Enabled returns b enabled or disabled (a copy: key maps are values).
func Enabled(b key.Binding, on bool) key.Binding {
	b.SetEnabled(on)
	return b
}

// NavKeys are the moves every list, pane and page of text takes.
func (k KeyMap) NavKeys() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}
}

// GlobalHelp is the console-wide column of the full help.
func (k KeyMap) GlobalHelp() []key.Binding {
	return []key.Binding{k.Tabs, k.NextTab, k.PrevTab, k.Help, k.Quit}
}

// NavOnly returns the moves, enabled only if on.
func (k KeyMap) NavOnly(on bool) []key.Binding {
	nav := k.NavKeys()
	for i := range nav {
		nav[i].SetEnabled(on)
	}
	return nav
}
