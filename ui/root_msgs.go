package ui

import (
	"context"
	"errors"
	"fmt"
	"github.com/gridtui/gridtui/ui/page/compose"
	"github.com/gridtui/gridtui/ui/widget/pager"
	"maps"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
)

// widthOf is the display width of s.
func widthOf(s string) int { return ansi.StringWidth(s) }

// hostKeyAnswerMsg is the user's answer about an unknown host key, or about
// every key in all (the "accept all N shown" question).
type hostKeyAnswerMsg struct {
	host   string
	accept bool
	all    []string
}

// hostKeyOneMsg asks about the first pending host key alone (the answer
// "no" to accepting all of them).
type hostKeyOneMsg struct{}

// runStoppedMsg reports that the run goroutine has returned after an abort
// requested by quitting.
type runStoppedMsg struct{}

// copiedMsg reports that a detail view's text went to the clipboard.
type copiedMsg struct{ lines int }

// backendMsg handles the messages of side effects and action requests; ok
// is false for messages that belong to a view.
func (m *Model) backendMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case DeployRequestMsg:
		m.setStatus(false, "deploying to %d host(s)…", len(msg.Hosts))
		return deployCmd(m.cfg.Ctx, m.cfg.Inventory, msg.Hosts, false), true
	case StopRequestMsg:
		m.setStatus(false, "stopping workers on %d host(s)…", len(msg.Hosts))
		return deployCmd(m.cfg.Ctx, m.cfg.Inventory, msg.Hosts, true), true
	case deployEventMsg:
		m.applyDeployEvent(msg.ev)
		return listen(msg.ch), true
	case hostKeyPromptMsg:
		m.keyPrompts[msg.host] = msg
		m.markFingerprint(msg.host, msg.fingerprint)
		if m.confirm == nil || m.askingHostKeys() { // else it waits: asked after the open question
			m.askHostKeys()
		}
		return listen(msg.ch), true
	case pager.CopiedMsg:
		// OSC 52 has no answer: say what was sent, and what a terminal
		// that ignores it does, so that y is never silent.
		m.setStatus(false, "copied %s to the clipboard (OSC 52; a terminal without it copies nothing: select the text instead)", count(msg.Lines, "line", "lines"))
		return nil, true
	case hostKeyOneMsg:
		if hosts := slices.Sorted(maps.Keys(m.keyPrompts)); len(hosts) > 0 {
			m.askHostKey(m.keyPrompts[hosts[0]])
		}
		return nil, true
	case passphrasePromptMsg: // one prompt at a time: the others wait their turn
		m.pushSecret(passphraseSecret(msg))
		return listen(msg.ch), true
	case challengePromptMsg:
		m.pushSecret(challengeSecret(msg))
		return listen(msg.ch), true
	case AcceptKeyMsg:
		for h, p := range m.keyPrompts {
			if strings.Contains(h, msg.Host.Name) {
				m.askHostKey(p)
			}
		}
		return nil, true
	case hostKeyAnswerMsg:
		for _, h := range append(msg.all, msg.host) {
			if p, ok := m.keyPrompts[h]; ok {
				p.reply <- msg.accept || msg.all != nil // buffered: never blocks
				delete(m.keyPrompts, h)
			}
			m.markFingerprint(h, "")
		}
		if m.confirm == nil && len(m.keyPrompts) > 0 {
			m.askHostKeys()
		}
		return nil, true
	case deployDoneMsg:
		m.deployDone(msg)
		return nil, true
	case ProbeRequestMsg:
		m.setStatus(false, "probing the hosts' networks…")
		return probeCmd(m.cfg.Ctx, m.cfg.Inventory), true
	case htableMsg:
		m.network.SetHtable(msg.table, msg.err)
		m.compose.SetHtable(msg.table)
		m.showPairs()
		switch {
		case msg.err != nil:
			m.setStatus(true, "probe: %v", msg.err)
		case len(msg.warnings) > 0:
			m.setStatus(true, "probe: %s", strings.Join(msg.warnings, "; "))
		default:
			m.setStatus(false, "Htable rebuilt: %d nodes", len(msg.table.Rows()))
		}
		return nil, true
	case loadMsg:
		m.applyLoad(msg)
		return loadTick(), true
	case compose.SaveConfirmMsg:
		m.confirm = &confirmation{question: fmt.Sprintf("This job cannot run as composed:\n• %s\nSave %s anyway?",
			strings.Join(msg.Problems, "\n• "), msg.Path), onYes: msg.SaveSpecMsg}
		return nil, true
	case compose.LoadConfirmMsg:
		m.confirm = &confirmation{question: fmt.Sprintf("The job has edits not saved.\nLoad %s and lose them?", msg.Path), onYes: msg.LoadSpecMsg}
		return nil, true
	case compose.SaveSpecMsg:
		return func() tea.Msg {
			return SpecSavedMsg{Path: msg.Path, Err: jobs.SaveSpec(msg.Path, msg.Spec, compose.JobFileComment)}
		}, true
	case compose.LoadSpecMsg:
		return func() tea.Msg {
			s, err := jobs.LoadSpec(msg.Path)
			if err == nil && s.Sweep != nil {
				// Composing would drop the sweep without a word.
				err = fmt.Errorf("ui: %s is a parameter sweep ([sweep]): run it with gridtui run --job %s (docs/SWEEPS.md)", msg.Path, msg.Path)
			}
			return SpecLoadedMsg{Path: msg.Path, Spec: s, Err: err}
		}, true
	}
	return m.runMsg(msg)
}

// runMsg handles starting, watching, aborting and finishing runs.
func (m *Model) runMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case StartRunMsg:
		if m.run.Running() {
			m.setStatus(true, "a run is already live: abort it first (Run tab, A)")
			return nil, true
		}
		ctx, cancel := context.WithCancel(m.cfg.Ctx)
		m.cancelRun = cancel
		m.run.Start(msg.Spec)
		m.sites.SetLive(true)
		m.workers, m.spares, m.workersNew = nil, nil, false
		m.preflight, m.routes = map[string]string{}, newRunRoutes()
		for _, p := range m.compose.Pairs() {
			m.preflight[p.A+"↔"+p.B] = "pending"
		}
		m.showPairs()
		m.tab = TabRun
		m.setStatus(false, "run %s started", msg.Spec.Name)
		var cmd tea.Cmd
		m.feed, cmd = startRun(ctx, m.cfg.Run, msg.Spec, m.cfg.Inventory, m.cfg.StoreDir)
		return cmd, true
	case DrainRequestMsg, drainDoneMsg:
		return m.updateDrain(msg)
	case JoinRequestMsg, joinDoneMsg:
		return m.updateJoin(msg)
	case AbortRequestMsg:
		m.confirm = &confirmation{question: "Abort the live run? Its workers will be stopped.", onYes: abortConfirmedMsg{}}
		return nil, true
	case abortConfirmedMsg:
		if m.cancelRun != nil {
			m.run.MarkAborted()
			m.cancelRun()
			m.setStatus(false, "aborting the run…")
		}
		return nil, true
	case quitConfirmedMsg:
		if m.cancelRun != nil {
			m.run.MarkAborted()
			m.cancelRun()
		}
		m.setStatus(false, "aborting the run and stopping its workers before quitting…")
		m.quitting = false
		return waitRunStopped(m.feed), true
	case runStoppedMsg:
		m.quitting = true
		return tea.Quit, true
	case runTickMsg:
		if msg.feed != m.feed {
			return nil, true // a stale tick of an earlier run
		}
		return m.applyRunTick(msg), true
	}
	return nil, false
}

// waitRunStopped waits (bounded) for the run goroutine to return.
func waitRunStopped(f *runFeed) tea.Cmd {
	return func() tea.Msg {
		deadline := time.Now().Add(15 * time.Second)
		for f != nil && time.Now().Before(deadline) {
			f.mu.Lock()
			done := f.done
			f.mu.Unlock()
			if done {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		return runStoppedMsg{}
	}
}

func (m *Model) applyRunTick(msg runTickMsg) tea.Cmd {
	if msg.snap != nil {
		m.run.ApplySnapshot(*msg.snap)
		m.markRunWorkers(*msg.snap, WorkerBusy)
		m.applyNodeLoads(*msg.snap)
	}
	m.run.AppendLog(msg.logs...)
	for _, e := range msg.logs {
		m.common.Logger.Info("run", "node", e.Node, "event", e.Text)
	}
	if msg.dropped > 0 {
		m.common.Logger.Warn("run", "dropped_events", msg.dropped)
	}
	for _, ev := range msg.deploys {
		m.applyWorkerEvent(ev)
	}
	if msg.workers != nil {
		m.workers, m.workersNew = msg.workers, true
	}
	if m.workersNew && len(m.run.Snapshot().Nodes) > 0 {
		m.markSpares() // once the nodes are known
	}
	m.notePreflight(msg)
	if !msg.done {
		return msg.feed.tick()
	}
	m.run.ApplyReport(msg.nodes, msg.gain)
	m.run.ApplyGateways(msg.gateways)
	m.run.ApplyRecoveries(msg.recoveries)
	m.routes.noteReport(msg.routes)
	m.showPairs()
	m.run.Finish(msg.summary, msg.err)
	m.common.Logger.Info("run finished", "err", msg.err, "report", msg.summary)
	m.markRunWorkers(m.run.Snapshot(), WorkerDown)
	m.sites.SetWorkers(m.spares, WorkerDown)
	m.sites.SetLive(false)
	m.workers, m.spares, m.workersNew = nil, nil, false
	m.cancelRun = nil
	switch {
	case msg.err != nil && (m.run.Aborted() || errors.Is(msg.err, engine.ErrRunAborted) || errors.Is(msg.err, context.Canceled)):
		m.setStatus(true, "run aborted")
	case msg.err != nil:
		m.setStatus(true, "run failed: %v", msg.err)
	default:
		m.setStatus(false, "run finished")
	}
	ended := RunEndedMsg{Name: m.run.Name(), How: m.run.EndState()}
	return tea.Batch(m.results.Load(), msgCmd(ended))
}

// notePreflight records the pre-flight outcome of the run's pairs: a pair
// whose best network did not answer is reported by the worker as
// "a ↔ b: <net> unreachable (…), falling back to …" (probe.Preflight); once
// any node iterates, every link is up, so the other pairs passed.
func (m *Model) notePreflight(msg runTickMsg) {
	changed := false
	var base map[string]probe.Route
	for _, e := range msg.logs {
		m.routes.noteLog(e.Text)
		for pair, st := range m.preflight {
			a, b, _ := strings.Cut(pair, "↔")
			if strings.HasPrefix(e.Text, a+" ↔ "+b+": ") && strings.Contains(e.Text, "unreachable") && st != "fallback" && st != "gateway" && st != "tunnel" {
				m.preflight[pair], changed = "fallback", true
				if base == nil {
					base = map[string]probe.Route{}
					for _, p := range m.compose.Pairs() {
						base[p.A+"↔"+p.B] = p.Route
					}
				}
				// The sites' gateways carry the pair (rmnp spec §8).
				if st := m.routes.notePreflight(base[pair], a, b, e.Text); st != "" {
					m.preflight[pair] = st
				}
			}
		}
	}
	iterating := false
	if msg.snap != nil {
		for _, n := range msg.snap.Nodes {
			iterating = iterating || n.Iteration > 0
		}
	}
	for pair, st := range m.preflight {
		switch {
		case st == "pending" && iterating:
			m.preflight[pair], changed = "ok", true
		case st == "pending" && msg.done:
			m.preflight[pair], changed = "failed", true
		}
	}
	if changed {
		m.showPairs()
	}
}

// askHostKeys asks about the pending host keys: alone when there is one,
// else every host with its fingerprint and "accept all N shown?" (no: ask
// about them one at a time).
func (m *Model) askHostKeys() {
	hosts := slices.Sorted(maps.Keys(m.keyPrompts))
	if len(hosts) == 1 {
		m.askHostKey(m.keyPrompts[hosts[0]])
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d unknown host keys:\n", len(hosts))
	for _, h := range hosts {
		fmt.Fprintf(&b, "  %s  %s\n", h, m.keyPrompts[h].fingerprint)
	}
	fmt.Fprintf(&b, "Accept all %d shown and record them in known_hosts? (no: ask one at a time)", len(hosts))
	m.confirm = &confirmation{question: b.String(), onYes: hostKeyAnswerMsg{all: hosts}, onNo: hostKeyOneMsg{}}
}

// askingHostKeys reports whether the open question is about host keys.
func (m *Model) askingHostKeys() bool {
	if m.confirm == nil {
		return false
	}
	_, ok := m.confirm.onYes.(hostKeyAnswerMsg)
	return ok
}

func (m *Model) askHostKey(p hostKeyPromptMsg) {
	m.confirm = &confirmation{
		question: fmt.Sprintf("Unknown host key for %s\n%s\nAccept it and record it in known_hosts?", p.host, p.fingerprint),
		onYes:    hostKeyAnswerMsg{host: p.host, accept: true},
		onNo:     hostKeyAnswerMsg{host: p.host, accept: false},
	}
}

// markFingerprint records (or clears) a pending host key on the host whose
// name appears in the "[host]:port" address.
func (m *Model) markFingerprint(addr, fp string) {
	if m.cfg.Inventory == nil {
		return
	}
	for _, h := range m.cfg.Inventory.Hosts() {
		if addr == h.Name || strings.HasPrefix(strings.TrimPrefix(addr, "["), h.Name+"]") || strings.HasPrefix(addr, h.Name+":") {
			st := m.sites.HostState(h.Name)
			st.Fingerprint = fp
			m.sites.SetHostState(h.Name, st)
		}
	}
}

func (m *Model) applyDeployEvent(ev deploy.Event) {
	if ev.Err != nil {
		m.common.Logger.Warn("deploy", "host", ev.Host, "phase", ev.Phase, "detail", ev.Detail, "err", ev.Err)
	} else {
		m.common.Logger.Info("deploy", "host", ev.Host, "phase", ev.Phase, "detail", ev.Detail)
	}
	st := m.sites.HostState(ev.Host)
	st.Phase, st.Progress, st.Detail, st.Err = string(ev.Phase), ev.Progress, ev.Detail, ""
	if ev.Err != nil {
		st.Err = ev.Err.Error()
	}
	if ev.Phase == deploy.PhaseStopped {
		st.Worker = WorkerDown
	}
	m.sites.SetHostState(ev.Host, st)
}

// applyWorkerEvent shows a run's worker start/stop event: a worker that
// said hello is up (busy once it iterates), a stopped or failed one down.
func (m *Model) applyWorkerEvent(ev deploy.Event) {
	m.applyDeployEvent(ev)
	st := m.sites.HostState(ev.Host)
	switch ev.Phase {
	case deploy.PhaseReady:
		if st.Worker == WorkerDown {
			st.Worker = WorkerUp
		}
	case deploy.PhaseFailed:
		st.Worker = WorkerDown
	}
	if ev.Hello != nil && ev.Hello.Load != nil {
		st.Load = *ev.Hello.Load // an SSH host's own load, from its worker
	}
	m.sites.SetHostState(ev.Host, st)
}

// applyNodeLoads shows the load average each node's worker last reported
// (engine.NodeStatus.Load): the only figure the console has of an SSH
// host's load.
func (m *Model) applyNodeLoads(s engine.Snapshot) {
	changed := map[string]HostState{}
	for i := range s.Nodes {
		if l := s.Nodes[i].Load; l != nil {
			st := m.sites.HostState(s.Nodes[i].Node)
			if st.Load != *l {
				st.Load = *l
				changed[s.Nodes[i].Node] = st
			}
		}
	}
	if len(changed) > 0 {
		m.sites.SetHostStates(changed) // once: a 1024-node run updates them all
	}
}

func (m *Model) deployDone(msg deployDoneMsg) {
	failed := msg.summary.Failed()
	for _, r := range msg.summary.Results {
		st := m.sites.HostState(r.Host)
		st.Phase, st.Detail = string(r.Phase), r.Detail
		if r.Err != nil {
			st.Err = r.Err.Error()
		}
		m.sites.SetHostState(r.Host, st)
	}
	switch {
	case len(failed) > 0:
		m.setStatus(true, "%s: %d of %d host(s) failed (enter on a host shows the reason whole)", msg.what, len(failed), len(msg.summary.Results))
	case msg.err != nil:
		m.setStatus(true, "%s: %v", msg.what, msg.err)
	default:
		m.setStatus(false, "%s: %d host(s) done", msg.what, len(msg.summary.Results))
	}
}

// applyLoad shows the machine's load on the local-launcher hosts.
func (m *Model) applyLoad(msg loadMsg) {
	if m.cfg.Inventory == nil {
		return
	}
	states := map[string]HostState{}
	for _, s := range m.cfg.Inventory.Sites {
		if s.Launcher != inventory.LauncherLocal {
			continue
		}
		for _, c := range s.Clusters {
			for _, h := range c.Hosts {
				st := m.sites.HostState(h.Name)
				st.Load = msg.load
				states[h.Name] = st
			}
		}
	}
	m.sites.SetHostStates(states)
}
