package cli

import (
	"context"
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
			ctx, stop := workerSignals(cmd.Context())
			defer stop()
			return worker.ServeWorker(ctx, os.Stdin, os.Stdout, os.Stderr)
		},
	}
}

// workerSignals returns ctx ended by SIGINT, SIGTERM or SIGHUP, and makes
// a write to a closed stdout or stderr fail (EPIPE) instead of killing the
// process: a worker whose SSH session is gone (its host cut off, then back)
// logs to stderr as it ends, and SIGPIPE's default would kill it before it
// removes its socket directory. The handler, unlike an ignored SIGPIPE, is
// not inherited by the processes the worker starts.
func workerSignals(ctx context.Context) (context.Context, context.CancelFunc) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
