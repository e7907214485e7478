package main

import "github.com/spf13/cobra"

func newProbeCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "probe",
		Short: "not implemented yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return notImplemented("probe")
		},
	}
}
