package ui

import (
	"context"
	"log/slog"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/widget/list"
	"github.com/gridtui/gridtui/ui/widget/pager"
	"github.com/gridtui/gridtui/ui/widget/text"
)

// The shared values live in ui/common, so that pages in packages of their
// own take them too; ui keeps their names.
type (
	// Common is the value handed to every page (common.Common).
	Common = common.Common
	// Styles are the console's styles (common.Styles).
	Styles = common.Styles
	// KeyMap holds the console-wide bindings (common.KeyMap).
	KeyMap = common.KeyMap
)

// NewCommon returns a Common for a terminal of the given size, with the
// default styles and keys. A nil logger discards; a nil ctx is Background.
func NewCommon(ctx context.Context, width, height int, logger *slog.Logger) *Common {
	return common.NewCommon(ctx, width, height, logger)
}

// DefaultStyles returns the console's styles.
func DefaultStyles() *Styles { return common.DefaultStyles() }

// DefaultKeyMap returns the console-wide bindings.
func DefaultKeyMap() KeyMap { return common.DefaultKeyMap() }

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

const nodeStates = common.NodeStates

func newList(c *Common, cols []column) list.Model        { return common.NewList(c, cols) }
func newPager(c *Common, p pager.Model) pager.Model      { return common.NewPager(c, p) }
func stateGlyph(s engine.NodeState) string               { return common.StateGlyph(s) }
func count(n int, one, many string) string               { return common.Count(n, one, many) }
func sci(v float64) string                               { return common.Sci(v) }
func bytesText(n uint64) string                          { return common.BytesText(n) }
func countText(n uint64) string                          { return common.CountText(n) }
func clock(d time.Duration) string                       { return common.Clock(d) }
func bind(help, desc string, keys ...string) key.Binding { return common.Bind(help, desc, keys...) }
func enabled(b key.Binding, on bool) key.Binding         { return common.Enabled(b, on) }
func cellWidth(s string) int                             { return text.Width(s) }
func padRight(s string, w int) string                    { return text.PadRight(s, w) }
func padLeft(s string, w int) string                     { return text.PadLeft(s, w) }
func fitLine(s string, w int) string                     { return text.Fit(s, w) }
func formWidth(c *Common) int                            { return min(44, c.Width*9/20) }
func navigate(msg tea.KeyPressMsg, k KeyMap, cursor *int, n, page int) bool {
	return common.Navigate(msg, k, cursor, n, page)
}
