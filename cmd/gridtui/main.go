// Command gridtui is a terminal console for running iterative solvers across
// grid sites: it deploys workers over SSH, probes their networks, composes jobs
// and watches them run. This file only wires the subcommands.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// exitError carries a process exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
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
	root.PersistentFlags().StringVar(&g.sites, "sites", "", "inventory file (default: ./sites.toml if present, else the embedded local grid)")
	root.AddCommand(
		newSitesCmd(g),
		newRunCmd(g),
		newAppsCmd(),
		newResultsCmd(),
		newDeployCmd(g),
		newProbeCmd(g),
		newWorkerCmd(g),
		newBenchCmd(g),
		newVersionCmd(),
	)
	return root
}
