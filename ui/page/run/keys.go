package run

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/ui/widget/list"
	"github.com/gridtui/gridtui/ui/widget/pager"
)

// What the Run view's page shows.
const (
	pageReport = iota
	pageNode
	pageEvent
)

// AppendLog adds events to the event log, keeping the newest maxLog.
func (v *Model) AppendLog(evs ...engine.LogEvent) {
	v.logs = append(v.logs, evs...)
	v.logSeq += len(evs)
	if over := len(v.logs) - maxLog; over > 0 {
		v.logs = append(v.logs[:0], v.logs[over:]...)
	}
	if v.showEvents && len(evs) > 0 {
		v.fillEvents()
	}
}

// fillEvents rebuilds the expanded log's rows. A cursor on the newest
// event follows the events that arrive; one moved up stays where it is.
func (v *Model) fillEvents() {
	atEnd := v.events.Cursor() >= v.events.Len()-1
	rows := make([]listRow, len(v.logs))
	first := v.logSeq - len(v.logs)
	start := v.snap.At.Add(-v.snap.Elapsed)
	for i, e := range v.logs {
		at := time.Duration(0)
		if !v.snap.At.IsZero() {
			at = e.At.Sub(start)
		}
		rows[i] = listRow{Key: strconv.Itoa(first + i), Leaf: true,
			Cells: []string{clock(at.Truncate(100 * time.Millisecond)), orDefault(e.Node, "run"), e.Text}}
	}
	v.events.SetRows(rows)
	if atEnd {
		v.events.SetCursor(v.events.Len() - 1)
	}
}

// logLines returns the newest h events, each cut to the width (e expands
// the log).
func (v *Model) logLines(w, h int) []string {
	if h <= 0 {
		return nil
	}
	evs := v.logs
	if len(evs) > h {
		evs = evs[len(evs)-h:]
	}
	out := make([]string, 0, h)
	for _, e := range evs {
		out = append(out, padRight(v.eventLine(e), w))
	}
	if len(out) == 0 {
		out = append(out, v.common.Styles.Dim.Render("no events yet"))
	}
	return out
}

// runKeyMap is the Run view's key map (help.KeyMap): its own keys and the
// keys of the list in front (the nodes, or the expanded event log).
type runKeyMap struct {
	Abort, Report, Events, Close key.Binding
	Drain                        key.Binding // drain.go
	list                         list.Bindings
	nav                          []key.Binding
}

// keyMap returns the bindings enabled for the run's state.
func (v Model) keyMap() runKeyMap {
	k := v.common.Keys
	l := &v.list
	if v.showEvents {
		l = &v.events
	}
	events := bind("e", "event log", "e")
	if v.showEvents {
		events.SetHelp("e", "live panels")
	}
	return runKeyMap{
		Abort:  enabled(bind("A", "abort run", "A"), v.running),
		Drain:  enabled(bind("D", "drain node", "D"), v.running && !v.showEvents && !v.page.Open),
		Report: enabled(bind("o", "full report", "o"), v.report != ""),
		Events: enabled(events, v.started),
		Close:  enabled(k.Close, v.showEvents && l.Filter() == ""),
		list:   l.Bindings().Only(v.started),
		nav:    k.NavOnly(v.started),
	}
}

// ShortHelp implements help.KeyMap.
func (k runKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Abort, k.Report, k.Events, k.list.Details, k.list.Filter}
}

// FullHelp implements help.KeyMap.
func (k runKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Abort, k.Drain, k.Report, k.Events, k.Close}, k.list.Column(), k.nav}
}

// pageKeys are the Run view's keys while a page is open: the pager's, and
// abort, report and event log, which stay at hand.
type pageKeys struct {
	run  runKeyMap
	page pager.Bindings
}

// ShortHelp implements help.KeyMap.
func (k pageKeys) ShortHelp() []key.Binding {
	return append(k.page.ShortHelp(), k.run.Abort)
}

// FullHelp implements help.KeyMap.
func (k pageKeys) FullHelp() [][]key.Binding {
	return append(k.page.FullHelp(), []key.Binding{k.run.Abort, k.run.Report, k.run.Events})
}

// pageHeight is the height of the page: the body less the title and the
// counts.
func (v Model) pageHeight() int { return v.common.BodyHeight() - 2 }

func (v Model) help() help.KeyMap {
	if v.page.Open {
		return pageKeys{run: v.keyMap(), page: v.page.Bindings(v.common.Width, v.pageHeight())}
	}
	return v.keyMap()
}

// update handles the keys of the page, of the list in front and the
// view's own, and clicks on a list's rows.
func (v Model) update(msg tea.Msg) (Model, tea.Cmd) {
	if c, ok := msg.(tea.MouseClickMsg); ok && !v.page.Open {
		if v.showEvents {
			v.events.Click(c.X, c.Y)
		} else {
			v.list.Click(c.X, c.Y)
		}
		return v, nil
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return v, nil
	}
	if v.page.Open {
		if ok, cmd := v.page.Update(km, v.common.Width, v.pageHeight()); ok {
			return v, cmd
		}
	} else {
		l, height := &v.list, 6
		if v.showEvents {
			l, height = &v.events, v.pageHeight()-1
		}
		if v.started && l.Update(km, height) {
			return v, nil
		}
	}
	return v.ownKey(km)
}

// ownKey handles abort, the report, the event log and the details.
func (v Model) ownKey(km tea.KeyPressMsg) (Model, tea.Cmd) {
	k := v.keyMap()
	switch {
	case key.Matches(km, k.Abort):
		return v, msgCmd(AbortRequestMsg{})
	case key.Matches(km, k.Drain):
		if r, ok := v.list.Selected(); ok {
			return v, msgCmd(DrainRequestMsg{Node: r.Key})
		}
	case key.Matches(km, k.Report):
		if v.page.Open && v.pageKind == pageReport {
			v.page.Open = false
		} else {
			v.page, v.pageKind = newPager(v.common, pager.New("Report", v.report)), pageReport
		}
	case key.Matches(km, k.Events):
		v.page.Open = false
		v.showEvents = !v.showEvents
		if v.showEvents {
			v.events.SetCursor(len(v.logs)) // the newest, followed
			v.fillEvents()
		}
	case key.Matches(km, k.Close):
		v.showEvents = false
	case !v.page.Open && key.Matches(km, k.list.Details):
		if v.showEvents {
			r, _ := v.events.Selected()
			v.page, v.pageKind = newPager(v.common, pager.New("Event", r.Cells[0]+" "+r.Cells[1]+"\n\n"+r.Cells[2])), pageEvent
		} else {
			r, _ := v.list.Selected()
			title, text := v.describeNode(r.Key)
			v.page, v.pageKind = newPager(v.common, pager.New(title, text)), pageNode
		}
	}
	return v, nil
}
