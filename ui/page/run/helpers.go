package run

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/ui/widget/chart"

	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/widget/list"
	"github.com/gridtui/gridtui/ui/widget/pager"
	"github.com/gridtui/gridtui/ui/widget/text"
)

// The page's names for the shared helpers (ui/common, ui/widget/…).
type (
	// Common is the value the root hands every page.
	Common  = common.Common
	column  = list.Column
	listRow = list.Row
)

const (
	toneDim  = list.ToneDim
	toneErr  = list.ToneErr
	toneOK   = list.ToneOK
	toneWarn = list.ToneWarn
)

func newList(c *Common, cols []column) list.Model        { return common.NewList(c, cols) }
func newPager(c *Common, p pager.Model) pager.Model      { return common.NewPager(c, p) }
func count(n int, one, many string) string               { return common.Count(n, one, many) }
func orDefault(s, d string) string                       { return common.OrDefault(s, d) }
func wrap(s string, w int) string                        { return common.Wrap(s, w) }
func placeBody(c *Common, s string) string               { return common.Place(c, s) }
func fitLine(s string, w int) string                     { return text.Fit(s, w) }
func padRight(s string, w int) string                    { return text.PadRight(s, w) }
func bind(help, desc string, keys ...string) key.Binding { return common.Bind(help, desc, keys...) }
func enabled(b key.Binding, on bool) key.Binding         { return common.Enabled(b, on) }
func msgCmd(msg tea.Msg) tea.Cmd                         { return common.MsgCmd(msg) }

func padLeft(s string, w int) string       { return text.PadLeft(s, w) }
func cellWidth(s string) int               { return text.Width(s) }
func widthOf(s string) int                 { return text.Width(s) }
func sci(v float64) string                 { return common.Sci(v) }
func bytesText(n uint64) string            { return common.BytesText(n) }
func countText(n uint64) string            { return common.CountText(n) }
func clock(d time.Duration) string         { return common.Clock(d) }
func stateGlyph(s engine.NodeState) string { return common.StateGlyph(s) }
func progressBar(f float64, w int) string  { return chart.Bar(f, w) }

const nodeStates = common.NodeStates
