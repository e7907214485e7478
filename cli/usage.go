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
	root.SetHelpCommand(helpCommand(root))
	root.InitDefaultCompletionCmd()
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root && !c.Runnable() && c.HasSubCommands() {
			// A group such as `completion`: an unknown subcommand (tcsh)
			// is a usage error, not its help.
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) > 0 {
					return unknownIn(cmd, args[0])
				}
				return cmd.Help()
			}
		}
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

// unknownIn is the usage error of an unknown subcommand name of cmd, with
// what it has.
func unknownIn(cmd *cobra.Command, name string) error {
	var have []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			have = append(have, c.Name())
		}
	}
	msg := fmt.Sprintf("%s: unknown command %q", cmd.CommandPath(), name)
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += " (did you mean " + strings.Join(s, " or ") + "?)"
	}
	return usageErrorf("%s; want one of %s", msg, strings.Join(have, ", "))
}

// helpCommand is `gridtui help [command]`: the help of a command, and a
// usage error (exit 2) for a topic that is none.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				name := strings.Join(args, " ")
				if len(rest) > 0 {
					name = rest[0]
				}
				return unknownIn(root, name)
			}
			return cmd.Help()
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, in string) ([]string, cobra.ShellCompDirective) {
			cmd, _, err := root.Find(args)
			if err != nil || cmd == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), in) {
					out = append(out, sub.Name()+"\t"+sub.Short)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
	}
}
