package jobs

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// twoSites is an inventory of two sites: east with clusters alpha and beta,
// west with cluster gamma, three hosts each, in inventory order.
func twoSites() []NodeRef {
	var inv []NodeRef
	for _, c := range []struct{ site, cluster string }{{"east", "alpha"}, {"east", "beta"}, {"west", "gamma"}} {
		for _, i := range []string{"1", "2", "3"} {
			inv = append(inv, NodeRef{Name: c.cluster + "-" + i, Cluster: c.cluster, Site: c.site})
		}
	}
	return inv
}

func TestNodeSelectionResolve(t *testing.T) {
	alpha := []string{"alpha-1", "alpha-2", "alpha-3"}
	east := append(slices.Clone(alpha), "beta-1", "beta-2", "beta-3")
	tests := map[string]struct {
		sel  NodeSelection
		want []string
		err  string // substring of the error, "" for none
	}{
		"nothing named: every host":     {sel: NodeSelection{}, want: append(slices.Clone(east), "gamma-1", "gamma-2", "gamma-3")},
		"any alone":                     {sel: NodeSelection{Any: 4}, want: append(slices.Clone(alpha), "beta-1")},
		"cluster":                       {sel: NodeSelection{Clusters: []string{"beta"}}, want: []string{"beta-1", "beta-2", "beta-3"}},
		"clusters in inventory order":   {sel: NodeSelection{Clusters: []string{"gamma", "alpha"}}, want: append(slices.Clone(alpha), "gamma-1", "gamma-2", "gamma-3")},
		"site":                          {sel: NodeSelection{Sites: []string{"east"}}, want: east},
		"site and cluster intersect":    {sel: NodeSelection{Sites: []string{"east"}, Clusters: []string{"alpha", "gamma"}}, want: alpha},
		"site and cluster share none":   {sel: NodeSelection{Sites: []string{"west"}, Clusters: []string{"alpha"}}, err: "sites west and clusters alpha have no host in common in two.toml"},
		"hosts keep their order":        {sel: NodeSelection{Hosts: []string{"gamma-2", "alpha-1"}}, want: []string{"gamma-2", "alpha-1"}},
		"hosts cut to any":              {sel: NodeSelection{Hosts: []string{"gamma-2", "alpha-1", "beta-3"}, Any: 2}, want: []string{"gamma-2", "alpha-1"}},
		"hosts fewer than any":          {sel: NodeSelection{Hosts: []string{"gamma-2"}, Any: 2}, err: "any = 2, but the selection holds only 1 hosts"},
		"cluster and hosts: union":      {sel: NodeSelection{Clusters: []string{"alpha"}, Hosts: []string{"gamma-1", "beta-2"}}, want: append(slices.Clone(alpha), "beta-2", "gamma-1")},
		"host inside the cluster: once": {sel: NodeSelection{Clusters: []string{"alpha"}, Hosts: []string{"alpha-2"}}, want: alpha},
		"mixed cut to any":              {sel: NodeSelection{Clusters: []string{"alpha"}, Hosts: []string{"beta-1"}, Any: 2}, want: []string{"alpha-1", "alpha-2"}},
		"sites, clusters and hosts":     {sel: NodeSelection{Sites: []string{"east"}, Clusters: []string{"alpha"}, Hosts: []string{"gamma-3"}}, want: append(slices.Clone(alpha), "gamma-3")},
		"mixed, groups share none":      {sel: NodeSelection{Sites: []string{"west"}, Clusters: []string{"alpha"}, Hosts: []string{"beta-1"}}, err: "no host in common"},
		"site and host":                 {sel: NodeSelection{Sites: []string{"west"}, Hosts: []string{"alpha-3"}}, want: []string{"alpha-3", "gamma-1", "gamma-2", "gamma-3"}},
		"any above the cluster":         {sel: NodeSelection{Clusters: []string{"beta"}, Any: 4}, err: "any = 4, but the selection holds only 3 hosts of two.toml"},
		"unknown cluster":               {sel: NodeSelection{Clusters: []string{"delta"}}, err: `cluster "delta" is not in two.toml`},
		"unknown host":                  {sel: NodeSelection{Hosts: []string{"alpha-9"}}, err: `host "alpha-9" is not in two.toml`},
		"unknown site in a mixed one":   {sel: NodeSelection{Sites: []string{"north"}, Hosts: []string{"alpha-1"}}, err: `site "north" is not in two.toml`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := tc.sel.Resolve(twoSites(), "two.toml")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Resolve(%+v) = %v, %v; want an error with %q", tc.sel, got, err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("Resolve(%+v) = %v, %v; want %v", tc.sel, got, err, tc.want)
			}
		})
	}
}

func TestNodeSelectionFlatten(t *testing.T) {
	tests := map[string]struct {
		sel  NodeSelection
		want NodeSelection
	}{
		// The engine chooses among the live workers: left to it.
		"clusters only":         {sel: NodeSelection{Clusters: []string{"alpha"}, Any: 2}, want: NodeSelection{Clusters: []string{"alpha"}, Any: 2}},
		"sites and clusters":    {sel: NodeSelection{Sites: []string{"east"}, Clusters: []string{"beta"}}, want: NodeSelection{Sites: []string{"east"}, Clusters: []string{"beta"}}},
		"hosts only, unchanged": {sel: NodeSelection{Hosts: []string{"beta-1", "alpha-1"}}, want: NodeSelection{Hosts: []string{"beta-1", "alpha-1"}}},
		"hosts only, any":       {sel: NodeSelection{Hosts: []string{"beta-1", "alpha-1"}, Any: 1}, want: NodeSelection{Hosts: []string{"beta-1"}}},
		"mixed":                 {sel: NodeSelection{Sites: []string{"east"}, Clusters: []string{"beta"}, Hosts: []string{"gamma-1", "beta-2"}}, want: NodeSelection{Hosts: []string{"beta-1", "beta-2", "beta-3", "gamma-1"}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := tc.sel.flatten(twoSites(), "two.toml")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Sites, tc.want.Sites) || !slices.Equal(got.Clusters, tc.want.Clusters) ||
				!slices.Equal(got.Hosts, tc.want.Hosts) || got.Any != tc.want.Any {
				t.Errorf("flatten(%+v) = %+v, want %+v", tc.sel, got, tc.want)
			}
		})
	}
	_, err := NodeSelection{Sites: []string{"west"}, Clusters: []string{"beta"}, Hosts: []string{"alpha-1"}}.flatten(twoSites(), "two.toml")
	if !errors.Is(err, ErrEmptySelection) {
		t.Errorf("mixed selection whose sites and clusters share no host: %v, want ErrEmptySelection", err)
	}
	if _, err := (NodeSelection{}).Resolve(nil, "empty.toml"); !errors.Is(err, ErrEmptySelection) || !strings.Contains(err.Error(), "empty.toml lists no hosts") {
		t.Errorf("empty inventory: %v, want ErrEmptySelection naming the file", err)
	}
}
