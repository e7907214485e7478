package common

import (
	"charm.land/lipgloss/v2"

	"github.com/gridtui/gridtui/engine"
)

// NodeStates is the number of engine.NodeState values: the engine appends
// new states last (engine/telemetry.go), so the last one bounds them.
// TestEveryNodeStateShown fails when the engine gains one this misses.
const NodeStates = int(engine.StateAborted) + 1

// Styles are the console's Lip Gloss styles. Colours are downsampled by Bubble
// Tea to what the terminal supports, and dropped entirely under NO_COLOR, so
// nothing may be told apart by colour alone: node states also carry a glyph,
// and the selection is reversed and marked with "›".
type Styles struct {
	TabActive   lipgloss.Style
	TabInactive lipgloss.Style
	Brand       lipgloss.Style
	Header      lipgloss.Style
	Selected    lipgloss.Style
	Dim         lipgloss.Style
	Title       lipgloss.Style
	Err         lipgloss.Style
	Warn        lipgloss.Style
	OK          lipgloss.Style
	Key         lipgloss.Style
	Modal       lipgloss.Style
	// State styles the node cells of the Run view, indexed by engine.NodeState.
	State [NodeStates]lipgloss.Style
	// cells caches each state's styled grid cell (glyph and a space).
	cells [NodeStates]string
	// Network styles a network kind's traffic bars: ethernet, fast, unix.
	Ethernet, Fast, Unix lipgloss.Style
}

// DefaultStyles returns the console's styles.
func DefaultStyles() *Styles {
	c := lipgloss.Color
	s := &Styles{
		TabActive:   lipgloss.NewStyle().Bold(true).Reverse(true),
		TabInactive: lipgloss.NewStyle().Foreground(c("245")),
		Brand:       lipgloss.NewStyle().Bold(true).Foreground(c("39")),
		Header:      lipgloss.NewStyle().Bold(true).Underline(true),
		Selected:    lipgloss.NewStyle().Reverse(true),
		Dim:         lipgloss.NewStyle().Foreground(c("244")),
		Title:       lipgloss.NewStyle().Bold(true),
		Err:         lipgloss.NewStyle().Bold(true).Foreground(c("196")),
		Warn:        lipgloss.NewStyle().Foreground(c("214")),
		OK:          lipgloss.NewStyle().Foreground(c("42")),
		Key:         lipgloss.NewStyle().Bold(true),
		Modal:       lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1),
		Ethernet:    lipgloss.NewStyle().Foreground(c("75")),
		Fast:        lipgloss.NewStyle().Foreground(c("213")),
		Unix:        lipgloss.NewStyle().Foreground(c("250")),
	}
	s.State[engine.StateStarting] = lipgloss.NewStyle().Foreground(c("244"))
	s.State[engine.StateActive] = lipgloss.NewStyle().Foreground(c("42")).Bold(true)
	s.State[engine.StateInactive] = lipgloss.NewStyle().Foreground(c("220"))
	s.State[engine.StateTerminated] = lipgloss.NewStyle().Foreground(c("39"))
	s.State[engine.StateFailed] = lipgloss.NewStyle().Foreground(c("196")).Bold(true)
	s.State[engine.StateAborted] = lipgloss.NewStyle().Foreground(c("208"))
	for st := range s.cells {
		s.cells[st] = s.State[st].Render(StateGlyph(engine.NodeState(st))) + " "
	}
	return s
}

// StateGlyph is the colour-independent mark of a node state in the Run grid.
func StateGlyph(s engine.NodeState) string {
	switch s {
	case engine.StateStarting:
		return "·"
	case engine.StateActive:
		return "A"
	case engine.StateInactive:
		return "i"
	case engine.StateTerminated:
		return "T"
	case engine.StateFailed:
		return "X"
	case engine.StateAborted:
		// Stopped by the run before it terminated: a "no entry" sign,
		// not failed's cross.
		return "⊘"
	}
	return "?"
}

// StateCells returns the pre-rendered grid cells, indexed by state: the
// Run grid of 1024 nodes then costs string copies, not style calls.
func (s *Styles) StateCells() *[NodeStates]string { return &s.cells }

// StateStyle returns the style of a node state, tolerating unknown values.
func (s *Styles) StateStyle(st engine.NodeState) lipgloss.Style {
	if int(st) < len(s.State) {
		return s.State[st]
	}
	return s.Dim
}
