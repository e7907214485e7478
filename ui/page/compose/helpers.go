package compose

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/widget/list"
	"github.com/gridtui/gridtui/ui/widget/text"
)

// The page's names for the shared helpers (ui/common, ui/widget/…).
type (
	// Common is the value the root hands every page.
	Common = common.Common
	// Styles are the console's styles.
	Styles = common.Styles
	// KeyMap holds the console-wide bindings.
	KeyMap = common.KeyMap
	column = list.Column
)

func count(n int, one, many string) string               { return common.Count(n, one, many) }
func bind(help, desc string, keys ...string) key.Binding { return common.Bind(help, desc, keys...) }
func enabled(b key.Binding, on bool) key.Binding         { return common.Enabled(b, on) }
func cellWidth(s string) int                             { return text.Width(s) }
func padRight(s string, w int) string                    { return text.PadRight(s, w) }
func fitLine(s string, w int) string                     { return text.Fit(s, w) }
func formWidth(c *Common) int                            { return min(44, c.Width*9/20) }
func navigate(msg tea.KeyPressMsg, k KeyMap, cursor *int, n, page int) bool {
	return common.Navigate(msg, k, cursor, n, page)
}

func placeBody(c *Common, s string) string { return common.Place(c, s) }
func wrap(s string, w int) string          { return common.Wrap(s, w) }
func msgCmd(msg tea.Msg) tea.Cmd           { return common.MsgCmd(msg) }
