package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sched"
	"github.com/gridtui/gridtui/deploy/sshclient"
	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/owner"
	"github.com/gridtui/gridtui/probe"
)

func newSitesCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "sites",
		Short:   "Print the inventory as gridtui understood it",
		Long:    "Print every host of the inventory (--sites, $GRIDTUI_SITES, ./sites.toml,\n$XDG_CONFIG_HOME/gridtui/sites.toml or the embedded local grid: the first line says which)\nwith its site, cluster, cores, launcher and addresses, node ranges expanded.",
		Example: "  gridtui sites\n  gridtui sites --sites lab.toml",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			inv, err := inventory.Load(g.sites)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if inv.Notice != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "note:", inv.Notice)
			}
			if asJSON {
				return jsonout.Write(out, sitesJSON(inv))
			}
			fmt.Fprintf(out, "inventory: %s (locality: %s)\n\n", inv.Source, localityName(inv))
			ssh := sshclient.NewSSHResolver("")
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			owners := hasOwners(inv)
			head := "SITE\tCLUSTER\tHOST\tCORES\tLAUNCHER\tADDRESSES"
			if owners {
				head += "\tOWNER POLICY"
			}
			fmt.Fprintln(tw, head)
			for _, s := range inv.Sites {
				for _, c := range s.Clusters {
					for _, h := range c.Hosts {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s", s.Name, c.Name, h.Name, coresText(h.Cores), s.Launcher, addressText(cmd.Context(), ssh, s, h))
						if owners {
							fmt.Fprintf(tw, "\t%s", ownerText(h.Owner))
						}
						fmt.Fprintln(tw)
					}
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the inventory as JSON")
	cmd.AddCommand(newSitesImportCmd())
	return cmd
}

// newSitesImportCmd turns an MPI hostfile into a sites.toml.
func newSitesImportCmd() *cobra.Command {
	var site, cluster, out string
	c := &cobra.Command{
		Use:   "import HOSTFILE",
		Short: "Turn an Open MPI or MPICH hostfile into a sites.toml inventory",
		Long: "Read an Open MPI hostfile (\"host slots=N\") or an MPICH one (\"host:N\") and print a sites.toml\n" +
			"with one site and one cluster holding its hosts, cores from the slots. SSH settings are left to\n" +
			"~/.ssh/config. -o writes a file (never over an existing one).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("gridtui sites import: %w", err)
			}
			entries, err := inventory.ParseHostfile(args[0], data)
			if err != nil {
				return err
			}
			text := inventory.ImportHostfile(args[0], site, cluster, entries)
			if _, err := inventory.Parse(args[0], text); err != nil {
				return fmt.Errorf("gridtui sites import: --site/--cluster: %w", err)
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(text)
				return err
			}
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return fmt.Errorf("gridtui sites import: %w", err)
			}
			if _, err := f.Write(text); err != nil {
				f.Close()
				return fmt.Errorf("gridtui sites import: %w", err)
			}
			if err := f.Close(); err != nil {
				return fmt.Errorf("gridtui sites import: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d hosts\n", out, len(entries))
			return nil
		},
	}
	c.Flags().StringVar(&site, "site", "imported", "name of the site")
	c.Flags().StringVar(&cluster, "cluster", "hosts", "name of the cluster")
	c.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	return c
}

// sitesView is `gridtui sites --json`: the inventory's file, its locality
// rule and every host with its launcher.
type sitesView struct {
	Inventory string `json:"inventory"`
	Locality  string `json:"locality"`
	Hosts     []siteHost
}

type siteHost struct {
	inventory.Host

	Launcher inventory.Launcher
}

func sitesJSON(inv *inventory.Inventory) sitesView {
	v := sitesView{Inventory: inv.Source, Locality: localityName(inv)}
	for _, s := range inv.Sites {
		for _, c := range s.Clusters {
			for _, h := range c.Hosts {
				v.Hosts = append(v.Hosts, siteHost{h, s.Launcher})
			}
		}
	}
	return v
}

func localityName(inv *inventory.Inventory) string {
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
func addressText(ctx context.Context, ssh sshclient.SSHResolver, s inventory.Site, h inventory.Host) string {
	if s.Launcher == inventory.LauncherLocal {
		t := "eth " + h.EthernetAddr.String()
		if h.FastAddr.IsValid() {
			t += ", fast " + h.FastAddr.String()
		}
		return t
	}
	if sched.SchedulerFor(string(s.Launcher)) != nil {
		return batchText(s, h)
	}
	route, err := sshclient.Route(ctx, ssh, h)
	if err != nil {
		route = "unresolved: " + err.Error()
	}
	t := "ssh " + route
	if h.Ethernet != "" || h.Fast != "" {
		t += fmt.Sprintf(" (nics: eth=%s fast=%s)", dash(h.Ethernet), dash(h.Fast))
	}
	return t
}

// batchText shows how a node of a batch site is reached: never over SSH,
// but as a step of the allocation gridtui runs in (srun, oarsh, qrsh
// -inherit, pbs_tmrsh), when its environment names one holding the node, or
// of one it asks the site's frontend for; with neither, a run cannot start
// it and says so.
func batchText(s inventory.Site, h inventory.Host) string {
	sc := sched.SchedulerFor(string(s.Launcher))
	a, ok, err := sc.Inside(os.Getenv)
	if err != nil {
		return "unreadable allocation: " + err.Error()
	}
	if ok && slices.Contains(a.Names(), h.Name) {
		return sc.Starter() + " step of " + sc.Name() + " job " + a.Job + " (the allocation gridtui runs in, " + a.Source + ")"
	}
	if _, asks := sc.(sched.Allocator); !asks || s.Frontend == "" {
		return sc.Starter() + ": no frontend to ask for an allocation: run gridtui inside one holding " + h.Name
	}
	return sc.Starter() + " step of an allocation from frontend " + s.Frontend
}

// hasOwners says whether a host of inv has an owner policy: only then does
// `gridtui sites` show the column.
func hasOwners(inv *inventory.Inventory) bool {
	for _, h := range inv.Hosts() {
		if h.Owner != nil {
			return true
		}
	}
	return false
}

// ownerText sums up a host's owner policy: when gridtui may start, its
// owner hours and its CPU cap (docs/OWNER-POLICY.md has the rest).
func ownerText(p *owner.Policy) string {
	if p == nil {
		return "-"
	}
	t := fmt.Sprintf("start after %s idle, owner's load ≤ %.2f", p.IdleToStart, p.OwnerCPUIdle)
	if len(p.Users) > 0 {
		t += " (" + strings.Join(p.Users, ", ") + ")"
	}
	for _, w := range p.OwnerHours {
		t += "; not " + w.String()
	}
	if p.CPUCap < 100 {
		t += fmt.Sprintf("; cap %d%%", p.CPUCap)
	}
	return t
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
