package main

import "github.com/spf13/cobra"

func newSitesCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "sites",
		Short: "not implemented yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return notImplemented("sites")
		},
	}
}
