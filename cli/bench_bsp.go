package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/apps/bspbench"
	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// benchBspFlags are the flags of `gridtui bench bsp`.
type benchBspFlags struct {
	nodes          string
	h, reps, iters int
	json, noSave   bool
	dataDir        string
}

// newBenchBspCmd returns `gridtui bench bsp`: r, g and l of the BSP cost
// model on the chosen nodes, per network (apps/bspbench).
func newBenchBspCmd(g *globalFlags) *cobra.Command {
	f := &benchBspFlags{}
	cmd := &cobra.Command{
		Use:   "bsp",
		Short: "Measure the BSP parameters r, g and l of the chosen nodes, per network (bspbench's method)",
		Long: "bsp runs bspbench, a Go BSP program, on the chosen nodes (one process per node, over the\n" +
			"run's RMNP links) and prints r (DAXPY flop rate), and g and l fitted by least squares\n" +
			"over h-relations of single-word puts (h = 0 … --h words), for all the processes together\n" +
			"and for process 0's pairs grouped by the network Algorithm 1 chose, with 95 % confidence\n" +
			"intervals over --reps repetitions. A superstep costs W + h·g + l.",
		Example: "  gridtui bench bsp --nodes 4\n  gridtui bench bsp --nodes alpha-1,beta-1 --h 256",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return runBenchBsp(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.nodes, "nodes", "4", `nodes: a count ("4") or a comma list of sites, clusters and hosts`)
	fl.IntVar(&f.h, "h", 64, "the largest h-relation, in 8-byte words")
	fl.IntVar(&f.reps, "reps", 5, "repetitions of each fit")
	fl.IntVar(&f.iters, "iters", 10, "supersteps timed for each h")
	fl.BoolVar(&f.json, "json", false, "print the figures as JSON")
	fl.BoolVar(&f.noSave, "no-save", false, "do not keep g and l for the Network view and prediction")
	fl.StringVar(&f.dataDir, "data-dir", "", "results store directory, where g and l are kept (default $GRIDTUI_DATA_DIR, else $XDG_DATA_HOME/gridtui)")
	return cmd
}

func runBenchBsp(cmd *cobra.Command, g *globalFlags, f *benchBspFlags) error {
	inv, err := inventory.Load(g.sites)
	if err != nil {
		return err
	}
	sel, err := parseNodes(f.nodes, inv)
	if err != nil {
		return err
	}
	spec := jobs.Spec{App: bspbench.Name, Scheme: jobs.Synchronous, Nodes: sel, Cores: 1,
		Params: map[string]string{"h": strconv.Itoa(f.h), "reps": strconv.Itoa(f.reps), "iters": strconv.Itoa(f.iters)}}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := engine.Run(ctx, spec, engine.RunOptions{Inventory: inv, NoRecord: true,
		Deploy: terminalPrompts(deploy.Options{HelloTimeout: 30 * time.Second})})
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	saved := ""
	if !f.noSave {
		if saved, err = saveBSPParams(f.dataDir, rep); err != nil {
			return err
		}
	}
	if f.json {
		return jsonout.Write(out, rep.Figures)
	}
	fmt.Fprintf(out, "bspbench on %d nodes:\n", len(rep.Nodes))
	for _, fg := range rep.Figures {
		fmt.Fprintf(out, "  %-20s %s\n", fg.Name, fg.Text)
	}
	if saved != "" {
		fmt.Fprintf(out, "g and l kept in %s (the Network view and prediction read them)\n", saved)
	}
	return nil
}

// bspParams turns bspbench's figures ("r", "g NETWORK", "l NETWORK", the
// confidence half-widths in their texts) into the cost model's parameters.
func bspParams(rep *engine.Report) predict.BSPParams {
	p := predict.BSPParams{Measured: time.Now().UTC(), Networks: map[string]predict.BSPNetwork{}}
	for _, n := range rep.Nodes {
		p.Nodes = append(p.Nodes, n.Node)
	}
	for _, fg := range rep.Figures {
		kind, net, _ := strings.Cut(fg.Name, " ")
		var v, ci float64
		fmt.Sscanf(fg.Text, "%g ± %g", &v, &ci)
		n := p.Networks[net]
		switch kind {
		case "r":
			p.R = fg.Value
			continue
		case "g":
			n.G, n.GCI = fg.Value, ci*1e-9 // the text is in ns/byte
		case "l":
			n.L, n.LCI = fg.Value, ci*1e-6 // in µs
		default:
			continue
		}
		p.Networks[net] = n
	}
	return p
}

// saveBSPParams keeps the run's g and l in the results store's directory
// and returns the file's path.
func saveBSPParams(setting string, rep *engine.Report) (string, error) {
	dir, err := jobs.DataDir(setting)
	if err != nil {
		return "", err
	}
	if err := predict.SaveBSP(dir, bspParams(rep)); err != nil {
		return "", err
	}
	return filepath.Join(dir, predict.BSPFile), nil
}
