package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/internal/termsafe"
)

// exitError carries a process exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Main runs gridtui with the process's arguments and exits: the console with
// no subcommand, `run`, `deploy`, … and, when a launcher started this binary
// on a node, `worker`. A program that registers its own applications with
// gridapp.Register and then calls Main is gridtui with those applications:
// console, headless runner and worker at once, and what deploy ships.
func Main() {
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		// An error may carry a host's or a program's text: it reaches the
		// terminal through termsafe.
		fmt.Fprintln(os.Stderr, termsafe.Text(err.Error()))
		os.Exit(exitCode(err))
	}
}

// exitCode is the process exit code for the error Execute returned.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// globalFlags are shared by every subcommand.
type globalFlags struct {
	sites string
}

func newRootCmd() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:           "gridtui",
		Short:         "Run iterative solvers across grid sites from a terminal",
		Long:          "gridtui deploys its worker to the sites of sites.toml, probes their networks,\ncomposes jobs (synchronous, asynchronous or hybrid iterations) and watches them run.\nWith no subcommand it opens the console.",
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConsole(cmd, g)
		},
	}
	root.Version = versionText()
	root.SetVersionTemplate("{{.Version}}\n")
	root.Example = "  gridtui                      # open the console on ./sites.toml or the local grid\n" +
		"  gridtui run --nodes 4        # a headless run of the default job on 4 nodes\n" +
		"  gridtui deploy --start       # upload the worker to every SSH host and smoke-test it"
	root.PersistentFlags().StringVar(&g.sites, "sites", "", "inventory file (default: $GRIDTUI_SITES, else ./sites.toml, else $XDG_CONFIG_HOME/gridtui/sites.toml, else the embedded local grid)")
	root.AddCommand(
		newSitesCmd(g),
		newRunCmd(g),
		newPredictCmd(g),
		newAppsCmd(),
		newResultsCmd(),
		newDeployCmd(g),
		newProbeCmd(g),
		newWorkerCmd(g),
		newRelayCmd(),
		newGatewayCmd(g),
		newBenchCmd(g),
		newVersionCmd(),
		newLogsCmd(g),
		newDrainCmd(),
		newJoinCmd(),
	)
	markUsageErrors(root)
	registerCompletions(root, g)
	return root
}
