package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy"
)

// registerCompletions makes the shells' completion (gridtui completion bash|
// zsh|fish|powershell) complete what gridtui's arguments name: sites,
// clusters and hosts of the inventory for --nodes and deploy, the schemes
// and detectors, TOML files for --job, --sites and --matrix.
func registerCompletions(root *cobra.Command, g *globalFlags) {
	tomlFiles := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"toml"}, cobra.ShellCompDirectiveFilterFileExt
	}
	root.RegisterFlagCompletionFunc("sites", tomlFiles)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "run":
			c.RegisterFlagCompletionFunc("job", tomlFiles)
			c.RegisterFlagCompletionFunc("nodes", func(_ *cobra.Command, _ []string, in string) ([]string, cobra.ShellCompDirective) {
				// A comma list: complete its last name, keep the others.
				done, last := "", in
				if i := strings.LastIndexByte(in, ','); i >= 0 {
					done, last = in[:i+1], in[i+1:]
				}
				var out []string
				for _, n := range nodeNames(g, strings.Split(done, ",")) {
					if strings.HasPrefix(n, last) {
						out = append(out, done+n)
					}
				}
				return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
			})
			c.RegisterFlagCompletionFunc("scheme", fixed("sync\tsynchronous iterations", "async\tasynchronous iterations", "hybrid\tsync inside a cluster, async across"))
			c.RegisterFlagCompletionFunc("detector", fixed("tokens\tconvergence tokens (sync)", "activity\tthe activity graph (async, hybrid)", "switch\tAIAC's timed switch to sync"))
		case "deploy":
			c.ValidArgsFunction = func(_ *cobra.Command, args []string, in string) ([]string, cobra.ShellCompDirective) {
				var out []string
				for _, n := range nodeNames(g, args) {
					if strings.HasPrefix(n, in) {
						out = append(out, n)
					}
				}
				return out, cobra.ShellCompDirectiveNoFileComp
			}
		case "bench":
			for _, sub := range c.Commands() {
				if sub.Name() == "study" {
					sub.RegisterFlagCompletionFunc("matrix", tomlFiles)
				}
			}
		}
	}
}

// fixed completes a flag with a fixed list of values ("value\tdescription").
func fixed(vals ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return vals, cobra.ShellCompDirectiveNoFileComp
	}
}

// nodeNames lists the inventory's sites, clusters and hosts, in that order,
// leaving out those already given; nothing when the inventory does not load.
func nodeNames(g *globalFlags, given []string) []string {
	inv, err := deploy.Load(g.sites)
	if err != nil {
		return nil
	}
	var sites, clusters, hosts []string
	for _, s := range inv.Sites {
		sites = append(sites, s.Name)
		for _, c := range s.Clusters {
			clusters = append(clusters, c.Name)
			for _, h := range c.Hosts {
				hosts = append(hosts, h.Name)
			}
		}
	}
	var out []string
	for _, n := range slices.Concat(sites, clusters, hosts) {
		if !slices.Contains(given, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
