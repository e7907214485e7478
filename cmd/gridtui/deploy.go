package main

import "github.com/spf13/cobra"

func newDeployCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "deploy",
		Short: "not implemented yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return notImplemented("deploy")
		},
	}
}
