package run

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/apps/gridapp"
	_ "github.com/gridtui/gridtui/apps/obstacle" // the default job's application
	_ "github.com/gridtui/gridtui/apps/poisson"  // an application with a layout parameter
	_ "github.com/gridtui/gridtui/apps/sparse"   // an application whose problem is a file
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/internal/uitest"
)

// poissonSpec is a Poisson job on two nodes in 2×1×1 blocks, as Compose
// makes it (with the jobs package's defaults).
func poissonSpec(name string) jobs.Spec {
	s := jobs.DefaultSpec()
	s.Name, s.App, s.Scheme = name, "poisson", jobs.Synchronous
	s.Params = map[string]string{"n": "48", "eps": "1e-8", "blocks": "2x1x1"}
	return s.WithDefaults()
}

// poissonReport is the engine's report of a finished Poisson run whose
// nodes ended as the last snapshot says, printed by engine.Report.WriteText.
func poissonReport(t *testing.T, spec jobs.Spec, last engine.Snapshot) (engine.Report, string) {
	t.Helper()
	rep := engine.Report{Spec: spec, Wall: 1512 * time.Millisecond, Outcome: "ok", Checked: true, Residual: 8.1e-9,
		Eps: 1e-8, FiguresOK: true, T1: 2900 * time.Millisecond, Gain: 1.92,
		Figures: []gridapp.Figure{{Name: "max error against the exact solution", Value: 3.2e-4}}}
	for i, n := range last.Nodes {
		rep.Nodes = append(rep.Nodes, engine.NodeReport{Node: n.Node, Rank: n.Rank, Group: n.Group, Coordinator: i == 0,
			Cores: 1, State: n.State, Iterations: n.Iteration, Sigma: n.Sigma, Traffic: n.Traffic,
			Compute: 1100 * time.Millisecond, Send: 200 * time.Millisecond, Wait: 100 * time.Millisecond})
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return rep, b.String()
}

// poissonLogs are the events of a two-node Poisson run.
var poissonLogs = []engine.LogEvent{
	{At: uitest.T0.Add(100 * time.Millisecond), Text: "pre-flight ok: 1 pair"},
	{At: uitest.T0.Add(1400 * time.Millisecond), Node: "node-1", Text: "termination detected"},
}

// TestRunViewPoisson: the Run view's header names the application of a
// Poisson run, in compact form (its size and the parameters set away from
// their defaults) when it fits and by name alone when not; a job named after
// its application (Compose's automatic name) is not named twice.
func TestRunViewPoisson(t *testing.T) {
	cases := []struct {
		name  string
		job   string
		setup func(t *testing.T, v *Model, spec jobs.Spec)
	}{
		{name: "live", job: "poisson", setup: func(t *testing.T, v *Model, spec jobs.Spec) {
			v.Start(spec)
			for _, s := range uitest.FakeRun(2, 5, -1)[:4] {
				v.ApplySnapshot(s)
			}
			v.AppendLog(poissonLogs[:1]...)
		}},
		{name: "finished", job: "cube-48", setup: func(t *testing.T, v *Model, spec jobs.Spec) {
			v.Start(spec)
			snaps := uitest.FakeRun(2, 6, -1)
			for _, s := range snaps {
				v.ApplySnapshot(s)
			}
			v.AppendLog(poissonLogs...)
			rep, text := poissonReport(t, spec, snaps[len(snaps)-1])
			v.ApplyReport(rep.Nodes, rep.Gain)
			v.Finish(text, nil)
		}},
	}
	for _, tc := range cases {
		for _, sz := range uitest.Sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.W, sz.H), func(t *testing.T) {
				c := uitest.Common(sz.W, sz.H)
				v := New(c)
				tc.setup(t, &v, poissonSpec(tc.job))
				out := v.View()
				uitest.CheckSize(t, c, out)
				uitest.RequireGolden(t, out)
				head := strings.SplitN(ansi.Strip(out), "\n", 2)[0]
				want := "Run " + tc.job + " · poisson"
				switch {
				case tc.job == "poisson" && sz.W >= 120:
					want = "Run poisson n=48 blocks=2x1x1 · "
				case tc.job == "poisson":
					want = "Run poisson · "
				case sz.W >= 120:
					want += " n=48 blocks=2x1x1 · "
				default:
					want += " · "
				}
				if !strings.HasPrefix(head, want) {
					t.Errorf("header %q, want it to begin %q", head, want)
				}
			})
		}
	}
}

// TestRunAppSummary: the header's compact form of an application is its
// size and the parameters set away from their defaults, never the
// tolerance, a path by its last element; an application not registered
// is named alone.
func TestRunAppSummary(t *testing.T) {
	withApp := func(app string, params map[string]string) jobs.Spec {
		s := jobs.DefaultSpec()
		s.App, s.Params = app, params
		return s.WithDefaults()
	}
	cases := []struct {
		spec          jobs.Spec
		name, compact string
	}{
		{jobs.DefaultSpec().WithDefaults(), "obstacle", "obstacle n=48"},
		{withApp("poisson", nil), "poisson", "poisson n=32"},
		{withApp("poisson", map[string]string{"n": "48", "eps": "1e-6", "blocks": "2x1x1"}), "poisson", "poisson n=48 blocks=2x1x1"},
		{withApp("sparse", map[string]string{"matrix": "/data/sets/bcsstk01.mtx", "force": "true"}), "sparse", "sparse matrix=bcsstk01.mtx force=true"},
		{withApp("nosuch", nil), "nosuch", "nosuch"},
	}
	for _, tc := range cases {
		v := New(uitest.Common(80, 24))
		v.Start(tc.spec)
		if name, compact := v.appSummary(); name != tc.name || compact != tc.compact {
			t.Errorf("%s %v: %q, %q; want %q, %q", tc.spec.App, tc.spec.Params, name, compact, tc.name, tc.compact)
		}
	}
}
