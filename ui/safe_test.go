package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
)

// hostile is text a compromised host could send: a title change, a bell,
// a screen clear, a C1 CSI and a bidirectional override.
const hostile = "pwned\x1b]0;title\x07\x1b[2J\u009b31m\u202e"

// TestHostileTextNeverReachesTheTerminal runs a run's log line, a failed
// node's error and a deploy error with escape sequences through the
// console, and checks that the frame shows them quoted.
func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), Run: blockingRun, NoLoad: true})
	m.compose.ClearNodes()
	for _, h := range []string{"alpha-1", "alpha-2"} {
		m.compose.Pick(true, h)
	}
	m = send(m, StartRunMsg{Spec: m.compose.Spec()})
	snap := fakeRun(2, 2, -1)[0]
	snap.Nodes[0].Err = hostile
	m = send(m, runTickMsg{feed: m.feed, runBatch: runBatch{snap: &snap,
		logs:    []engine.LogEvent{{Node: "alpha-1", Text: "worker said " + hostile}},
		deploys: []deploy.Event{{Host: "alpha-2", Phase: deploy.PhaseFailed, Err: errors.New(hostile)}},
	}})
	for _, tab := range []int{TabSites, TabRun} {
		m.tab = tab
		frame := m.View().Content
		for _, bad := range []string{"\x07", "\x1b]0", "\x1b[2J", "\u009b", "\u202e"} {
			if strings.Contains(frame, bad) {
				t.Errorf("tab %d: the frame carries %q raw", tab, bad)
			}
		}
	}
	m.tab = TabRun
	if frame := m.View().Content; !strings.Contains(frame, `\x1b]0;title\x07`) {
		t.Errorf("the run's log does not show the quoted line:\n%s", frame)
	}
	m.cancelRun()
}

// TestSafeMsgLeavesTheFeedAlone checks that quoting a tick copies what it
// changes: the run goroutine still owns the feed's slices.
func TestSafeMsgLeavesTheFeedAlone(t *testing.T) {
	logs := []engine.LogEvent{{Text: hostile}}
	got := safeMsg(runTickMsg{runBatch: runBatch{logs: logs}}).(runTickMsg)
	if logs[0].Text != hostile || strings.Contains(got.logs[0].Text, "\x1b") {
		t.Errorf("feed %q, message %q", logs[0].Text, got.logs[0].Text)
	}
}
