package jobs

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// testRefs is a small inventory: site s1 with clusters alpha (2 hosts) and
// beta (2 hosts).
var testRefs = []NodeRef{
	{Name: "alpha-1", Cluster: "alpha", Site: "s1"}, {Name: "alpha-2", Cluster: "alpha", Site: "s1"},
	{Name: "beta-1", Cluster: "beta", Site: "s1"}, {Name: "beta-2", Cluster: "beta", Site: "s1"},
}

func expandTest(s string) ([]string, error) {
	if s == "alpha-[1-2],beta" {
		return []string{"alpha-1", "alpha-2", "beta"}, nil
	}
	return nil, fmt.Errorf("bad node set %q", s)
}

func TestParseNodes(t *testing.T) {
	tests := map[string]struct {
		in   string
		want string // fmt of the selection, or "error"
	}{
		"count":    {"4", "{[] [] [] 4}"},
		"clusters": {"alpha, beta", "{[] [alpha beta] [] 0}"},
		"hosts":    {"alpha-1,beta-2", "{[] [] [alpha-1 beta-2] 0}"},
		"site":     {"s1", "{[s1] [] [] 0}"},
		"unknown":  {"gamma", "error"},
		"zero":     {"0", "error"},
		"twice":    {"alpha,alpha", "error"},
		"mixed":    {"alpha,beta-1", "{[] [alpha] [beta-1] 0}"},
		"node set": {"alpha-[1-2],beta", "{[] [beta] [alpha-1 alpha-2] 0}"},
		"bad set":  {"alpha-[2-1]", "error"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			sel, err := ParseNodes(tc.in, testRefs, "test.toml", expandTest)
			got := "error"
			if err == nil {
				got = fmt.Sprint(sel)
			} else if !errors.Is(err, ErrBadNodes) {
				t.Errorf("error %v does not match ErrBadNodes", err)
			}
			if got != tc.want {
				t.Errorf("ParseNodes(%q) = %s (%v), want %s", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestPicksSelection(t *testing.T) {
	picked := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	tests := map[string]struct {
		picks     Picks
		sel, rank string
	}{
		"whole cluster":  {Picks{Picked: picked("beta-1", "beta-2"), Take: 1}, "{[] [beta] [] 1}", "beta-1"},
		"every cluster":  {Picks{Picked: picked("alpha-1", "alpha-2", "beta-1", "beta-2")}, "{[] [alpha beta] [] 0}", "alpha-1 alpha-2 beta-1 beta-2"},
		"part":           {Picks{Picked: picked("alpha-1", "beta-2")}, "{[] [] [alpha-1 beta-2] 0}", "alpha-1 beta-2"},
		"part, first 1":  {Picks{Picked: picked("alpha-1", "beta-2"), Take: 1}, "{[] [] [alpha-1] 0}", "alpha-1"},
		"ordered":        {Picks{Picked: picked("beta-1", "beta-2"), Order: []string{"beta-2", "gone", "beta-1"}}, "{[] [] [beta-2 beta-1] 0}", "beta-2 beta-1"},
		"nothing picked": {Picks{}, "{[] [] [] 0}", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := fmt.Sprint(tc.picks.Selection(testRefs)); got != tc.sel {
				t.Errorf("Selection = %s, want %s", got, tc.sel)
			}
			if got := strings.Join(tc.picks.Hosts(testRefs), " "); got != tc.rank {
				t.Errorf("Hosts = %q, want %q", got, tc.rank)
			}
			// What the console writes resolves to what it showed.
			sel := tc.picks.Selection(testRefs)
			if sel.Any == 0 && len(sel.Hosts)+len(sel.Clusters) == 0 {
				return
			}
			hosts, err := sel.Resolve(testRefs, "test")
			if err != nil || strings.Join(hosts, " ") != tc.rank {
				t.Errorf("Resolve(Selection) = %v (%v), want %q", hosts, err, tc.rank)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	tests := map[string]struct {
		sel  NodeSelection
		want string
	}{
		"nothing":   {NodeSelection{}, "every host"},
		"any":       {NodeSelection{Any: 3}, "every host, the first 3"},
		"intersect": {NodeSelection{Sites: []string{"s1"}, Clusters: []string{"alpha", "beta"}}, "sites s1 ∩ clusters alpha,beta"},
		"mixed":     {NodeSelection{Clusters: []string{"alpha"}, Hosts: []string{"beta-1"}, Any: 2}, "clusters alpha + hosts beta-1, the first 2"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.sel.Describe(); got != tc.want {
				t.Errorf("Describe = %q, want %q", got, tc.want)
			}
		})
	}
}
