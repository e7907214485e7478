package engine

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/rmnp"
)

func startWorkers(t *testing.T, names ...string) ([]*deploy.Worker, [16]byte, []byte) {
	t.Helper()
	inv := inventory.Embedded()
	var hosts []inventory.Host
	for _, h := range inv.Hosts() {
		for _, n := range names {
			if h.Name == n {
				hosts = append(hosts, h)
			}
		}
	}
	id, secret := deploy.NewRunSecret()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ws, err := deploy.StartWorkers(ctx, inv, hosts, deploy.BootFor(id, secret), deploy.Options{StopTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopWorkers(ws, nil, "") })
	return ws, id, secret
}

// TestWorkerReuse runs two jobs on the same live workers (the console's
// case): the data endpoint is rebound between runs and the workers survive
// them; closing stdin then ends each worker by itself.
func TestWorkerReuse(t *testing.T) {
	ws, id, secret := startWorkers(t, "alpha-1", "alpha-2", "beta-1")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i, scheme := range []jobs.Scheme{jobs.Synchronous, jobs.Hybrid} {
		spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": "20", "eps": "1e-8"}, Scheme: scheme, Cores: 1}
		rep, err := Run(ctx, spec, RunOptions{Inventory: inventory.Embedded(), Workers: ws, RunID: id, Secret: secret, NoRecord: true})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if rep.Outcome != "ok" || len(rep.Nodes) != 3 || rep.Residual >= 10*specEps(spec) {
			t.Fatalf("run %d: outcome %s, %d nodes, residual %g", i, rep.Outcome, len(rep.Nodes), rep.Residual)
		}
	}
	for _, w := range ws {
		if w.Err() != nil {
			t.Fatalf("worker %s died: %v", w.Host.Name, w.Err())
		}
		start := time.Now()
		if err := w.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		// StopTimeout is 30 s: a quicker exit means the worker left on stdin EOF.
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("worker %s took %v to exit after stdin closed", w.Host.Name, d)
		}
		assertGone(t, []int{w.Hello.PID})
	}
}

// standIn is a stand-in coordinator: an rmnp endpoint that hands a worker
// a long single-rank task and waits for its first status.
func standIn(t *testing.T, ctx context.Context, w *deploy.Worker, id [16]byte, secret []byte, name string) *rmnp.Endpoint {
	return standInWith(t, ctx, w, id, secret, name, nil)
}

// standInWith is standIn with garbage sent before the task.
// standInRuns numbers the stand-ins' runs.
var standInRuns atomic.Uint64

func standInWith(t *testing.T, ctx context.Context, w *deploy.Worker, id [16]byte, secret []byte, name string, junk []junkMsg) *rmnp.Endpoint {
	t.Helper()
	cfg := rmnp.DefaultConfig()
	cfg.RunID, cfg.Secret, cfg.Self = id, secret, worker.NodeID(name)
	ep, err := rmnp.Listen(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ep.Close() })
	ctrl, _ := worker.SplitListen(w.Hello.Listen)
	peer := worker.NodeID(w.Host.Name)
	if _, err := worker.ConnectCtrl(ctx, ep, peer, ctrl); err != nil {
		t.Fatal(err)
	}
	for _, j := range junk {
		if err := ep.Send(ctx, peer, j.b, j.f); err != nil {
			t.Fatal(err)
		}
	}
	// Each stand-in is a run of its own, as each run of a console is: a
	// task of the same run as the one still going would be refused, and
	// the end of the previous run may not have reached the worker yet.
	part, err := solve.DefineLocal("obstacle", map[string]string{"n": "40", "eps": "1e-15"}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	task := worker.WorkerTask{Node: w.Host.Name, PartTask: part[0], Cores: 1, Scheme: jobs.Asynchronous, MaxIter: 1 << 30,
		Run: standInRuns.Add(1)}
	m, _ := worker.EncodeMsg(worker.MsgTask, task)
	if err := ep.Send(ctx, peer, m, rmnp.CTRL); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<16)
	for {
		m, err := worker.ReceiveCtrl(ctx, ep, peer, rmnp.CTRL, &buf)
		if err != nil {
			t.Fatalf("no status from %s: %v", w.Host.Name, err)
		}
		if worker.MsgType(m[0]) == worker.MsgStatus {
			return ep
		}
	}
}

// TestWorkerParentLost hands a worker a long task from a stand-in
// coordinator that then goes silent (hung or cut off): the worker must stop
// and exit by itself — after ParentTimeout once its parent said the run had
// started, only after StartupTimeout before. A parent that closes its link
// cleanly ends the run instead: the worker stays up and takes the next
// task.
func TestWorkerParentLost(t *testing.T) {
	// crowdedHi is the bound on a crowded host (heartbeat.go): the
	// watcher judges its parent by the hard bound alone there.
	silent := func(t *testing.T, node string, started bool, lo, hi, crowdedHi time.Duration) {
		ws, id, secret := startWorkers(t, node)
		w := ws[0]
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		ep := standIn(t, ctx, w, id, secret, "stand-in")
		if started {
			if err := ep.Send(ctx, worker.NodeID(node), worker.HeartbeatMsg(true), rmnp.CTRL); err != nil {
				t.Fatal(err)
			}
		}
		t0 := time.Now()
		crowded := worker.HostCrowded(t0)
		select {
		case <-w.Done():
		case <-time.After(max(hi, crowdedHi)):
			t.Fatalf("worker still running %v after its coordinator went silent", max(hi, crowdedHi))
		}
		d := time.Since(t0)
		if crowded = crowded || worker.HostCrowded(time.Now()); crowded { // at the start or at the end
			hi = crowdedHi
		}
		if d > hi {
			t.Errorf("worker gave up on its coordinator after %v of silence, want at most %v (host crowded: %v)", d, hi, crowded)
		}
		if d < lo {
			t.Errorf("worker gave up on its coordinator after %v of silence, want at least %v", d, lo)
		}
		if err := w.Err(); !errors.Is(err, deploy.ErrWorkerExited) || !strings.Contains(err.Error(), "parent lost") {
			t.Errorf("worker exit: %v, want a parent-lost exit", err)
		}
		if err := syscall.Kill(w.Hello.PID, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("worker process %d still exists: %v", w.Hello.PID, err)
		}
	}
	t.Run("silent", func(t *testing.T) {
		silent(t, "beta-2", true, worker.ParentTimeout-time.Second, worker.ParentTimeout+worker.ParentExitDelay+8*time.Second,
			worker.ExcuseLimit*worker.ParentTimeout+worker.ParentExitDelay+8*time.Second)
	})
	t.Run("silent during start-up", func(t *testing.T) {
		// Start-up is judged by its hard bound, crowded or not.
		hi := worker.StartupTimeout + worker.ParentExitDelay + 10*time.Second
		silent(t, "beta-4", false, worker.StartupTimeout-time.Second, hi, hi)
	})
	t.Run("closed", func(t *testing.T) {
		ws, id, secret := startWorkers(t, "beta-3")
		w := ws[0]
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		standIn(t, ctx, w, id, secret, "stand-in-1").Close()
		// The run ended; the worker must take a new task from a new parent.
		standIn(t, ctx, w, id, secret, "stand-in-2")
		if err := w.Err(); err != nil {
			t.Fatalf("worker exited: %v", err)
		}
	})
}

type junkMsg struct {
	b []byte
	f rmnp.Flags
}

// TestWorkerSurvivesJunk sends a worker's control endpoint a DATA message,
// unknown and malformed CTRL messages, and a task for another node: it
// drops them all and still takes its task.
func TestWorkerSurvivesJunk(t *testing.T) {
	ws, id, secret := startWorkers(t, "alpha-4")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	other, _ := worker.EncodeMsg(worker.MsgTask, worker.WorkerTask{Node: "beta-9"})
	standInWith(t, ctx, ws[0], id, secret, "stand-in", []junkMsg{
		{[]byte("halo?"), rmnp.DATA}, {[]byte{0xff, 1, 2}, rmnp.CTRL}, {[]byte{byte(worker.MsgTask), '{'}, rmnp.CTRL},
		{other, rmnp.CTRL}, {[]byte{byte(worker.MsgStatus), '[', ']'}, rmnp.CTRL},
	})
	if err := ws[0].Err(); err != nil {
		t.Fatal(err)
	}
}

// TestWorkerRefusesMissingHintedNIC: a sites.toml hint naming an interface
// the host lacks stops the worker before its hello, with an error naming the
// node and the interface, instead of being silently ignored.
func TestWorkerRefusesMissingHintedNIC(t *testing.T) {
	var boot bytes.Buffer
	b := deploy.Boot{Node: "alpha-1", RunID: [16]byte{1}, Secret: bytes.Repeat([]byte{7}, 32), Fast: "ib9-does-not-exist", Cores: 1}
	if err := deploy.WriteBoot(&boot, b); err != nil {
		t.Fatal(err)
	}
	var out, logs bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := worker.ServeWorker(ctx, &boot, &out, &logs)
	if err == nil || !strings.Contains(err.Error(), "alpha-1") || !strings.Contains(err.Error(), "ib9-does-not-exist") {
		t.Fatalf("ServeWorker = %v, want an error naming alpha-1 and ib9-does-not-exist", err)
	}
	if out.Len() != 0 {
		t.Errorf("worker said hello despite the bad hint: %q", out.String())
	}
}
