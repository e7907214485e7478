package uitest

import (
	"context"
	"flag"
	"fmt"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/ui/common"
)

func init() {
	// The ui package's tests get -update from x/exp/golden (teatest);
	// the pages' and widgets' tests from here.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
}

// Updating reports the -update flag: rewrite the golden files.
func Updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Sizes are the terminal sizes every page is checked at.
var Sizes = []struct{ W, H int }{{80, 24}, {160, 48}}

// Common returns the Common of a w×h terminal.
func Common(w, h int) *common.Common { return common.NewCommon(context.Background(), w, h, nil) }

// RequireGolden compares the ANSI-stripped rendering with
// testdata/<Test>/<case>.golden (rewritten with -update).
func RequireGolden(t *testing.T, got string) {
	t.Helper()
	got = Normalize(got)
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run go test with -update)", path, err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the rendering (run with -update if intended)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// Normalize strips ANSI and trailing blanks, keeping one line per row.
func Normalize(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// CheckSize asserts the rendering fits the body area exactly.
func CheckSize(t *testing.T, c *common.Common, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != c.BodyHeight() {
		t.Errorf("rendered %d lines, want the body height %d", len(lines), c.BodyHeight())
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > c.Width {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, w, c.Width, ansi.Strip(l))
		}
	}
}

// KeyPress is the key message of a key's name ("down", "ctrl+s", "t").
func KeyPress(k string) tea.KeyPressMsg {
	switch k {
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown", "pgdn":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	}
	if c, ok := strings.CutPrefix(k, "ctrl+"); ok && len(c) == 1 {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// T0 is the fixtures' clock: runs and events happen after it.
var T0 = time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)

// SampleApp is the application of the sample runs (Record, SampleResults,
// SampleReport): any application with a size n and a tolerance ε does; the
// views name none.
const SampleApp = "poisson"

// Record builds a run record of SampleApp (n = 48) as the engine stores it
// (test input).
func Record(i int, scheme jobs.Scheme, nodes int, wall float64, ok bool) jobs.RunRecord {
	r := jobs.RunRecord{
		Version: 1, ID: fmt.Sprintf("20261121T18%02d00Z-%06x", i, i), Time: T0.Add(time.Duration(i) * time.Minute),
		Job: jobs.RunConfig{Name: fmt.Sprintf("%s-n48-%s", SampleApp, scheme), App: SampleApp, N: 48, Eps: 1e-8,
			Scheme: scheme, Detector: jobs.DefaultDetector(scheme), Nodes: nodes, Cores: nodes, Grid: "alpha", Clusters: []string{"alpha"}},
		Machine:     jobs.Machine{Host: "console", OS: "linux", Arch: "amd64", Cores: 2},
		WallSeconds: wall, Outcome: jobs.OutcomeOK,
	}
	res := jobs.Float(3e-9)
	r.TrueResidual = &res
	for k := 0; k < nodes; k++ {
		r.Nodes = append(r.Nodes, jobs.NodeRecord{Name: fmt.Sprintf("alpha-%d", k+1), Cluster: "alpha", Rank: k, Cores: 1,
			Iterations: 2000 + 10*k, Sigma: 8e-9, ComputeSeconds: wall * 0.7, SendSeconds: wall * 0.1, WaitSeconds: wall * 0.2})
	}
	if !ok {
		r.Outcome, r.Reason, r.TrueResidual = jobs.OutcomeFailed, "node alpha-2: heartbeat lost", nil
	}
	return r
}

// SampleResults holds five runs of SampleApp (n = 48): sync
// on 1 and 4 nodes, async on 4 and 2, a failed hybrid on 4.
func SampleResults() *jobs.Results {
	return &jobs.Results{Path: "/data/gridtui/results.jsonl", Records: []jobs.RunRecord{
		Record(1, jobs.Synchronous, 1, 4.0, true),
		Record(2, jobs.Synchronous, 4, 1.5, true),
		Record(3, jobs.Asynchronous, 4, 1.1, true),
		Record(4, jobs.Hybrid, 4, 1.3, false),
		Record(5, jobs.Asynchronous, 2, 2.2, true),
	}}
}

// BigInventory is a two-site inventory of n local hosts in clusters of 64.
func BigInventory(n int) *inventory.Inventory {
	inv := &inventory.Inventory{Source: "test-1024", Locality: probe.Locality{Rule: probe.RuleOctet}}
	for s := 0; s < 2; s++ {
		site := inventory.Site{Name: fmt.Sprintf("site%d", s+1), Launcher: inventory.LauncherLocal}
		for c := 0; c < n/128; c++ {
			cl := inventory.Cluster{Name: fmt.Sprintf("c%d", s*8+c), Cores: 2}
			for h := 0; h < 64; h++ {
				third := 10 + s*8 + c
				cl.Hosts = append(cl.Hosts, inventory.Host{
					Name: fmt.Sprintf("%s-%d", cl.Name, h+1), Site: site.Name, Cluster: cl.Name, Cores: 2,
					EthernetAddr: netip.AddrFrom4([4]byte{127, 16, byte(third), byte(10 + h)}),
					FastAddr:     netip.AddrFrom4([4]byte{127, 18, byte(third), byte(10 + h)}),
				})
			}
			site.Clusters = append(site.Clusters, cl)
		}
		inv.Sites = append(inv.Sites, site)
	}
	return inv
}

// FakeRun builds the snapshots of a run of n nodes over steps ticks: σ
// decays geometrically, nodes terminate from the last step on, traffic
// grows per network (intra-cluster pairs on infiniband, the rest ethernet).
// It is test input for the views, not product data.
func FakeRun(n, steps int, failAt int) []engine.Snapshot {
	out := make([]engine.Snapshot, steps)
	for s := 0; s < steps; s++ {
		el := time.Duration(s+1) * 250 * time.Millisecond
		snap := engine.Snapshot{At: T0.Add(el), Elapsed: el, Gain: 0.9 + 0.1*float64(s)}
		snap.Nodes = make([]engine.NodeStatus, n)
		for i := range snap.Nodes {
			st := engine.StateActive
			switch {
			case s == steps-1:
				st = engine.StateTerminated
			case (i+s)%5 == 0:
				st = engine.StateInactive
			}
			if failAt >= 0 && i == failAt && s >= steps/2 {
				st = engine.StateFailed
			}
			sigma := 1e-2 * math.Pow(10, -float64(s)*0.7) * (1 + float64(i%7)/10)
			it := (s + 1) * (100 + i%13)
			snap.Nodes[i] = engine.NodeStatus{
				Node: fmt.Sprintf("node-%d", i+1), Rank: i, Group: i / 32, State: st,
				Iteration: it, Sigma: sigma,
				Traffic: []engine.NetTraffic{
					{Network: "infiniband", Messages: uint64(2 * it), Bytes: uint64(2 * it * 48 * 48 * 8)},
					{Network: "ethernet", Messages: uint64(it / 4), Bytes: uint64(it / 4 * 48 * 48 * 8), Skipped: uint64(it / 40)},
				},
			}
			if st == engine.StateFailed {
				snap.Nodes[i].Err = "heartbeat lost"
			}
			snap.GlobalSigma = math.Max(snap.GlobalSigma, sigma)
		}
		out[s] = snap
	}
	return out
}

// SampleReport is a run report of SampleApp as engine.Report.WriteText
// prints it.
const SampleReport = `run poisson-n48-async: poisson, eps = 1e-08, n = 48, async iterations (activity detector), 4 nodes
outcome:   ok
wall time: 1.512s
rank  node     group  part                        cores  state       iterations  local σ  compute  send   wait   peak RSS
0     alpha-1  0*     box [0,24)×[0,24)×[0,48)    1      terminated  2310        9.1e-09  1.1s     200ms  100ms  -
1     alpha-2  0      box [0,24)×[24,48)×[0,48)   1      terminated  2254        8.7e-09  1.1s     200ms  100ms  -
2     alpha-3  0      box [24,48)×[0,24)×[0,48)   1      terminated  2298        9.5e-09  1s       200ms  100ms  -
3     alpha-4  0      box [24,48)×[24,48)×[0,48)  1      terminated  2201        7.9e-09  1.1s     200ms  100ms  -
(* coordinator)
true global residual: 8.100e-09 (ε = 1e-08)
max error against the exact solution: 0.00032
sum of u: 10382.117346311542
application check: OK
traffic:  infiniband 4852 msgs 49.4 MiB (2103 skipped)
computing gain: C_g = t1/ts = 4s / 1.512s = 2.65
`

// StoppedReport is the report's nodes of a run stopped at snapshot s, by
// the engine's rule (engine/report.go): a node not terminated or failed is
// aborted, with its last iterations and σ.
func StoppedReport(s engine.Snapshot) []engine.NodeReport {
	out := make([]engine.NodeReport, len(s.Nodes))
	for i, n := range s.Nodes {
		out[i] = engine.NodeReport{Node: n.Node, Rank: n.Rank, Group: n.Group, State: n.State,
			Iterations: n.Iteration, Sigma: n.Sigma, Traffic: n.Traffic, Err: n.Err}
		if n.State != engine.StateTerminated && n.State != engine.StateFailed {
			out[i].State = engine.StateAborted
		}
	}
	return out
}

// AbortLike has the shape of engine.Run's error for a run whose context
// ended (engine/errors.go, abortError): it names the run and wraps
// engine.ErrRunAborted, engine.ErrRunFailed and the context's error. The
// engine's type is unexported; TestConsoleAbort meets the real one.
type AbortLike struct {
	Run    string
	CtxErr error
}

func (e AbortLike) Error() string {
	return "engine: run " + e.Run + " aborted: interrupted: " + e.CtxErr.Error()
}

func (e AbortLike) Unwrap() []error {
	return []error{engine.ErrRunAborted, engine.ErrRunFailed, e.CtxErr}
}

// TracedRun is a completed run of application app (the one under test)
// with size n on the embedded grid with its traces (test input for the predictor): nodes of
// the clusters given, one core each, equal sweep times and link volumes
// (the constants below); an asynchronous run received one update per two
// sweeps.
func TracedRun(app, id string, scheme jobs.Scheme, iters, size int, clusters ...string) jobs.RunRecord {
	r := jobs.RunRecord{ID: id, Time: time.Date(2026, 11, 23, 12, len(id), 0, 0, time.UTC), Outcome: jobs.OutcomeOK,
		WallSeconds: 0.0015 * float64(iters), Machine: jobs.Machine{Cores: 2},
		Job: jobs.RunConfig{App: app, N: size, Eps: 1e-8, Scheme: scheme, Nodes: len(clusters), Cores: len(clusters),
			Grid: jobs.GridLabel(clusters), Clusters: clusters, Inventory: jobs.InventoryEmbedded}}
	n := len(clusters)
	for rank, cl := range clusters {
		tr := &jobs.NodeTrace{Points: size * size * size / n}
		for range iters {
			tr.Sweeps.Add(time.Millisecond)
		}
		received, async := uint64(iters), false
		if scheme == jobs.Asynchronous || (scheme == jobs.Hybrid && n > 1 && clusters[0] != clusters[n-1]) {
			received, async = uint64(iters/2), true
		}
		for _, peer := range []int{rank - 1, rank + 1} {
			if peer < 0 || peer >= n {
				continue
			}
			net := "infiniband"
			if clusters[peer] != cl {
				net = "ethernet"
			}
			tr.Links = append(tr.Links, jobs.LinkTrace{Peer: peer, Network: net, Async: async, Sent: uint64(iters),
				Received: received, BytesSent: uint64(4096 * iters), BytesReceived: uint64(4096 * iters)})
		}
		r.Nodes = append(r.Nodes, jobs.NodeRecord{Name: fmt.Sprintf("%s-%d", cl, rank+1), Cluster: cl, Rank: rank, Cores: 1,
			Iterations: iters, ComputeSeconds: 0.001 * float64(iters), SendSeconds: 0.0001 * float64(iters),
			WaitSeconds: 0.0002 * float64(iters), Trace: tr})
	}
	return r
}

// TracedStore holds traced runs of application app with size n (the
// default job's are jobs.DefaultSpec's): synchronous on 1 and 2 nodes,
// asynchronous and hybrid on 2.
func TracedStore(app string, n int) *jobs.Results {
	return &jobs.Results{Path: "results.jsonl", Records: []jobs.RunRecord{
		TracedRun(app, "sync1", jobs.Synchronous, 400, n, "alpha"),
		TracedRun(app, "sync2", jobs.Synchronous, 400, n, "alpha", "alpha"),
		TracedRun(app, "async2", jobs.Asynchronous, 560, n, "alpha", "alpha"),
		TracedRun(app, "hybrid2", jobs.Hybrid, 480, n, "alpha", "beta"),
	}}
}
