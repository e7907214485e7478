package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/ui/internal/uitest"
)

// keyPress is the key message of a key's name ("down", "ctrl+s", "t").
func keyPress(k string) tea.KeyPressMsg { return uitest.KeyPress(k) }
