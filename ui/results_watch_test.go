package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/internal/uitest"
	"github.com/gridtui/gridtui/ui/page/results"
)

// TestResultsWatchesTheStore: a run recorded by another process (gridtui
// run) appears in the Results page on the store's watch tick while another
// tab is in front, without R and without R's "read again" note; an
// unchanged store is not read again.
func TestResultsWatchesTheStore(t *testing.T) {
	defer func(d time.Duration) { results.WatchEvery = d }(results.WatchEvery)
	results.WatchEvery = time.Millisecond
	dir := t.TempDir()
	rec := uitest.Record(1, jobs.Synchronous, 1, 4.0, true)
	if err := jobs.Append(dir, &rec); err != nil {
		t.Fatal(err)
	}
	m := New(Config{Inventory: inventory.Embedded(), StoreDir: dir, NoLoad: true})
	update := func(msg tea.Msg) []tea.Msg {
		next, cmd := m.Update(msg)
		m = next.(Model)
		return cmdMsgs(cmd)
	}
	update(m.results.Load()())
	if n := len(m.results.Results().Records); n != 1 {
		t.Fatalf("first read: %d runs", n)
	}
	tick := func() []tea.Msg { return cmdMsgs(m.results.Watch()) } // the stamp of the file now
	if loads(update(tick()[0])) != 0 {
		t.Error("an unchanged store was read again")
	}
	rec2 := uitest.Record(2, jobs.Asynchronous, 4, 1.0, true)
	if err := jobs.Append(dir, &rec2); err != nil {
		t.Fatal(err)
	}
	var loaded []tea.Msg
	for _, x := range update(tick()[0]) {
		if _, ok := x.(results.LoadedMsg); ok {
			loaded = append(loaded, x)
		}
	}
	if len(loaded) != 1 {
		t.Fatalf("the grown store was read %d times, want 1", len(loaded))
	}
	update(loaded[0])
	if n := len(m.results.Results().Records); n != 2 {
		t.Errorf("after the store grew: %d runs shown, want 2", n)
	}
	if msg := m.results.Message(); msg != "" {
		t.Errorf("the watch's read says %q (R's word)", msg)
	}
}

func loads(msgs []tea.Msg) int {
	n := 0
	for _, x := range msgs {
		if _, ok := x.(results.LoadedMsg); ok {
			n++
		}
	}
	return n
}
