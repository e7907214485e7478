package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/gridtui/gridtui/ui/page/compose"
	"github.com/gridtui/gridtui/ui/page/results"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/internal/termsafe"
	"github.com/gridtui/gridtui/jobs"
)

// safeMsg makes the text a message brings from outside the console — a
// worker's log line or error, a remote host's error text, a program's
// output, a stored record, a prompt's host and question — terminal-safe
// (termsafe) before any view sees it. Update calls it first: it is the one
// place where such text enters the console, so a host cannot write escape
// sequences to the operator's terminal through any view. Names from
// sites.toml and job files carry none (their parsers refuse them).
func safeMsg(msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case deployEventMsg:
		m.ev = safeEvent(m.ev)
		return m
	case deployDoneMsg:
		m.err = termsafe.Error(m.err)
		return m
	case htableMsg:
		m.err = termsafe.Error(m.err)
		m.warnings = safeLines(m.warnings)
		return m
	case hostKeyPromptMsg:
		m.host, m.fingerprint = termsafe.Line(m.host), termsafe.Line(m.fingerprint)
		return m
	case passphrasePromptMsg:
		m.host, m.keyfile = termsafe.Line(m.host), termsafe.Line(m.keyfile)
		return m
	case challengePromptMsg:
		m.host, m.instruction = termsafe.Line(m.host), termsafe.Text(m.instruction)
		m.questions = safeLines(m.questions)
		return m
	case runTickMsg:
		m.runBatch = safeBatch(m.runBatch)
		return m
	case results.LoadedMsg:
		m.Err = termsafe.Error(m.Err)
		safeResults(m.Res)
		return m
	case SpecLoadedMsg:
		m.Err = termsafe.Error(m.Err)
		return m
	case SpecSavedMsg:
		m.Err = termsafe.Error(m.Err)
		return m
	case results.ExportedMsg:
		m.Err = termsafe.Error(m.Err)
		return m
	case loadMsg:
		m.err = termsafe.Error(m.err)
		return m
	}
	return compose.SafeMsg(msg)
}

func safeLines(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = termsafe.Line(s)
	}
	return out
}

func safeEvent(ev deploy.Event) deploy.Event {
	ev.Host, ev.Detail, ev.Err = termsafe.Line(ev.Host), termsafe.Text(ev.Detail), termsafe.Error(ev.Err)
	return ev
}

// safeBatch copies what a run tick carries with its text made safe; the
// feed's own slices are not touched (the run goroutine still owns them).
func safeBatch(b runBatch) runBatch {
	b.summary, b.err = termsafe.Text(b.summary), termsafe.Error(b.err)
	if b.logs != nil {
		logs := make([]engine.LogEvent, len(b.logs))
		for i, e := range b.logs {
			e.Node, e.Text = termsafe.Line(e.Node), termsafe.Text(e.Text)
			logs[i] = e
		}
		b.logs = logs
	}
	if b.deploys != nil {
		evs := make([]deploy.Event, len(b.deploys))
		for i, e := range b.deploys {
			evs[i] = safeEvent(e)
		}
		b.deploys = evs
	}
	if b.nodes != nil {
		nodes := make([]engine.NodeReport, len(b.nodes))
		for i, n := range b.nodes {
			n.Node, n.Err = termsafe.Line(n.Node), termsafe.Text(n.Err)
			nodes[i] = n
		}
		b.nodes = nodes
	}
	if b.snap != nil {
		s := *b.snap
		s.Nodes = append([]engine.NodeStatus(nil), s.Nodes...)
		for i := range s.Nodes {
			s.Nodes[i].Node, s.Nodes[i].Err = termsafe.Line(s.Nodes[i].Node), termsafe.Text(s.Nodes[i].Err)
		}
		b.snap = &s
	}
	return b
}

// safeResults quotes, in place, the text of a store the console has just
// read (no one else holds it yet): names, reasons, nodes' errors.
func safeResults(res *jobs.Results) {
	if res == nil {
		return
	}
	for i := range res.Records {
		r := &res.Records[i]
		r.Job.Name, r.Reason = termsafe.Line(r.Job.Name), termsafe.Text(r.Reason)
		for k := range r.Nodes {
			n := &r.Nodes[k]
			n.Name, n.Host, n.Cluster, n.Err = termsafe.Line(n.Name), termsafe.Line(n.Host), termsafe.Line(n.Cluster), termsafe.Text(n.Err)
		}
	}
}
