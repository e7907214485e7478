package inventory

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gridtui/gridtui/deploy/sched"
)

// ErrNoSuchHost is returned by SelectHosts for a name that matches nothing.
var ErrNoSuchHost = errors.New("deploy: no such host, cluster or site")

// SelectHosts returns the hosts of inv named by names — each a host, cluster
// or site name, or a node set of them ("graphene-[1-4]") — in inventory
// order without duplicates; no names selects every host.
func SelectHosts(inv *Inventory, names []string) ([]Host, error) {
	if len(names) == 0 {
		return inv.Hosts(), nil
	}
	var expanded []string
	for _, n := range names {
		if !strings.ContainsAny(n, "[,") {
			expanded = append(expanded, n)
			continue
		}
		set, err := sched.ExpandNodeSet(n)
		if err != nil {
			return nil, fmt.Errorf("deploy: %w", err)
		}
		expanded = append(expanded, set...)
	}
	names = expanded
	used := make(map[string]bool, len(names))
	want := func(vals ...string) bool {
		hit := false
		for _, n := range names {
			for _, v := range vals {
				if n == v {
					used[n], hit = true, true
				}
			}
		}
		return hit
	}
	var out []Host
	for _, h := range inv.Hosts() {
		if want(h.Name, h.Cluster, h.Site) {
			out = append(out, h)
		}
	}
	for _, n := range names {
		if !used[n] {
			return nil, fmt.Errorf("%w: %q in %s", ErrNoSuchHost, n, inv.Source)
		}
	}
	return out, nil
}
