package ui

import (
	"context"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/engine"
)

// Join from the Sites view (docs/FAILURES.md, volatile nodes): J on a host
// that holds no part of the live run asks the engine to start a worker
// there and keep it as a spare of the job. Control.Join returns once the
// worker is up (up to a minute), so it runs in a command, off the event
// loop; the host shows "join…" meanwhile, then "spare" or the refusal.

// joinTimeout bounds the wait for a joining worker: the engine gives its
// start a minute (a recovery's new workers'), and the request may wait for
// the run's event loop first.
const joinTimeout = 90 * time.Second

// joinDoneMsg is the engine's answer to a join request of feed's run.
type joinDoneMsg struct {
	feed *runFeed
	host string
	err  error
}

// joinCmd passes a join request to the run's Control and waits for it.
func joinCmd(f *runFeed, host string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
		defer cancel()
		return joinDoneMsg{feed: f, host: host, err: f.ctl.Join(ctx, host)}
	}
}

// updateJoin handles the join messages; it reports whether msg was one.
func (m *Model) updateJoin(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case JoinRequestMsg:
		if m.feed == nil || m.feed.ctl == nil || !m.run.Running() {
			m.setStatus(true, "no live run for %s to join", msg.Host)
			return nil, true
		}
		st := m.sites.HostState(msg.Host)
		st.Joining, st.JoinErr = true, ""
		m.sites.SetHostState(msg.Host, st)
		m.setStatus(false, "joining %s to run %s as a spare…", msg.Host, m.run.Name())
		return joinCmd(m.feed, msg.Host), true
	case joinDoneMsg:
		m.joinDone(msg)
		return nil, true
	}
	return nil, false
}

// joinDone shows a join's outcome: the host a spare, or the refusal in the
// Sites view, the status line and the run's event log.
func (m *Model) joinDone(msg joinDoneMsg) {
	st := m.sites.HostState(msg.host)
	st.Joining = false
	live := msg.feed == m.feed && m.run.Running()
	if msg.err != nil {
		st.JoinErr = msg.err.Error()
		m.sites.SetHostState(msg.host, st)
		m.setStatus(true, "%v", msg.err)
		if msg.feed == m.feed {
			m.run.AppendLog(engine.LogEvent{At: time.Now(), Node: msg.host, Text: "join from the console refused: " + msg.err.Error()})
		}
		return
	}
	if live && st.Worker != WorkerBusy {
		st.Worker = WorkerSpare
		if !slices.Contains(m.spares, msg.host) {
			m.spares = append(m.spares, msg.host)
		}
	}
	m.sites.SetHostState(msg.host, st)
	m.setStatus(false, "%s joined run %s as a spare", msg.host, m.run.Name())
}

// markSpares shows the run's spares, its workers outside its nodes, once
// its workers changed (a start with spares, a recovery, a join); a part
// moved to a spare makes it busy (markRunWorkers).
func (m *Model) markSpares() {
	nodes := map[string]bool{}
	for _, n := range m.run.Snapshot().Nodes {
		nodes[n.Node] = true
	}
	var spares []string
	for _, h := range m.workers {
		if !nodes[h] && !slices.Contains(spares, h) {
			spares = append(spares, h)
		}
	}
	m.spares, m.workersNew = spares, false
	if len(spares) > 0 {
		m.sites.SetWorkers(spares, WorkerSpare)
	}
}
