package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/engine"
)

func newDrainCmd() *cobra.Command {
	var dataDir, why string
	cmd := &cobra.Command{
		Use:   "drain RUN NODE",
		Short: "Have a node leave a running job: its part moves to a spare or a free host",
		Long: "drain asks the running run RUN (a console's or a headless run's on this machine, one\n" +
			"that checkpoints to disk: its id is in its event log) to let NODE go: the run moves\n" +
			"NODE's part to a spare of the job, else to a new worker on a host of the inventory the\n" +
			"job does not use, restarts every part from the checkpoints (a sync run bit for bit) and\n" +
			"stops NODE's worker. It returns once the run took the request (see docs/FAILURES.md).",
		Example: "  gridtui drain 20261128T090430Z-11ef86 alpha-3\n" +
			"  gridtui drain 20261128T090430Z-11ef86 alpha-3 --why \"its owner came back\"",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := engine.RequestDrain(dataDir, args[0], args[1], why)
			if errors.Is(err, engine.ErrResume) {
				return usageError(fmt.Errorf("gridtui drain: %w", err)) // no such run
			}
			if err != nil {
				return fmt.Errorf("gridtui drain: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run %s: %s is drained; its part moves (the run's event log says where)\n", args[0], args[1])
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "data directory (default $GRIDTUI_DATA_DIR, else $XDG_DATA_HOME/gridtui)")
	cmd.Flags().StringVar(&why, "why", "", "why the node leaves (said in the run's event log and report)")
	return cmd
}
