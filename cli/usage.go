package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// usageError marks err as a mistake in the command line: the process exits
// with 2, as getopt-style tools do, and main points at --help.
func usageError(err error) error {
	return &exitError{code: 2, err: err}
}

// usageErrorf is usageError of a formatted error.
func usageErrorf(format string, a ...any) error {
	return usageError(fmt.Errorf(format, a...))
}

// markUsageErrors makes every flag and argument error of root's command tree
// a usage error: unknown flags, flag values that do not parse, unknown
// commands and stray arguments. Cobra reports these as plain errors.
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageErrorf("%s: %w", cmd.CommandPath(), err)
	})
	root.SuggestionsMinimumDistance = 2
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("gridtui: unknown command %q", args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += " (did you mean " + strings.Join(s, " or ") + "?)"
		}
		return usageErrorf("%s; see gridtui --help", msg)
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root && c.Args != nil {
			check := c.Args
			c.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return usageErrorf("%s: %w", cmd.CommandPath(), err)
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
