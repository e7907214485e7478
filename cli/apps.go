package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	_ "github.com/gridtui/gridtui/apps/bsp" // the applications of this repository
	_ "github.com/gridtui/gridtui/apps/bspbench"
	_ "github.com/gridtui/gridtui/apps/exec"
	"github.com/gridtui/gridtui/apps/gridapp"
	_ "github.com/gridtui/gridtui/apps/heat"
	_ "github.com/gridtui/gridtui/apps/obstacle"
	_ "github.com/gridtui/gridtui/apps/poisson"
	_ "github.com/gridtui/gridtui/apps/sparse"
	"github.com/gridtui/gridtui/internal/columns"
)

func newAppsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "apps",
		Short: "List the registered applications and their parameters",
		Long: "apps lists the applications this binary carries, each with its parameters as job files\n" +
			"([params], or [obstacle] for the obstacle problem) and `gridtui run --app NAME --param k=v` take them.",
		Example: "  gridtui apps                                        # names, summaries and parameters\n" +
			"  gridtui run --app poisson --nodes 4 --param blocks=2x2x1  # run one of them",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := columns.NewWriter(cmd.OutOrStdout(), 2)
			for _, name := range gridapp.Names() {
				app, _ := gridapp.Lookup(name)
				fmt.Fprintf(w, "%s\t%s\n", name, app.Info().Summary)
				for _, p := range app.Params() {
					fmt.Fprintf(w, "  %s\t%s, default %s, %s\t%s\n", p.Name, p.Kind, p.DefaultText(), p.Range(), p.Help)
				}
			}
			return w.Flush()
		},
	}
}
