package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/engine"
)

func newJoinCmd() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "join RUN HOST",
		Short: "Have a host of the inventory join a running job as a spare",
		Long: "join asks the running run RUN (a console's or a headless run's on this machine, one\n" +
			"that checkpoints to disk: its id is in its event log) to start a worker on HOST, a host\n" +
			"of its inventory the job does not use, and keep it as a spare: the next loss or drain\n" +
			"moves a part there. It returns once the worker is up (see docs/FAILURES.md). Interrupted,\n" +
			"or after a minute and 15 s, it gives the join up: a worker that starts after that is stopped.",
		Example: "  gridtui join 20261128T090430Z-11ef86 beta-4",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := engine.RequestJoin(dataDir, args[0], args[1])
			if errors.Is(err, engine.ErrResume) {
				return usageError(fmt.Errorf("gridtui join: %w", err)) // no such run
			}
			if err != nil {
				return fmt.Errorf("gridtui join: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run %s: %s joined the job as a spare\n", args[0], args[1])
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "data directory (default $GRIDTUI_DATA_DIR, else $XDG_DATA_HOME/gridtui)")
	return cmd
}
