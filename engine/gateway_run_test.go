package engine

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/obstacle"
	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunThroughGateways runs a synchronous job across two local sites
// whose pairs are made to link through the sites' gateways (gateway
// processes of their own, on loopback): the result is the serial iterate bit
// for bit, the
// report says which pair went through which gateways, and the gateways
// counted the halos they carried (and no control message: the tokens ride
// in the halos).
func TestRunThroughGateways(t *testing.T) {
	gatewayFirst = true
	t.Cleanup(func() { gatewayFirst = false })
	inv := loadInventory(t, "../testdata/sites/local_gateways.toml")
	const n, nodes = 12, 4
	p := obstacle.Problem{N: n, Eps: 1e-7}
	spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": strconv.Itoa(n), "eps": strconv.FormatFloat(p.Eps, 'g', -1, 64)}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Any: nodes}, Cores: 1}
	rep := runJob(t, inv, spec, RunOptions{NoRecord: true, StoreDir: t.TempDir()})
	_, k, _ := obstacle.SerialSolve(p)
	ref := serialAfter(p, k+2*(nodes-1))
	for i := range ref {
		if math.Float64bits(rep.Solution[i]) != math.Float64bits(ref[i]) {
			t.Fatalf("point %d: %v, serial %v", i, rep.Solution[i], ref[i])
		}
	}
	via := 0
	for _, r := range rep.Routes {
		if r.Via != "" {
			via++
			if r.Via != "gateway gw-west ↔ gw-east" || !strings.Contains(r.Reason, "sites west and east") {
				t.Errorf("route %s ↔ %s: via %q, reason %q", r.A, r.B, r.Via, r.Reason)
			}
		}
	}
	if via != 1 {
		t.Errorf("%d routes through the gateways, want the one pair across the sites: %+v", via, rep.Routes)
	}
	if len(rep.Gateways) != 2 {
		t.Fatalf("gateway links in the report: %+v", rep.Gateways)
	}
	for _, g := range rep.Gateways {
		// A synchronous run's convergence tokens ride in its halos: one DATA
		// message per iteration and link, and no CTRL but the dialer's first
		// message, which names the network it kept.
		if g.DataMessages == 0 || g.CtrlMessages > 1 {
			t.Errorf("gateway %s → %s carried %d DATA and %d CTRL messages, want some DATA and at most 1 CTRL", g.Name, g.Peer, g.DataMessages, g.CtrlMessages)
		}
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "via gateway gw-west ↔ gw-east") || !strings.Contains(s, "gateway gw-east → gw-west:") {
		t.Errorf("the text report does not show the gateways:\n%s", s)
	}
}

func TestGatewayFallback(t *testing.T) {
	base := loadInventory(t, "../testdata/sites/local_gateways.toml")
	noAddr := *base
	noAddr.Sites = slices.Clone(base.Sites)
	for i := range noAddr.Sites {
		noAddr.Sites[i].Gateways = []inventory.Gateway{{Host: base.Sites[i].Gateways[0].Host, Ports: []int{47400}}}
	}
	noGateway := *base
	noGateway.Sites = slices.Clone(base.Sites)
	noGateway.Sites[1].Gateways = nil
	tests := map[string]struct {
		inv  *inventory.Inventory
		a, b string
		want string
	}{
		"same site":         {base, "alpha-1", "alpha-2", ""},
		"two sites":         {base, "alpha-2", "beta-1", "via gateway gw-west ↔ gw-east"},
		"no address":        {&noAddr, "alpha-2", "beta-1", "via SSH tunnel gw-west ↔ gw-east"},
		"one site has none": {&noGateway, "alpha-2", "beta-1", ""},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := GatewayFallback(tt.inv, tt.a, tt.b); got != tt.want {
				t.Errorf("GatewayFallback(%s, %s) = %q, want %q", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

// TestRunThroughGatewaysAsync runs the asynchronous and hybrid schemes
// across the two local sites through their gateways (the cross-site link
// asynchronous in both): the run converges, its true residual checked by
// runJob, and the gateways carried its halos.
func TestRunThroughGatewaysAsync(t *testing.T) {
	gatewayFirst = true
	t.Cleanup(func() { gatewayFirst = false })
	inv := loadInventory(t, "../testdata/sites/local_gateways.toml")
	for _, scheme := range []jobs.Scheme{jobs.Asynchronous, jobs.Hybrid} {
		t.Run(string(scheme), func(t *testing.T) {
			spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": "12", "eps": "1e-7"}, Scheme: scheme,
				Nodes: jobs.NodeSelection{Any: 4}, Cores: 1}
			rep := runJob(t, inv, spec, RunOptions{})
			var data uint64
			for _, g := range rep.Gateways {
				data += g.DataMessages
			}
			if len(rep.Gateways) != 2 || data == 0 {
				t.Errorf("gateway links in the report: %+v", rep.Gateways)
			}
		})
	}
}

// TestGatewayStopped stops (SIGSTOP) a site's gateway in the middle of a
// synchronous run across two local sites: nothing exits, the links through
// it stall, and the workers that lose them are the first to complain. The
// run must fail naming the gateway, not those workers, within the
// heartbeat bound, and leave no process behind.
func TestGatewayStopped(t *testing.T) {
	gatewayFirst = true
	t.Cleanup(func() { gatewayFirst = false })
	inv := loadInventory(t, "../testdata/sites/local_gateways.toml")
	spec := jobs.Spec{App: "obstacle", Params: longObstacle, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Any: 4}, Cores: 1, MaxIter: 1 << 30, WallTime: 2 * time.Minute,
		Resilience: jobs.Resilience{CheckpointEvery: -1}} // without checkpoints: a lost gateway fails the run
	opt := RunOptions{Inventory: inv, StoreDir: t.TempDir(), NoRecord: true, Deploy: deploy.Options{StopTimeout: 30 * time.Second}}
	var (
		mu       sync.Mutex
		stopped  time.Time
		gateway  int
		detected time.Time
	)
	opt.OnSnapshot = func(s Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		if !stopped.IsZero() {
			return
		}
		for _, st := range s.Nodes {
			// Stopped while the run is live, not on its last snapshot.
			if st.Iteration < 20 || st.State == solve.StateTerminated {
				return
			}
		}
		if gateway = childGateway(t, "gw-east"); gateway > 0 {
			stopped = time.Now()
			syscall.Kill(gateway, syscall.SIGSTOP)
		}
	}
	opt.OnLog = func(ev solve.LogEvent) {
		mu.Lock()
		defer mu.Unlock()
		if strings.HasPrefix(ev.Text, "FAILED") && detected.IsZero() {
			detected = time.Now()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, spec, opt)
	returned := time.Now()
	if !errors.Is(err, ErrRunFailed) || rep == nil {
		t.Fatalf("error %v, want ErrRunFailed", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if gateway == 0 {
		t.Fatal("no gateway process gw-east found")
	}
	if rep.FailedNode != "gw-east" || !strings.Contains(rep.Cause, "beta-1") || !containsAny(rep.Cause, "silent|printed nothing") {
		t.Errorf("the report names %q (%s), want gateway gw-east on beta-1, silent", rep.FailedNode, rep.Cause)
	}
	lag := detected.Sub(stopped)
	t.Logf("named %v after the stop, report %v later: %s", lag.Round(time.Millisecond), returned.Sub(detected).Round(time.Millisecond), rep.Cause)
	if detected.IsZero() || lag > hangLimit {
		t.Errorf("the stopped gateway was named %v after the stop, want at most %v", lag, hangLimit)
	}
	if d := returned.Sub(detected); d > reportBound() {
		t.Errorf("report returned %v after the detection, want at most %v", d, reportBound())
	}
	assertGone(t, []int{gateway})
}

// childGateway returns the pid of this process's child running `gateway`
// for the node named name (its boot names it on stdin, so it is found by
// its pid file's name in its working directory), 0 if none.
func childGateway(t *testing.T, name string) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command (which is in parentheses) begin with
		// the state and the parent's pid.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		cwd, _ := os.Readlink("/proc/" + e.Name() + "/cwd")
		if _, err := os.Stat(filepath.Join(cwd, "worker-"+name+".pid")); err == nil && bytes.Contains(cmdline, []byte("\x00gateway")) {
			return pid
		}
	}
	return 0
}
