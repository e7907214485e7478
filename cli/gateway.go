package cli

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/engine/gateway"
	"github.com/gridtui/gridtui/engine/worker"
)

func newGatewayCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "gateway",
		Short: "Run as a site's gateway (started by the console; reads its boot line on stdin)",
		Long: "gateway is started by the console on a site's gateway host (sites.toml [[site.gateway]]).\n" +
			"It reads one boot line (name, run secret, ports) on stdin, listens on the first port it can\n" +
			"bind, prints its hello, reads its peers on the next line, relays the run's links to the\n" +
			"other sites and prints its counters until stdin closes.",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			worker.Version = version
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return gateway.ServeGateway(ctx, os.Stdin, os.Stdout, os.Stderr)
		},
	}
}
