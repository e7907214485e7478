package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
)

// runTick is the console's telemetry rate: snapshots and log events are
// collected by the run's goroutine and drained by the UI at most this often
// (≤ 10 Hz), so a burst of events never floods Update.
const runTick = 100 * time.Millisecond

// runFeed is the hand-off between a run's goroutine (engine callbacks) and
// the UI tick: the latest snapshot wins, log events queue up (bounded).
type runFeed struct {
	mu      sync.Mutex
	snap    *engine.Snapshot
	logs    []engine.LogEvent
	dropped int
	done    bool
	summary string
	err     error
}

const maxQueuedLogs = 1000

func (f *runFeed) snapshot(s engine.Snapshot) {
	f.mu.Lock()
	f.snap = &s
	f.mu.Unlock()
}

func (f *runFeed) log(e engine.LogEvent) {
	f.mu.Lock()
	if len(f.logs) < maxQueuedLogs {
		f.logs = append(f.logs, e)
	} else {
		f.dropped++
	}
	f.mu.Unlock()
}

func (f *runFeed) finish(summary string, err error) {
	f.mu.Lock()
	f.done, f.summary, f.err = true, summary, err
	f.mu.Unlock()
}

// runTickMsg carries what a run produced since the last tick.
type runTickMsg struct {
	feed    *runFeed
	snap    *engine.Snapshot
	logs    []engine.LogEvent
	dropped int
	done    bool
	summary string
	err     error
}

// drain takes what accumulated in the feed.
func (f *runFeed) drain() runTickMsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := runTickMsg{feed: f, snap: f.snap, logs: f.logs, dropped: f.dropped, done: f.done, summary: f.summary, err: f.err}
	f.snap, f.logs, f.dropped = nil, nil, 0
	return m
}

// tick schedules the next drain of the feed.
func (f *runFeed) tick() tea.Cmd {
	return tea.Tick(runTick, func(time.Time) tea.Msg { return f.drain() })
}

// RunFunc runs a job to its end, reporting telemetry through the callbacks,
// and returns the run's text report. The console uses engine.Run; tests may
// pass another real runner.
type RunFunc func(ctx context.Context, spec jobs.Spec, inv *deploy.Inventory, storeDir string,
	onSnapshot func(engine.Snapshot), onLog func(engine.LogEvent)) (summary string, err error)

// EngineRun is the console's RunFunc: engine.Run (which starts the job's
// workers and stops them when it ends) with the console's callbacks; the
// summary is the run report's text.
func EngineRun(ctx context.Context, spec jobs.Spec, inv *deploy.Inventory, storeDir string,
	onSnapshot func(engine.Snapshot), onLog func(engine.LogEvent)) (string, error) {
	rep, err := engine.Run(ctx, spec, engine.RunOptions{
		Inventory: inv, OnSnapshot: onSnapshot, OnLog: onLog, StoreDir: storeDir,
	})
	var b strings.Builder
	if rep != nil {
		if werr := rep.WriteText(&b); werr != nil && err == nil {
			err = werr
		}
	}
	return b.String(), err
}

// ErrNoEngine is returned when the console was built without a job runner.
var ErrNoEngine = errors.New("ui: running jobs is not implemented yet (engine.Run has not landed)")

// startRun runs spec in a goroutine and returns the first tick.
func startRun(ctx context.Context, run RunFunc, spec jobs.Spec, inv *deploy.Inventory, storeDir string) (*runFeed, tea.Cmd) {
	f := &runFeed{}
	go func() {
		if run == nil {
			f.finish("", ErrNoEngine)
			return
		}
		summary, err := run(ctx, spec, inv, storeDir, f.snapshot, f.log)
		f.finish(summary, err)
	}()
	return f, f.tick()
}
