package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
)

// runTick is the console's telemetry rate: snapshots and log events are
// collected by the run's goroutine and drained by the UI at most this often
// (≤ 10 Hz), so a burst of events never floods Update.
const runTick = 100 * time.Millisecond

// runBatch is what a run produced since the last tick: the latest snapshot,
// the queued log and deploy events, and the outcome once the run is done.
type runBatch struct {
	snap    *engine.Snapshot
	logs    []engine.LogEvent
	deploys []deploy.Event
	dropped int
	done    bool
	summary string
	err     error
	// nodes are the nodes of the run's report, their final states, and
	// gain its computing gain (0: unknown).
	nodes []engine.NodeReport
	gain  float64
	// routes are the report's routes, as the nodes dialled them, and
	// gateways its gateway links' last counters (printed as they stopped:
	// a short run ends before its last snapshot has them).
	routes   []probe.Route
	gateways []engine.GatewayReport
	// recoveries are the report's: the losses the run survived.
	recoveries []jobs.Recovery
	// workers are the hosts of the run's workers when they last changed
	// (engine.RunOptions.OnWorkers: the start, a recovery, a join); nil
	// when they did not since the last tick.
	workers []string
}

// runFeed is the hand-off between a run's goroutine (engine callbacks) and
// the UI tick: the latest snapshot wins, log events queue up (bounded).
type runFeed struct {
	mu sync.Mutex
	runBatch
	// ctl takes requests while the run runs (a drain, rundrain.go).
	ctl *engine.Control
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

func (f *runFeed) deploy(e deploy.Event) {
	f.mu.Lock()
	if len(f.deploys) < maxQueuedLogs {
		f.deploys = append(f.deploys, e)
	}
	f.mu.Unlock()
}

func (f *runFeed) workersChanged(ws []*deploy.Worker) {
	hosts := make([]string, 0, len(ws))
	for _, w := range ws {
		hosts = append(hosts, w.Host.Name)
	}
	f.mu.Lock()
	f.workers = hosts
	f.mu.Unlock()
}

func (f *runFeed) report(r *engine.Report) {
	f.mu.Lock()
	f.nodes, f.gain, f.routes, f.gateways = r.Nodes, r.Gain, r.Routes, r.Gateways
	f.recoveries = r.Recoveries
	f.mu.Unlock()
}

func (f *runFeed) finish(summary string, err error) {
	f.mu.Lock()
	f.done, f.summary, f.err = true, summary, err
	f.mu.Unlock()
}

// runTickMsg carries what a run produced since the last tick.
type runTickMsg struct {
	feed *runFeed
	runBatch
}

// drain takes what accumulated in the feed; the outcome stays.
func (f *runFeed) drain() runTickMsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := runTickMsg{feed: f, runBatch: f.runBatch}
	f.snap, f.logs, f.deploys, f.dropped, f.workers = nil, nil, nil, 0, nil
	return m
}

// tick schedules the next drain of the feed.
func (f *runFeed) tick() tea.Cmd {
	return tea.Tick(runTick, func(time.Time) tea.Msg { return f.drain() })
}

// RunCallbacks receive what a run reports while it runs: telemetry
// snapshots, event-log lines and the workers' start/stop events, then its
// report. They must not block (the console queues them for its next tick).
type RunCallbacks struct {
	Snapshot func(engine.Snapshot)
	Log      func(engine.LogEvent)
	Deploy   func(deploy.Event)
	// Report takes the run's report, failed and aborted runs' too, before
	// the RunFunc returns: the Run view shows the nodes' final states from
	// it (engine.StateAborted for the nodes a stopped run cut short, which
	// no snapshot carries).
	Report func(*engine.Report)
	// Control, when set, is the run's (engine.RunOptions.Control): the
	// Run view drains a node through it, the Sites view joins a host.
	Control *engine.Control
	// Workers takes the run's workers whenever they change
	// (engine.RunOptions.OnWorkers): those outside the plan are its spares.
	Workers func([]*deploy.Worker)
}

// RunFunc runs a job to its end, reporting through the callbacks, and
// returns the run's text report. The console uses EngineRun; tests may pass
// another runner.
type RunFunc func(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, storeDir string, cb RunCallbacks) (summary string, err error)

// EngineRun is the console's RunFunc: engine.Run (which starts the job's
// workers and stops them when it ends) with the console's callbacks; the
// summary is the run report's text.
func EngineRun(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, storeDir string, cb RunCallbacks) (string, error) {
	return EngineRunWith(deploy.Options{})(ctx, spec, inv, storeDir, cb)
}

// EngineRunWith is EngineRun with deploy options for starting the workers
// (timeouts, width); the callbacks' Deploy replaces opt.Events.
func EngineRunWith(opt deploy.Options) RunFunc {
	return func(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, storeDir string, cb RunCallbacks) (string, error) {
		opt.Events = cb.Deploy
		rep, err := engine.Run(ctx, spec, engine.RunOptions{
			Inventory: inv, OnSnapshot: cb.Snapshot, OnLog: cb.Log, StoreDir: storeDir, Deploy: opt, Control: cb.Control,
			OnWorkers: cb.Workers,
		})
		var b strings.Builder
		if rep != nil {
			if cb.Report != nil {
				cb.Report(rep)
			}
			if werr := rep.WriteText(&b); werr != nil && err == nil {
				err = werr
			}
		}
		return b.String(), err
	}
}

// ErrNoEngine is returned when the console was built without a job runner
// (Config.Run is nil).
var ErrNoEngine = errors.New("ui: no job runner configured")

// startRun runs spec in a goroutine and returns the first tick.
func startRun(ctx context.Context, run RunFunc, spec jobs.Spec, inv *inventory.Inventory, storeDir string) (*runFeed, tea.Cmd) {
	f := &runFeed{ctl: engine.NewControl()}
	go func() {
		if run == nil {
			f.finish("", ErrNoEngine)
			return
		}
		summary, err := run(ctx, spec, inv, storeDir, RunCallbacks{Snapshot: f.snapshot, Log: f.log, Deploy: f.deploy, Report: f.report, Control: f.ctl, Workers: f.workersChanged})
		f.finish(summary, err)
	}()
	return f, f.tick()
}
