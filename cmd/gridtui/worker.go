package main

import "github.com/spf13/cobra"

func newWorkerCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "not implemented yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return notImplemented("worker")
		},
	}
}
