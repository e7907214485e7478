package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/internal/columns"
	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

type predictFlags struct {
	runFlags
	dataDir   string
	nets      []string
	maxTraced int
	shared    int
}

func newPredictCmd(g *globalFlags) *cobra.Command {
	f := &predictFlags{}
	cmd := &cobra.Command{
		Use:   "predict",
		Short: "Predict a job's time to solution, iterations and gain before running it",
		Long: "predict reads the traces that earlier runs of the same problem left in the results store\n" +
			"and replays the job on the platform (dPerf): time to solution, iterations per node, idle\n" +
			"time and computing gain for each scheme side by side (or the one --scheme names), with\n" +
			"the runs it rests on. The platform is the traced runs' clusters and networks resized to\n" +
			"--nodes; --net edits a network for what-if questions (--net ethernet=10Gbit/s,100us).\n" +
			"A BSP program (--app bsp) is predicted by W + h·g + l over the supersteps of its last run\n" +
			"on as many nodes, with the g and l of gridtui bench bsp.",
		Example: "  gridtui predict --n 48 --nodes 8                        # every scheme, from the runs of n = 48\n" +
			"  gridtui predict --job job.toml --scheme async --json    # one scheme of a job file, as JSON\n" +
			"  gridtui predict --n 48 --nodes 32 --net ethernet=10Gbit/s,100us   # what if: 32 nodes, 10 Gbit/s Ethernet",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return predictJob(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.job, "job", "", "job file (TOML); flags below override it")
	fl.StringVar(&f.app, "app", "", "the application (gridtui apps lists them; default obstacle)")
	fl.StringArrayVar(&f.params, "param", nil, "an application parameter name=value (repeatable)")
	fl.IntVar(&f.n, "n", 0, "interior points per axis")
	fl.Float64Var(&f.eps, "eps", 0, "convergence threshold ε")
	fl.StringVar(&f.scheme, "scheme", "", "sync, async or hybrid (default: all three)")
	fl.StringVar(&f.nodes, "nodes", "", `nodes: a count ("8") or a comma list of sites, clusters and hosts`)
	fl.IntVar(&f.cores, "cores", -1, "cores per node (0: each host's cores; default: the job's)")
	// -1 only says "not given" (the job's cores stand): help shows no
	// "(default -1)" that reads as a value to pass.
	fl.Lookup("cores").DefValue = "0"
	fl.StringArrayVar(&f.nets, "net", nil, "what-if network figures: name=bandwidth[,latency] (repeatable)")
	fl.StringVar(&f.dataDir, "data-dir", "", "results store directory (default $GRIDTUI_DATA_DIR, else $XDG_DATA_HOME/gridtui)")
	fl.IntVar(&f.shared, "shared-cores", 0, "every node, traced and predicted, shares one host of this many cores (0: each node has its own)")
	fl.IntVar(&f.maxTraced, "max-trace-nodes", 0, "rest only on runs of at most this many nodes (0: every run)")
	fl.BoolVar(&f.json, "json", false, "print the prediction as JSON")
	return cmd
}

// predictionReport is what gridtui predict prints.
type predictionReport predict.Outlook

func predictJob(cmd *cobra.Command, g *globalFlags, f *predictFlags) error {
	inv, err := inventory.Load(g.sites)
	if err != nil {
		return err
	}
	spec, err := buildSpec(cmd, &f.runFlags, inv)
	if err != nil {
		return asCommand(cmd, err)
	}
	if err := checkPredictFlags(f); err != nil {
		return err
	}
	dir, err := jobs.DataDir(f.dataDir)
	if err != nil {
		return err
	}
	res, err := jobs.Load(dir)
	if err != nil {
		return err
	}
	prob, err := predict.ProblemOf(spec)
	if err != nil {
		return err
	}
	if isBSP(spec) {
		if len(f.nets) > 0 {
			return usageError(errors.New("gridtui predict: --net: a BSP program is predicted with the g and l of gridtui bench bsp, not network figures"))
		}
		return predictBSP(cmd.OutOrStdout(), spec, inv, res, dir, prob, f.json)
	}
	topology, err := predict.TopologyOf(spec)
	if err != nil {
		return err
	}
	nodes, ranks, err := jobRanks(spec, inv)
	if err != nil {
		return usageError(fmt.Errorf("gridtui predict: --nodes: %w", err))
	}
	inside := grid.InsideNetworks(inv)
	req := predict.Request{Problem: prob, Nodes: nodes, Cores: spec.Cores, Networks: f.nets, MaxTraceNodes: f.maxTraced,
		SharedCores: f.shared, Topology: topology, Inside: inside, InventoryNodes: len(inv.Hosts())}
	if cmd.Flags().Changed("scheme") {
		req.Schemes = []jobs.Scheme{spec.Scheme}
	}
	// The platform the traces show, for its networks.
	traced, err := predict.PredictSchemes(res, predict.Request{Problem: prob, Nodes: req.Nodes, MaxTraceNodes: f.maxTraced,
		SharedCores: f.shared, Topology: topology, Inside: inside, Schemes: []jobs.Scheme{}})
	if err != nil {
		if errors.Is(err, predict.ErrNoTrace) {
			return &exitError{code: 1, err: fmt.Errorf("%w; then the same with --scheme async and --scheme hybrid, to predict those too", err)}
		}
		return err
	}
	// The inventory's clusters, as the job takes them, with the networks
	// the traces show.
	total := 0
	if ranks == nil {
		ranks, total = countRanks(nodes, inv)
	}
	req.Clusters = predict.ClustersOf(ranks, traced.Platform, inside)
	out, err := predict.PredictSchemes(res, req)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if f.json {
		err = jsonout.Write(w, out)
	} else {
		if total > 0 && nodes > total {
			fmt.Fprintf(w, "what-if: %d nodes, more than the inventory's %d: its clusters grown in proportion\n", nodes, total)
		}
		for _, name := range unusedEdits(out.Platform, f.nets) {
			fmt.Fprintf(w, "what-if: --net %s changes nothing: no link of this job uses %s (%s)\n", name, name, platformText(out.Platform))
		}
		err = predictionReport(*out).writeText(w)
	}
	if err == nil && len(out.Predictions) == 0 {
		// Every scheme asked for is unavailable: the reasons are printed.
		return &exitError{code: 1, err: errors.New("gridtui predict: no scheme could be predicted: run what the reasons above say first")}
	}
	return err
}

// asCommand names cmd in an error of the run flags it shares with
// gridtui run, which say "gridtui run:", keeping the exit status.
func asCommand(cmd *cobra.Command, err error) error {
	msg, ok := strings.CutPrefix(err.Error(), "gridtui run: ")
	if !ok {
		return err
	}
	renamed := errors.New(cmd.CommandPath() + ": " + msg)
	if ee, ok := errors.AsType[*exitError](err); ok {
		return &exitError{code: ee.code, err: renamed}
	}
	return renamed
}

// jobRanks is the job's node count and, when it names its nodes (sites,
// clusters, hosts or groups, with or without a count), each rank's cluster
// in rank order, as the engine resolves the selection against the
// inventory; a plain count (--nodes 8) names none.
func jobRanks(spec jobs.Spec, inv *inventory.Inventory) (int, []string, error) {
	sel := spec.Nodes
	if len(spec.Groups) > 0 {
		sel = jobs.NodeSelection{}
		for _, g := range spec.Groups {
			sel.Hosts = append(sel.Hosts, g.Workers...)
		}
	}
	if len(sel.Sites)+len(sel.Clusters)+len(sel.Hosts) == 0 {
		return max(sel.Any, 1), nil, nil
	}
	refs := grid.Refs(inv)
	names, err := sel.Resolve(refs, inv.Source)
	if err != nil {
		return 0, nil, err
	}
	cluster := make(map[string]string, len(refs))
	for _, r := range refs {
		cluster[r.Name] = r.Cluster
	}
	ranks := make([]string, len(names))
	for i, name := range names {
		ranks[i] = cluster[name]
	}
	return len(names), ranks, nil
}

// countRanks lays a job of n nodes on the inventory's clusters as the
// engine takes a count, filling them in order; past the inventory's size
// (a what-if) every cluster grows in proportion to its size, so that the
// layout keeps the inventory's shape. It returns each rank's cluster and
// the inventory's size; no ranks for an empty inventory.
func countRanks(n int, inv *inventory.Inventory) (ranks []string, total int) {
	var cls []inventory.Cluster
	for _, st := range inv.Sites {
		for _, c := range st.Clusters {
			if len(c.Hosts) > 0 {
				cls = append(cls, c)
				total += len(c.Hosts)
			}
		}
	}
	if total == 0 {
		return nil, 0
	}
	sizes := make([]int, len(cls))
	if n <= total {
		left := n
		for i, c := range cls {
			sizes[i] = min(len(c.Hosts), left)
			left -= sizes[i]
		}
	} else {
		given := 0
		for i, c := range cls {
			sizes[i] = n * len(c.Hosts) / total
			given += sizes[i]
		}
		for i := 0; given < n; i = (i + 1) % len(cls) {
			sizes[i]++
			given++
		}
	}
	for i, c := range cls {
		for range sizes[i] {
			ranks = append(ranks, c.Name)
		}
	}
	return ranks, total
}

func (r predictionReport) writeText(w io.Writer) error {
	var b strings.Builder
	p := r.Problem
	fmt.Fprintf(&b, "prediction: %s, n = %d, ε = %g, %s (%s), %s per node\n",
		p.App, p.N, p.Eps, plural(r.Platform.Nodes(), "node", "nodes"), platformText(r.Platform), plural(r.Cores, "core", "cores"))
	tw := columns.NewWriter(&b, 2)
	fmt.Fprintln(tw, "scheme\ttime\titerations (min/mean/max)\tidle per node\tgain\tstaleness")
	for _, x := range r.Predictions {
		fmt.Fprintf(tw, "%s\t%s\t%d/%.0f/%d\t%s\t%.3g\t%.2f\n", x.Scheme, secs(x.Seconds), x.MinIterations, x.MeanIterations,
			x.MaxIterations, secs(x.IdleSeconds), x.Gain, x.Staleness)
	}
	tw.Flush()
	if len(r.Predictions) > 0 {
		fmt.Fprintf(&b, "(gain: the predicted one-node time, %s, over the scheme's; staleness: sweeps per halo update received, less one, on the asynchronous links)\n",
			secs(r.Predictions[0].T1Seconds))
	}
	for _, s := range predict.AllSchemes {
		if why, ok := r.Unavailable[s]; ok {
			fmt.Fprintf(&b, "%s: no prediction: %s\n", s, why)
		}
		if c, ok := r.Cautions[s]; ok {
			fmt.Fprintf(&b, "%s: caution: %s\n", s, c)
		}
	}
	if v := r.Verdict; v != nil {
		fmt.Fprintln(&b, verdictText(v))
	}
	r.writeBasis(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// platformText names a platform's clusters, each with its size and the
// network inside it, and the network between them.
func platformText(pl predict.Platform) string {
	var cl []string
	for _, c := range pl.Clusters {
		cl = append(cl, fmt.Sprintf("%s %d on %s", c.Name, c.Nodes, c.Network))
	}
	between := ""
	if len(pl.Clusters) > 1 {
		between = "; between clusters " + pl.Between
	}
	return strings.Join(cl, ", ") + between
}

// unusedEdits are the networks of the what-if edits that no link of pl
// uses (inside a cluster of two nodes or more, or between clusters).
func unusedEdits(pl predict.Platform, edits []string) []string {
	used := map[string]bool{}
	if len(pl.Clusters) > 1 {
		used[pl.Between] = true
	}
	for _, c := range pl.Clusters {
		if c.Nodes > 1 {
			used[c.Network] = true
		}
	}
	var out []string
	for _, e := range edits {
		if name, _, _ := strings.Cut(e, "="); !used[name] && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// verdictText says which scheme is predicted fastest, and when others are
// within predict.CloseCall of it, that runs could order them either way.
func verdictText(v *predict.Verdict) string {
	if len(v.Close) == 0 {
		return fmt.Sprintf("fastest: %s, %s", v.Fastest, v.Lead())
	}
	var close []string
	for _, s := range v.Close {
		close = append(close, string(s))
	}
	return fmt.Sprintf("fastest: %s, but %s within %.0f %% of it: too close to call (schemes predicted under %.0f %% apart "+
		"ran in the predicted order 61 %% of the time on the test harness)", v.Fastest, strings.Join(close, " and "),
		100*predict.CloseCall, 100*predict.CloseCall)
}

// writeBasis prints what the prediction rests on: the traced runs, the
// networks' figures and the staleness model.
func (r predictionReport) writeBasis(b *strings.Builder) {
	m := r.Model
	fmt.Fprintf(b, "rests on %d traced run(s) (--json lists each with its id):\n", len(m.Sources))
	tw := columns.NewWriter(b, 2)
	for _, g := range predict.GroupSources(m.Sources) {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s iterations\n", g.Scheme, plural(g.Nodes, "node", "nodes"), plural(g.Runs, "run", "runs"),
			span(secs(g.MinWall), secs(g.MaxWall)), span(fmt.Sprintf("%.0f", g.MinIterations), fmt.Sprintf("%.0f", g.MaxIterations)))
	}
	tw.Flush()
	fmt.Fprintf(b, "per point and sweep %.3g s, %.0f bytes per link and iteration, %d synchronous iterations, overhead %s\n",
		m.PointSeconds, m.LinkBytes, m.SyncIterations, secs(m.Overhead))
	if d := m.ExchangeDelay; d.Base != 0 || d.PerContention != 0 {
		fmt.Fprintf(b, "exchange delay (synchronous waits): %.3g s + %.3g s per unit of host contention above 1\n", d.Base, d.PerContention)
	}
	names := make([]string, 0, len(r.Platform.Networks))
	for n := range r.Platform.Networks {
		names = append(names, n)
	}
	slices.Sort(names)
	fmt.Fprint(b, "networks:")
	for _, n := range names {
		x := r.Platform.Networks[n]
		src := x.Source
		if x.LatencySource != "" {
			src += ", latency: " + x.LatencySource
		}
		fmt.Fprintf(b, "  %s %s %s (%s)", n, x.Latency, predict.FormatBandwidth(x.Bandwidth), src)
	}
	fmt.Fprintln(b)
	if r.Platform.SharedCores > 0 {
		fmt.Fprintf(b, "all nodes share one host's %d cores\n", r.Platform.SharedCores)
	}
	writeStaleness(b, m)
	if m.HybridExcess > 0 {
		fmt.Fprintf(b, "hybrid iterations per rank: the synchronous count · (1 + %.3g / nodes of its cluster)", m.HybridExcess)
		if len(m.Lockstep) > 0 {
			fmt.Fprintf(b, "; a hybrid run lasts at least those iterations in lockstep, each timed from %d traced hybrid run(s) with clusters of two nodes or more", len(m.Lockstep))
		}
		fmt.Fprintln(b)
	}
	if m.CorePointSeconds > 0 {
		fmt.Fprintf(b, "CPU of a sweep: %.3g s per point (the least traced), of a byte sent %.3g s\n", m.CorePointSeconds, m.ByteSeconds)
	}
}

// writeStaleness writes the staleness model m rests on and the runs it was
// fitted on; nothing without such runs.
func writeStaleness(b *strings.Builder, m *predict.Model) {
	st := m.Staleness
	if st.Runs == 0 {
		return
	}
	fmt.Fprintf(b, "staleness model: an asynchronous run lasts %d · f rounds of its slowest asynchronous link"+
		" (async: each with the crossing of an update to it on shared cores), f = a + b · log2(nodes)", m.SyncIterations)
	for _, sc := range predict.AllSchemes {
		if l, ok := st.Lines[sc]; ok {
			fmt.Fprintf(b, "; %s: f = %.3g + %.3g · log2(nodes)", sc, l.A, l.B)
		}
	}
	if st.HybridAlpha > 0 {
		if st.HybridFloor > 0 {
			fmt.Fprintf(b, "; hybrid, in place of its line: f = √(L^-%.3g · min(1, 1/L + %.3g)), L the sweeps a cluster does in lockstep per round", st.HybridAlpha, st.HybridFloor)
		} else {
			fmt.Fprintf(b, "; hybrid, in place of its line: f = L^-%.3g, L the sweeps a cluster does in lockstep per round", st.HybridAlpha)
		}
	}
	fmt.Fprintf(b, ", fitted on %d run(s) (async: on those of the most nodes):", st.Runs)
	for _, g := range predict.GroupFit(st.Fit) {
		fmt.Fprintf(b, "\n  %-6s %s, %s, round %.3g ms", g.Scheme, plural(g.Nodes, "node", "nodes"), plural(g.Runs, "run", "runs"), 1e3*g.Round)
		if g.Crossing > 0 {
			fmt.Fprintf(b, " + crossing %.3g ms", 1e3*g.Crossing)
		}
		if g.Sweeps > 0 && st.HybridAlpha > 0 {
			fmt.Fprintf(b, ", %.3g sweeps per round", g.Sweeps)
		}
		measured := fmt.Sprintf("%.2f", g.MedianMeasured)
		if g.Runs > 1 {
			measured = fmt.Sprintf("%.2f–%.2f (median %.2f)", g.MinMeasured, g.MaxMeasured, g.MedianMeasured)
		}
		fmt.Fprintf(b, ": measured f %s, modelled %.2f", measured, g.Modelled)
	}
	fmt.Fprintln(b)
}

// plural writes n with the word's singular or plural form.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// span writes a range lo–hi, or lo alone when they are the same.
func span(lo, hi string) string {
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

// checkPredictFlags refuses, as usage errors and before the store is read,
// what-if edits that do not parse and counts below zero.
func checkPredictFlags(f *predictFlags) error {
	if f.shared < 0 {
		return usageErrorf("gridtui predict: --shared-cores %d: want 0 (each node has its own) or more", f.shared)
	}
	if f.maxTraced < 0 {
		return usageErrorf("gridtui predict: --max-trace-nodes %d: want 0 (every run) or more", f.maxTraced)
	}
	for _, edit := range f.nets {
		var pl predict.Platform
		if err := pl.SetNetwork(edit); err != nil {
			return usageError(fmt.Errorf("gridtui predict: --net: %w", err))
		}
	}
	return nil
}
