package common

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// Component is a part of the console drawn in the body area (the soft-serve
// pattern): it handles the messages handed to it, draws itself in the
// Common's size and says which keys act on it now.
type Component interface {
	// Update handles a message; it returns the component changed (pages
	// are values) and a command.
	Update(tea.Msg) (Component, tea.Cmd)
	// View draws the component in exactly BodyHeight lines of Width cells.
	View() string
	// Help is the key map of the component's current state (help.KeyMap):
	// the help bar and the full help are drawn from it.
	Help() help.KeyMap
	// Capturing reports whether the component takes text input, so that
	// letters and digits must not switch tabs or quit.
	Capturing() bool
}

// Page is a tab of the console: a component with a name in the tab bar.
// The root holds its pages in a slice, in tab order; the pages affect
// each other only through the messages the root hands every page.
type Page interface {
	Component
	// Title is the page's name in the tab bar.
	Title() string
	// Paging reports whether the page shows a pager (a row's details, a
	// report): the console then releases the mouse to the terminal, whose
	// own selection copies the text.
	Paging() bool
}

// Cursor is a component that places the terminal's cursor (a text field
// being edited), in the body's coordinates; nil hides it.
type Cursor interface {
	Cursor() *tea.Cursor
}
