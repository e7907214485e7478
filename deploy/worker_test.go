package deploy

import (
	"debug/elf"
	enc "encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
	"github.com/gridtui/gridtui/owner"
)

// localInventory is a local site with the given node names; work directories
// go under a temporary directory.
func localInventory(t *testing.T, names ...string) (*inventory.Inventory, []inventory.Host) {
	t.Helper()
	wd := t.TempDir()
	var hosts []inventory.Host
	for _, n := range names {
		hosts = append(hosts, inventory.Host{Name: n, Site: "local", Cluster: "alpha", Cores: 1, Workdir: wd})
	}
	inv := &inventory.Inventory{Sites: []inventory.Site{{Name: "local", Launcher: inventory.LauncherLocal,
		Clusters: []inventory.Cluster{{Name: "alpha", Hosts: hosts}}}}}
	return inv, hosts
}

func TestLocalWorkersStartAndStop(t *testing.T) {
	inv, hosts := localInventory(t, "alpha-1", "alpha-2")
	opt := Options{HelloTimeout: 30 * time.Second}
	var log eventLog
	opt.Events = log.add
	s, err := Deploy(testCtx(t), inv, hosts, opt)
	if err != nil || s.Results[0].Phase != PhaseReady {
		t.Fatalf("deploy to local hosts: %+v, %v", s, err)
	}
	ws, err := StartWorkers(testCtx(t), inv, hosts, testBoot, opt)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	for i, w := range ws {
		if w.Hello.Node != "n-"+hosts[i].Name || !alive(w.Hello.PID) {
			t.Fatalf("worker %d hello %+v (alive %v)", i, w.Hello, alive(w.Hello.PID))
		}
		if _, err := os.Stat(filepath.Join(localWorkdir(hosts[i]), pidFile(w.Hello.Node))); err != nil {
			t.Fatalf("pid file of %s: %v", w.Hello.Node, err)
		}
	}
	for _, w := range ws {
		if err := w.Stop(testCtx(t)); err != nil || w.Err() != nil {
			t.Fatalf("stop %s: %v / %v", w.Hello.Node, err, w.Err())
		}
		waitGone(t, w.Hello.PID)
		if _, err := os.Stat(filepath.Join(localWorkdir(w.Host), pidFile(w.Hello.Node))); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("pid file of %s left after stop (%v)", w.Hello.Node, err)
		}
	}
	if got := log.phases("alpha-1"); !equalPhases(got, []Phase{PhaseReady, PhaseStart, PhaseReady, PhaseStopped}) {
		t.Fatalf("phases of alpha-1: %v", got)
	}
}

func TestStartWorkersFailureStopsTheOthers(t *testing.T) {
	tests := []struct {
		name  string
		bad   string
		want  string
		hello time.Duration
	}{
		{name: "worker crashes", bad: "crash-1", want: "crashing as asked", hello: 60 * time.Second},
		{name: "worker never says hello", bad: "mute-1", want: "no hello", hello: 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv, hosts := localInventory(t, "good-1", tc.bad)
			opt := Options{HelloTimeout: tc.hello}
			boot := func(h inventory.Host) Boot { b := testBoot(h); b.Node = h.Name; return b }
			ws, err := StartWorkers(testCtx(t), inv, hosts, boot, opt)
			if err == nil || ws != nil {
				t.Fatalf("StartWorkers succeeded with a bad worker")
			}
			if !errors.Is(err, ErrHostsFailed) || !strings.Contains(err.Error(), tc.bad) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a failure of %s mentioning %q", err, tc.bad, tc.want)
			}
			// Nothing left running: no pid files (removed when each worker exited).
			for _, h := range hosts {
				files, _ := filepath.Glob(filepath.Join(localWorkdir(h), "worker-*.pid"))
				if len(files) != 0 {
					t.Fatalf("pid files left for %s: %v", h.Name, files)
				}
			}
		})
	}
}

func TestStopAndCleanRemote(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	opt := testOptions(writeKnownHosts(t, srv))
	h := testHost(srv, key)
	inv := sshInventory()
	if _, err := Deploy(testCtx(t), inv, []inventory.Host{h}, opt); err != nil {
		t.Fatalf("deploy: %v", err)
	}
	pool, err := sshclient.NewPool(inv, opt.SSH())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	run := opt
	run.Pool = pool
	ws, err := StartWorkers(testCtx(t), inv, []inventory.Host{h}, testBoot, run)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	// Another process (a second pool) stops it: `gridtui deploy --stop`.
	s, err := Stop(testCtx(t), inv, []inventory.Host{h}, opt)
	if err != nil || s.Results[0].Detail != "1 worker(s) stopped" {
		t.Fatalf("stop: %+v, %v", s.Results, err)
	}
	waitGone(t, ws[0].Hello.PID)
	<-ws[0].Done()

	s, err = Clean(testCtx(t), inv, []inventory.Host{h}, opt)
	if err != nil || !strings.Contains(s.Results[0].Detail, "removed") {
		t.Fatalf("clean: %+v, %v", s.Results, err)
	}
	if _, err := os.Stat(filepath.Join(srv.home, "work")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("work directory still there after clean (%v)", err)
	}
	if _, err := os.Stat(srv.home); err != nil {
		t.Fatalf("clean removed the home directory: %v", err)
	}
}

func TestCleanRefusesHomeDirectory(t *testing.T) {
	for _, wd := range []string{"~", ".", "/", "..", "../x"} {
		h := inventory.Host{Name: "h", Workdir: wd}
		if err := checkWorkdir(h, remoteWorkdir(h)); err == nil {
			t.Errorf("workdir %q accepted", wd)
		}
	}
	for _, wd := range []string{"", "~/.gridtui", "work", "/scratch/gridtui"} {
		h := inventory.Host{Name: "h", Workdir: wd}
		if err := checkWorkdir(h, remoteWorkdir(h)); err != nil {
			t.Errorf("workdir %q refused: %v", wd, err)
		}
	}
}

func TestLocalStopKillsTheProcessGroup(t *testing.T) {
	inv, hosts := localInventory(t, "parent-1")
	boot := func(h inventory.Host) Boot { b := testBoot(h); b.Node = h.Name; return b }
	ws, err := StartWorkers(testCtx(t), inv, hosts, boot, Options{})
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimPrefix(ws[0].Hello.Host, "child="))
	if err != nil || !alive(child) {
		t.Fatalf("no child process from hello %+v", ws[0].Hello)
	}
	if err := ws[0].Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ws[0].Hello.PID)
	waitGoneOrZombie(t, child)
}

// waitGoneOrZombie waits until pid is gone or a zombie (the orphaned child
// is reaped by init, which may take a moment).
func waitGoneOrZombie(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) {
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d still running after Stop", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestNoMatchingBinary(t *testing.T) {
	exe, _ := os.Executable()
	tests := []struct {
		name     string
		override string
		goarch   string
		want     string
	}{
		{name: "no cross-built binary", goarch: "riscv64", want: "make dist"},
		{name: "override built for another machine", override: exe, goarch: "riscv64", want: "ELF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBinaries(Options{Binary: tc.override, Dist: t.TempDir()})
			_, err := b.forTarget("linux", tc.goarch)
			if !errors.Is(err, ErrNoBinary) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "linux/riscv64") {
				t.Fatalf("err = %v, want ErrNoBinary naming linux/riscv64 and %q", err, tc.want)
			}
		})
	}
	if bin, err := newBinaries(Options{}).forTarget(runtime.GOOS, runtime.GOARCH); err != nil || bin.path != exe || len(bin.sum) != 64 {
		t.Fatalf("running binary for its own platform: %+v, %v", bin, err)
	}
}

// fakeELF writes a minimal 64-bit little-endian ELF header for machine m.
func fakeELF(t *testing.T, p string, m elf.Machine) {
	t.Helper()
	h := make([]byte, 64)
	copy(h, "\x7fELF")
	h[4], h[5], h[6] = 2, 1, 1 // 64-bit, little-endian, version 1
	enc.LittleEndian.PutUint16(h[16:], uint16(elf.ET_EXEC))
	enc.LittleEndian.PutUint16(h[18:], uint16(m))
	enc.LittleEndian.PutUint32(h[20:], 1)
	enc.LittleEndian.PutUint16(h[52:], 64) // header size
	if err := os.WriteFile(p, h, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestCrossBuiltBinaryFromDist(t *testing.T) {
	dist := t.TempDir()
	p := filepath.Join(dist, "gridtui-linux-arm64")
	fakeELF(t, p, elf.EM_AARCH64)
	b := newBinaries(Options{Dist: dist})
	if bin, err := b.forTarget("linux", "arm64"); err != nil || bin.path != p {
		t.Fatalf("arm64 host: %+v, %v; want %s", bin, err, p)
	}
	fakeELF(t, p, elf.EM_X86_64) // a mislabelled file in dist
	b = newBinaries(Options{Dist: dist})
	if _, err := b.forTarget("linux", "arm64"); !errors.Is(err, ErrNoBinary) {
		t.Fatalf("x86-64 binary named arm64: err = %v, want ErrNoBinary", err)
	}
}

func TestStartWorkersRefusesInvalidBoot(t *testing.T) {
	inv, hosts := localInventory(t, "alpha-1")
	boot := func(h inventory.Host) Boot { b := testBoot(h); b.Secret = []byte("short"); return b }
	ws, err := StartWorkers(testCtx(t), inv, hosts, boot, Options{})
	if ws != nil || !errors.Is(err, ErrBadBoot) || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("err = %v, want ErrBadBoot about the secret", err)
	}
}

// A host whose uname says aarch64 gets dist/gridtui-linux-arm64, not the
// running (x86-64) binary.
func TestDeployShipsCrossBuiltBinary(t *testing.T) {
	if runtime.GOARCH == "arm64" {
		t.Skip("the running binary already is arm64")
	}
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "uname"), []byte("#!/bin/sh\necho Linux aarch64\n"), 0o755)
	srv.env = []string{"PATH=" + bin + ":" + os.Getenv("PATH")}
	dist := t.TempDir()
	fakeELF(t, filepath.Join(dist, "gridtui-linux-arm64"), elf.EM_AARCH64)
	opt := testOptions(writeKnownHosts(t, srv))
	opt.Dist = dist
	if _, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{testHost(srv, key)}, opt); err != nil {
		t.Fatalf("deploy to an arm64 host: %v", err)
	}
	if got, want := fileSum(t, filepath.Join(srv.home, "work", binaryName)), fileSum(t, filepath.Join(dist, "gridtui-linux-arm64")); got != want {
		t.Fatal("the arm64 host did not get dist/gridtui-linux-arm64")
	}
	os.Remove(filepath.Join(dist, "gridtui-linux-arm64"))
	s, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{testHost(srv, key)}, opt)
	if !errors.Is(err, ErrNoBinary) || !strings.Contains(s.Results[0].Err.Error(), "make dist") {
		t.Fatalf("no arm64 binary: err = %v, want ErrNoBinary saying make dist", err)
	}
}

// `gridtui deploy --stop` from another process stops local workers through
// their pid files; --clean removes their work directories.
func TestStopAndCleanLocal(t *testing.T) {
	inv, hosts := localInventory(t, "alpha-1", "alpha-2")
	ws, err := StartWorkers(testCtx(t), inv, hosts, testBoot, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Stop(testCtx(t), inv, hosts, Options{})
	if err != nil || s.Results[0].Detail != "1 worker(s) stopped" || s.Results[1].Detail != "1 worker(s) stopped" {
		t.Fatalf("stop: %+v, %v", s.Results, err)
	}
	for _, w := range ws {
		waitGone(t, w.Hello.PID)
		<-w.Done()
	}
	if _, err := Clean(testCtx(t), inv, hosts, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if _, err := os.Stat(localWorkdir(h)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("work directory of %s left after clean (%v)", h.Name, err)
		}
	}
}

// The stripped worker (make dist) is preferred for another platform;
// for the running one only when it provably comes from the same revision,
// which a test binary (no VCS stamp) cannot show: never a stale worker.
func TestLeanWorkerFromDist(t *testing.T) {
	dist := t.TempDir()
	fakeELF(t, filepath.Join(dist, "gridtui-linux-arm64"), elf.EM_AARCH64)
	lean := filepath.Join(dist, "gridtui-worker-linux-arm64")
	fakeELF(t, lean, elf.EM_AARCH64)
	if bin, err := newBinaries(Options{Dist: dist}).forTarget("linux", "arm64"); err != nil || bin.path != lean {
		t.Fatalf("arm64 host: %+v, %v; want the lean worker %s", bin, err, lean)
	}
	own := filepath.Join(dist, leanWorker(runtime.GOOS, runtime.GOARCH))
	if err := os.WriteFile(own, []byte("stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if bin, err := newBinaries(Options{Dist: dist}).forTarget(runtime.GOOS, runtime.GOARCH); err != nil || bin.path != exe {
		t.Fatalf("own platform with an unprovable lean worker: %+v, %v; want the running binary", bin, err)
	}
}

// A dist binary of another program is never shipped in place of the running
// one: a user's binary with its own applications would otherwise deploy
// workers that do not know them. The go command stands for the other
// program (a real Go binary with build information).
func TestDistOfAnotherProgram(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to stand for another program")
	}
	other, err := os.ReadFile(goCmd)
	if err != nil {
		t.Skip(err)
	}
	dist := t.TempDir()
	if err := os.WriteFile(filepath.Join(dist, "gridtui-linux-arm64"), other, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = newBinaries(Options{Dist: dist}).forTarget("linux", "arm64")
	if !errors.Is(err, ErrNoBinary) || !strings.Contains(err.Error(), "is a build of cmd/go") || !strings.Contains(err.Error(), "--binary") {
		t.Fatalf("forTarget: %v, want ErrNoBinary naming the other program and --binary", err)
	}
}

// A host's owner policy travels in the worker's boot (its windows as
// written), and the owner lines the worker prints after its hello are
// events of PhaseOwner with the decision's reason; stopping the worker
// still ends it at once.
func TestWorkerOwnerLines(t *testing.T) {
	inv, hosts := localInventory(t, "owned-1")
	p := owner.Default()
	w, err := owner.ParseWindow("Mon-Sun 00:00-24:00")
	if err != nil {
		t.Fatal(err)
	}
	p.OwnerHours = []owner.Window{w}
	hosts[0].Owner = &p
	inv.Sites[0].Clusters[0].Hosts = hosts
	decided := make(chan string, 4)
	opt := Options{HelloTimeout: 30 * time.Second, StopTimeout: 20 * time.Second, Events: func(e Event) {
		if e.Phase == PhaseOwner {
			decided <- e.Detail
		}
	}}
	id, secret := NewRunSecret()
	ws, err := StartWorkers(testCtx(t), inv, hosts, BootFor(id, secret), opt)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-decided:
		// The test worker (TestMain) answers with the first window of the
		// policy it was booted with.
		if d != "wait: owner hours Mon-Sun 00:00-24:00" {
			t.Errorf("decision %q, want wait for the owner hours", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no owner decision")
	}
	start := time.Now()
	if err := ws[0].Stop(testCtx(t)); err != nil || ws[0].Err() != nil {
		t.Fatalf("stop: %v / %v", err, ws[0].Err())
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("stopping an owned worker took %v", took)
	}
}
