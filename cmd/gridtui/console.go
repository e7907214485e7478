package main

import "github.com/spf13/cobra"

func runConsole(cmd *cobra.Command, g *globalFlags) error {
	return notImplemented("console")
}
