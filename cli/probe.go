package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/probe"
)

// probeFlags are the flags of `gridtui probe`.
type probeFlags struct {
	json     bool
	routes   bool
	ethernet string
	fast     string
}

func newProbeCmd(g *globalFlags) *cobra.Command {
	f := &probeFlags{}
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "List this host's network interfaces, or the Htable and routes of the local grid",
		Long: "probe lists every network interface of this host as the Htable sees it:\n" +
			"kind (ethernet, infiniband, myrinet, loopback, other), addresses (IPv4 first),\n" +
			"MTU, state and link speed. --ethernet and --fast name interfaces the way the\n" +
			"inventory's hints do and override detection.\n\n" +
			"With --routes it prints instead the Htable of the inventory's local-launcher\n" +
			"nodes and, for every pair, the network Algorithm 1 picks and why. (SSH hosts\n" +
			"are known only once their workers say hello: see the console's Network view.)",
		Example: "  gridtui probe\n  gridtui probe --json\n  gridtui probe --routes",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.routes {
				return runProbeRoutes(cmd.OutOrStdout(), g, f)
			}
			return runProbe(cmd, f)
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON instead of a table (a list of NICs; with --routes, {rows, routes})")
	cmd.Flags().BoolVar(&f.routes, "routes", false, "print the local grid's Htable and the route of every pair")
	cmd.Flags().StringVar(&f.ethernet, "ethernet", "", "interface to treat as this host's Ethernet NIC (inventory hint)")
	cmd.Flags().StringVar(&f.fast, "fast", "", "interface to treat as this host's fast NIC (inventory hint)")
	return cmd
}

func runProbe(cmd *cobra.Command, f *probeFlags) error {
	nics, err := probe.LocalContext(cmd.Context())
	if err != nil {
		return err
	}
	host, _ := os.Hostname() // only names the host in an error message
	if err := probe.CheckHints(host, nics, f.ethernet, f.fast); err != nil {
		return err
	}
	nics = probe.ApplyHints(nics, f.ethernet, f.fast)
	if f.json {
		return writeJSON(cmd.OutOrStdout(), nics)
	}
	return probe.WriteNICTable(cmd.OutOrStdout(), nics)
}

func runProbeRoutes(out io.Writer, g *globalFlags, f *probeFlags) error {
	inv, err := inventory.Load(g.sites)
	if err != nil {
		return err
	}
	h, err := grid.Htable(inv)
	if err != nil {
		return err
	}
	nodes := h.Nodes()
	routes := []probe.Route{}
	for i := range nodes {
		for j := i + 1; j < len(nodes); j++ {
			r, err := h.Route(nodes[i].Name, nodes[j].Name)
			if err != nil {
				return err
			}
			routes = append(routes, r)
		}
	}
	if f.json {
		return writeJSON(out, struct {
			Rows   []probe.Row   `json:"rows"`
			Routes []probe.Route `json:"routes"`
		}{h.Rows(), routes})
	}
	if len(nodes) == 0 {
		fmt.Fprintf(out, "%s has no local-launcher nodes; SSH hosts are probed when their workers say hello (gridtui deploy, or the console's Network view)\n", inv.Source)
		return nil
	}
	fmt.Fprintf(out, "Htable of %s (locality rule %s)\n\n%s\n", inv.Source, h.Locality().Rule, h)
	for _, r := range routes {
		fmt.Fprintln(out, r.Reason)
		if via := engine.GatewayFallback(inv, r.A, r.B); via != "" {
			fmt.Fprintf(out, "  if the direct path fails pre-flight: %s ([[site.gateway]] of both sites)\n", via)
		}
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("gridtui probe: write JSON: %w", err)
	}
	return nil
}
