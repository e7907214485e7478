package main

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/probe"
	"github.com/spf13/cobra"
)

func newSitesCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "sites",
		Short: "Print the inventory as gridtui understood it",
		Long:  "Print every host of the inventory (./sites.toml, --sites, or the embedded local grid)\nwith its site, cluster, cores, launcher and addresses, node ranges expanded.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			inv, err := deploy.Load(g.sites)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if inv.Notice != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "note:", inv.Notice)
			}
			fmt.Fprintf(out, "inventory: %s (locality: %s)\n\n", inv.Source, localityName(inv))
			ssh := deploy.NewSSHResolver("")
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "SITE\tCLUSTER\tHOST\tCORES\tLAUNCHER\tADDRESSES")
			for _, s := range inv.Sites {
				for _, c := range s.Clusters {
					for _, h := range c.Hosts {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, c.Name, h.Name, coresText(h.Cores), s.Launcher, addressText(cmd.Context(), ssh, s, h))
					}
				}
			}
			return tw.Flush()
		},
	}
}

func localityName(inv *deploy.Inventory) string {
	if inv.Locality.Rule == probe.RulePrefix {
		return "prefix /" + strconv.Itoa(inv.Locality.PrefixBits)
	}
	return inv.Locality.Rule
}

func coresText(n int) string {
	if n == 0 {
		return "all"
	}
	return strconv.Itoa(n)
}

// addressText shows how a host is reached: its loopback addresses on a local
// site, user@hostname:port and the jump hosts over SSH, as the ssh
// configuration resolves them.
func addressText(ctx context.Context, ssh deploy.SSHResolver, s deploy.Site, h deploy.Host) string {
	if s.Launcher == deploy.LauncherLocal {
		t := "eth " + h.EthernetAddr.String()
		if h.FastAddr.IsValid() {
			t += ", fast " + h.FastAddr.String()
		}
		return t
	}
	route, err := deploy.Route(ctx, ssh, h)
	if err != nil {
		route = "unresolved: " + err.Error()
	}
	t := "ssh " + route
	if h.Ethernet != "" || h.Fast != "" {
		t += fmt.Sprintf(" (nics: eth=%s fast=%s)", dash(h.Ethernet), dash(h.Fast))
	}
	return t
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
