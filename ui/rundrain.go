package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/engine"
)

// Drain from the Run view (docs/FAILURES.md): D on a node of the live run
// asks the engine to let the node go; its part moves to a spare or a free
// host and the run goes on. The run's event log and node table then show
// the move like a recovery.

// drainTimeout bounds the wait for the run to take a drain request.
const drainTimeout = 30 * time.Second

// drainDoneMsg is the engine's answer to a drain request.
type drainDoneMsg struct {
	node string
	err  error
}

// drainCmd passes a drain request to the run's Control.
func drainCmd(ctl *engine.Control, node string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
		defer cancel()
		return drainDoneMsg{node: node, err: ctl.Drain(ctx, node, "drained from the console")}
	}
}

// updateDrain handles the drain messages; it reports whether msg was one.
func (m *Model) updateDrain(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case DrainRequestMsg:
		if m.feed == nil || m.feed.ctl == nil || !m.run.Running() {
			m.setStatus(true, "no live run to drain %s from", msg.Node)
			return nil, true
		}
		m.setStatus(false, "draining %s…", msg.Node)
		return drainCmd(m.feed.ctl, msg.Node), true
	case drainDoneMsg:
		if msg.err != nil {
			m.setStatus(true, "%v", msg.err)
		} else {
			m.setStatus(false, "%s drained: its part moves (the event log says where)", msg.node)
		}
		return nil, true
	}
	return nil, false
}
