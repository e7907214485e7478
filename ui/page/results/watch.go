package results

import (
	"os"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/jobs"
)

// WatchEvery is how often the Results view looks at its store's file:
// a run started from the command line (or another console) appears within
// that time, without R.
var WatchEvery = 2 * time.Second

// storeStamp is what the view knows of the store's file: its size and
// modification time (zero when it does not exist).
type storeStamp struct {
	size int64
	mod  time.Time
}

// storeStatMsg is the stamp of the store's file, looked at on a tick.
type storeStatMsg struct{ stamp storeStamp }

// stampOf stats the store's file of the setting (a missing file, or an
// unreadable setting, is the zero stamp).
func stampOf(setting string) storeStamp {
	dir, err := jobs.DataDir(setting)
	if err != nil {
		return storeStamp{}
	}
	st, err := os.Stat(filepath.Join(dir, jobs.ResultsFile))
	if err != nil {
		return storeStamp{}
	}
	return storeStamp{size: st.Size(), mod: st.ModTime()}
}

// Watch looks at the store's file after WatchEvery, in a command.
func (v Model) Watch() tea.Cmd {
	setting := v.store
	return tea.Tick(WatchEvery, func(time.Time) tea.Msg {
		return storeStatMsg{stamp: stampOf(setting)}
	})
}

// storeStat reads the store again when its file changed since it was last
// read (a run recorded by gridtui run grows it), and keeps watching. The
// reload is quiet: "read again" is R's word.
func (v Model) storeStat(msg storeStatMsg) (Model, tea.Cmd) {
	if !v.loaded || v.reading || msg.stamp == v.stamp {
		return v, v.Watch()
	}
	v.reading = true
	return v, tea.Batch(v.Load(), v.Watch())
}
