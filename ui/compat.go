package ui

import (
	"context"
	"log/slog"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/page/compose"
	"github.com/gridtui/gridtui/ui/page/run"
	"github.com/gridtui/gridtui/ui/page/sites"
	"github.com/gridtui/gridtui/ui/widget/chart"
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

// The Sites page's values under the names the root has always used.
type (
	// SitesView is the Sites page (ui/page/sites).
	SitesView = sites.Model
	// HostState is a host as the Sites page shows it.
	HostState = sites.HostState
	// WorkerState is a host's worker process.
	WorkerState = sites.WorkerState
	// DeployRequestMsg asks to deploy hosts (sent by the Sites page).
	DeployRequestMsg = sites.DeployRequestMsg
	// StopRequestMsg asks to stop the workers of hosts.
	StopRequestMsg = sites.StopRequestMsg
	// AcceptKeyMsg records the user's acceptance of an unknown host key.
	AcceptKeyMsg = sites.AcceptKeyMsg
	// ProbeRequestMsg asks to probe the hosts' networks again.
	ProbeRequestMsg = common.ProbeRequestMsg
	// JoinRequestMsg asks to join a host to the live run as a spare (J in
	// the Sites page).
	JoinRequestMsg = sites.JoinRequestMsg
)

// The Run page's values under the names the root has always used.
type (
	// RunView is the Run page (ui/page/run).
	RunView = run.Model
	// AbortRequestMsg asks to abort the live run (A in the Run page).
	AbortRequestMsg = run.AbortRequestMsg
	// DrainRequestMsg asks to drain a node of the live run (D in the Run page).
	DrainRequestMsg = run.DrainRequestMsg
)

// The Compose page's values under the names the root, cli and the tests
// have always used.
type (
	// ComposeView is the Compose page (ui/page/compose).
	ComposeView = compose.Model
	// StartRunMsg asks the root model to start a run of Spec.
	StartRunMsg = compose.StartRunMsg
	// SpecSavedMsg reports a written job file.
	SpecSavedMsg = compose.SpecSavedMsg
	// SpecLoadedMsg carries a job file read from disk.
	SpecLoadedMsg = compose.SpecLoadedMsg
	// RunEndedMsg says that the run shown in the Run page ended, and how.
	RunEndedMsg = compose.RunEndedMsg
)

// NewComposeView returns the Compose page for the inventory's hosts
// (compose.New).
func NewComposeView(c *Common, inv *inventory.Inventory) ComposeView { return compose.New(c, inv) }

// Worker states (sites.WorkerState).
const (
	WorkerDown  = sites.WorkerDown
	WorkerUp    = sites.WorkerUp
	WorkerBusy  = sites.WorkerBusy
	WorkerSpare = sites.WorkerSpare
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

func placeBody(c *Common, s string) string { return common.Place(c, s) }
func wrap(s string, w int) string          { return common.Wrap(s, w) }
func msgCmd(msg tea.Msg) tea.Cmd           { return common.MsgCmd(msg) }
func progressBar(f float64, w int) string  { return chart.Bar(f, w) }
