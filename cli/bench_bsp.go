package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/apps/bspbench"
	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/jobs"
)

// benchBspFlags are the flags of `gridtui bench bsp`.
type benchBspFlags struct {
	nodes          string
	h, reps, iters int
	json           bool
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
	if f.json {
		return jsonout.Write(out, rep.Figures)
	}
	fmt.Fprintf(out, "bspbench on %d nodes:\n", len(rep.Nodes))
	for _, fg := range rep.Figures {
		fmt.Fprintf(out, "  %-20s %s\n", fg.Name, fg.Text)
	}
	return nil
}
