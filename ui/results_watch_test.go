package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
)

// TestResultsWatchesTheStore: a run recorded by another process (gridtui
// run) appears in the Results view on the store's watch tick, whatever tab
// is in front, without R and without R's "read again" note; an unchanged
// store is not read again.
func TestResultsWatchesTheStore(t *testing.T) {
	defer func(d time.Duration) { storeWatchEvery = d }(storeWatchEvery)
	storeWatchEvery = time.Millisecond
	dir := t.TempDir()
	rec := record(1, jobs.Synchronous, 1, 4.0, true)
	if err := jobs.Append(dir, &rec); err != nil {
		t.Fatal(err)
	}
	m := New(Config{Inventory: deploy.Embedded(), StoreDir: dir, NoLoad: true})
	update := func(msg tea.Msg) []tea.Msg {
		next, cmd := m.Update(msg)
		m = next.(Model)
		return cmdMsgs(cmd)
	}
	update(m.results.load()())
	if n := len(m.results.res.Records); n != 1 {
		t.Fatalf("first read: %d runs", n)
	}
	// Nothing changed: the tick reads nothing.
	if hasLoad(update(storeStatMsg{stamp: stampOf(dir)})) {
		t.Error("an unchanged store was read again")
	}
	rec2 := record(2, jobs.Asynchronous, 4, 1.0, true)
	if err := jobs.Append(dir, &rec2); err != nil {
		t.Fatal(err)
	}
	var loaded []tea.Msg
	for _, x := range update(storeStatMsg{stamp: stampOf(dir)}) {
		if hasLoad([]tea.Msg{x}) {
			loaded = append(loaded, x)
		}
	}
	if len(loaded) != 1 {
		t.Fatalf("the grown store was read %d times, want 1", len(loaded))
	}
	update(loaded[0])
	if n := len(m.results.res.Records); n != 2 {
		t.Errorf("after the store grew: %d runs shown, want 2", n)
	}
	if m.results.message != "" {
		t.Errorf("the watch's read says %q (R's word)", m.results.message)
	}
}

func hasLoad(msgs []tea.Msg) bool {
	for _, x := range msgs {
		if _, ok := x.(resultsLoadedMsg); ok {
			return true
		}
	}
	return false
}
