package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/internal/termsafe"
	"github.com/gridtui/gridtui/jobs"
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
			c.RegisterFlagCompletionFunc("app", appNames)
			c.RegisterFlagCompletionFunc("param", paramNames)
			c.RegisterFlagCompletionFunc("scheme", fixed("sync\tsynchronous iterations", "async\tasynchronous iterations", "hybrid\tsync inside a cluster, async across"))
			c.RegisterFlagCompletionFunc("detector", fixed("tokens\tconvergence tokens (sync)", "activity\tthe activity graph (async, hybrid)", "switch\tAIAC's timed switch to sync"))
		case "predict":
			c.RegisterFlagCompletionFunc("app", appNames)
			c.RegisterFlagCompletionFunc("param", paramNames)
		case "logs":
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, in string) ([]string, cobra.ShellCompDirective) {
				if len(args) == 0 {
					return runIDs(cmd, in)
				}
				return runNodes(cmd, args, in)
			}
		case "results":
			for _, sub := range c.Commands() {
				if sub.Name() == "show" || sub.Name() == "export" {
					sub.ValidArgsFunction = func(cmd *cobra.Command, args []string, in string) ([]string, cobra.ShellCompDirective) {
						if len(args) > 0 {
							return nil, cobra.ShellCompDirectiveNoFileComp
						}
						return runIDs(cmd, in)
					}
				}
			}
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
	inv, err := inventory.Load(g.sites)
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

// appNames completes --app with the registered applications and what each
// is.
func appNames(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, n := range gridapp.Names() {
		desc := ""
		if a, err := gridapp.Lookup(n); err == nil {
			desc = firstLine(a.Info().Summary)
		}
		out = append(out, n+"\t"+desc)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// paramNames completes --param with the chosen application's parameter
// names ("blocks="), their help as description.
func paramNames(cmd *cobra.Command, _ []string, in string) ([]string, cobra.ShellCompDirective) {
	name, _ := cmd.Flags().GetString("app")
	if name == "" {
		name = "obstacle"
	}
	app, err := gridapp.Lookup(name)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, p := range app.Params() {
		if strings.HasPrefix(p.Name+"=", in) {
			out = append(out, p.Name+"=\t"+p.Help)
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// runIDs completes a run id from the results store, newest first, each with
// its application and outcome.
func runIDs(cmd *cobra.Command, in string) ([]string, cobra.ShellCompDirective) {
	dataDir, _ := cmd.Flags().GetString("data-dir")
	dir, err := jobs.DataDir(dataDir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	res, err := jobs.Load(dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for i := len(res.Records) - 1; i >= 0; i-- {
		r := res.Records[i]
		if strings.HasPrefix(r.ID, in) {
			out = append(out, r.ID+"\t"+termsafe.Line(r.Job.Instance().String()+", "+r.Outcome))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// runNodes completes the nodes of the run args[0] names.
func runNodes(cmd *cobra.Command, args []string, in string) ([]string, cobra.ShellCompDirective) {
	dataDir, _ := cmd.Flags().GetString("data-dir")
	dir, err := jobs.DataDir(dataDir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	res, err := jobs.Load(dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, r := range res.Records {
		if r.ID != args[0] {
			continue
		}
		for _, n := range r.Nodes {
			if strings.HasPrefix(n.Name, in) && !slices.Contains(args[1:], n.Name) {
				out = append(out, n.Name)
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
