package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/gridtui/gridtui/probe"
	"github.com/spf13/cobra"
)

// probeFlags are the flags of `gridtui probe`.
type probeFlags struct {
	json     bool
	ethernet string
	fast     string
}

func newProbeCmd(g *globalFlags) *cobra.Command {
	f := &probeFlags{}
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "List this host's network interfaces (kind, addresses, MTU, state, speed)",
		Long: "probe lists every network interface of this host as the Htable sees it:\n" +
			"kind (ethernet, infiniband, myrinet, loopback, other), addresses (IPv4 first),\n" +
			"MTU, state and link speed. --ethernet and --fast name interfaces the way the\n" +
			"inventory's hints do and override detection.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProbe(cmd, f)
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON (a list of NICs) instead of a table")
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
	out := cmd.OutOrStdout()
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(nics); err != nil {
			return fmt.Errorf("gridtui probe: write JSON: %w", err)
		}
		return nil
	}
	return probe.WriteNICTable(out, nics)
}
