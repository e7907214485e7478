package main

import "github.com/spf13/cobra"

func newBenchCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "bench",
		Short: "not implemented yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return notImplemented("bench")
		},
	}
}
