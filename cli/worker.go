package cli

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/engine/worker"
)

func newWorkerCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Run as a grid worker (started by the console; reads its boot line on stdin)",
		Long: "worker is started by the console, over SSH or as a local process. It reads one boot line\n" +
			"(node name, run secret) on stdin, listens for RMNP, prints its hello on stdout and serves\n" +
			"runs until stdin closes.",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			worker.Version = version
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return worker.ServeWorker(ctx, os.Stdin, os.Stdout, os.Stderr)
		},
	}
}
