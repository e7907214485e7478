package cli

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy"
)

func newRelayCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "relay",
		Short: "Copy this binary to the other hosts of a site (started by deploy on one host of the site)",
		Long: "relay is started by `gridtui deploy` on one host of a site, with the console's ssh agent\n" +
			"forwarded. It reads the hosts to copy to on stdin, copies the worker binary to each over\n" +
			"the site's network and reports progress on stdout, so the binary crosses the wide-area\n" +
			"link once per site.",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return deploy.ServeRelay(ctx, os.Stdin, os.Stdout)
		},
	}
}
