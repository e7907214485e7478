package deploy

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// TestStopEscalatesToKill checks that `deploy --stop` (Stop from another
// pool) ends a worker that ignores SIGTERM because it is stopped (SIGSTOP, a
// hang): it escalates to SIGKILL after the grace period, the process is gone
// when Stop returns, and the detail says it had to be killed. Remote (over
// SSH) and local. The worker ignores SIGTERM, as a hung one would.
func TestStopEscalatesToKill(t *testing.T) {
	deaf := func(h inventory.Host) Boot { b := testBoot(h); b.Node = "deaf-" + h.Name; return b }
	for _, kind := range []string{"remote", "local"} {
		t.Run(kind, func(t *testing.T) {
			inv, h, opt := stopFixture(t, kind)
			ws, err := StartWorkers(testCtx(t), inv, []inventory.Host{h}, deaf, opt)
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			pid := ws[0].Hello.PID
			stopProcess(t, pid)
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			stopOpt := opt
			stopOpt.Pool = nil
			s, err := Stop(testCtx(t), inv, []inventory.Host{h}, stopOpt)
			if err != nil || !strings.HasPrefix(s.Results[0].Detail, "1 worker(s) stopped") || !strings.Contains(s.Results[0].Detail, "killed") {
				t.Fatalf("stop: %+v, %v", s.Results, err)
			}
			if running(pid) {
				t.Fatalf("worker %d still running after Stop reported it stopped", pid)
			}
			<-ws[0].Done()
		})
	}
}

// TestWorkerStopKillsHungWorker checks that Worker.Stop (the end of a run)
// ends a stopped worker, over SSH and locally.
func TestWorkerStopKillsHungWorker(t *testing.T) {
	for _, kind := range []string{"remote", "local"} {
		t.Run(kind, func(t *testing.T) {
			inv, h, opt := stopFixture(t, kind)
			opt.StopTimeout = 200 * time.Millisecond
			ws, err := StartWorkers(testCtx(t), inv, []inventory.Host{h}, testBoot, opt)
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			pid := ws[0].Hello.PID
			stopProcess(t, pid)
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			if err := ws[0].Stop(testCtx(t)); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for running(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if running(pid) {
				t.Fatalf("hung worker %d survives Stop", pid)
			}
		})
	}
}

// TestStartCleansStaleFiles checks that starting a node's worker removes the
// pid file and socket directories a killed worker of that node left, and
// ends a hung (stopped) worker of that node whose session is gone (remote:
// the test server is no sshd), but leaves other nodes' alone.
func TestStartCleansStaleFiles(t *testing.T) {
	for _, kind := range []string{"remote", "local"} {
		t.Run(kind, func(t *testing.T) {
			inv, h, opt := stopFixture(t, kind)
			wd := stopWorkdir(t, kind, h)
			ws, err := StartWorkers(testCtx(t), inv, []inventory.Host{h}, testBoot, opt)
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			old := ws[0].Hello.PID
			stopProcess(t, old)
			t.Cleanup(func() { syscall.Kill(old, syscall.SIGKILL) })
			if kind == "local" {
				// The old worker's console (this test) is alive: a stopped
				// worker it owns is not stale and must be left to it (a
				// concurrent run's hung node is that run's to report). Kill
				// it to leave what a dead worker leaves.
				syscall.Kill(old, syscall.SIGKILL)
				<-ws[0].Done()
			}
			node := testBoot(h).Node
			stale := []string{"rmnp-" + node + "-123456", "rmnp-" + node + "-99"}
			kept := []string{"rmnp-" + node + "-2-123456", "rmnp-other-1"}
			for _, d := range append(stale, kept...) {
				if err := os.MkdirAll(filepath.Join(wd, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			// Forget the old worker, as a console that crashed would.
			opt2 := opt
			opt2.Pool = nil
			ws2, err := StartWorkers(testCtx(t), inv, []inventory.Host{h}, testBoot, opt2)
			if err != nil {
				t.Fatalf("second start: %v", err)
			}
			defer ws2[0].Stop(testCtx(t))
			deadline := time.Now().Add(5 * time.Second)
			for running(old) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if running(old) {
				t.Errorf("the hung worker %d of %s survives the next start", old, node)
			}
			for _, d := range stale {
				if _, err := os.Stat(filepath.Join(wd, d)); err == nil {
					t.Errorf("stale socket directory %s left", d)
				}
			}
			for _, d := range kept {
				if _, err := os.Stat(filepath.Join(wd, d)); err != nil {
					t.Errorf("%s removed: %v", d, err)
				}
			}
		})
	}
}

// stopFixture is one host, over SSH (deployed) or local, and its options.
func stopFixture(t *testing.T, kind string) (*inventory.Inventory, inventory.Host, Options) {
	t.Helper()
	if kind == "local" {
		inv, hosts := localInventory(t, "node-1")
		return inv, hosts[0], Options{StopGrace: 300 * time.Millisecond}
	}
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	srv.ignoreSignals = true
	opt := testOptions(writeKnownHosts(t, srv))
	opt.StopGrace = 300 * time.Millisecond
	h := testHost(srv, key)
	inv := sshInventory()
	if _, err := Deploy(testCtx(t), inv, []inventory.Host{h}, opt); err != nil {
		t.Fatalf("deploy: %v", err)
	}
	stopServers[h.Name] = srv.home
	return inv, h, opt
}

var stopServers = map[string]string{}

// stopWorkdir is where the fixture's worker runs.
func stopWorkdir(t *testing.T, kind string, h inventory.Host) string {
	if kind == "local" {
		return localWorkdir(h)
	}
	return filepath.Join(stopServers[h.Name], strings.TrimPrefix(remoteWorkdir(h), "~/"))
}

// stopProcess sends SIGSTOP to pid and waits until it is stopped.
func stopProcess(t *testing.T, pid int) {
	t.Helper()
	syscall.Kill(pid, syscall.SIGSTOP)
	deadline := time.Now().Add(5 * time.Second)
	for st, _ := processState(pid); st != 'T' && st != 't'; st, _ = processState(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d not stopped (state %c)", pid, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLocalWorkdir checks where a local node works: under the XDG state
// directory unless the inventory names a work directory of its own.
func TestLocalWorkdir(t *testing.T) {
	home, state := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	tests := map[string]struct {
		workdir, xdg, want string
	}{
		"default":          {".gridtui", state, filepath.Join(state, "gridtui", "local", "alpha-1")},
		"unset":            {"", state, filepath.Join(state, "gridtui", "local", "alpha-1")},
		"no XDG":           {"", "", filepath.Join(home, ".local", "state", "gridtui", "local", "alpha-1")},
		"relative XDG":     {"", "state", filepath.Join(home, ".local", "state", "gridtui", "local", "alpha-1")},
		"inventory's own":  {"/scratch/w", state, "/scratch/w/local/alpha-1"},
		"relative to home": {"work", state, filepath.Join(home, "work", "local", "alpha-1")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", tc.xdg)
			if got := localWorkdir(inventory.Host{Name: "alpha-1", Workdir: tc.workdir}); got != tc.want {
				t.Errorf("localWorkdir = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestStartLeavesOwnedStoppedWorker checks that a stopped worker whose
// console is alive (a concurrent run's hung node) is not killed by the
// start of another worker of the same node.
func TestStartLeavesOwnedStoppedWorker(t *testing.T) {
	inv, h, opt := stopFixture(t, "local")
	ws, err := StartWorkers(testCtx(t), inv, []inventory.Host{h}, testBoot, opt)
	if err != nil {
		t.Fatal(err)
	}
	old := ws[0].Hello.PID
	stopProcess(t, old)
	t.Cleanup(func() { syscall.Kill(old, syscall.SIGKILL) })
	ws2, err := StartWorkers(testCtx(t), inv, []inventory.Host{h}, testBoot, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer ws2[0].Stop(testCtx(t))
	time.Sleep(200 * time.Millisecond)
	if !running(old) {
		t.Fatalf("the stopped worker %d of a live console was killed", old)
	}
}
