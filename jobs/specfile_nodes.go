package jobs

import (
	"fmt"
	"slices"

	"github.com/gridtui/gridtui/internal/tomlfile"
)

// NodeRef is one inventory host as a node selection sees it.
type NodeRef struct {
	Name, Cluster, Site string
}

// Mixed reports whether the selection names hosts together with sites or
// clusters; Flatten turns such a selection into hosts only.
func (n NodeSelection) Mixed() bool {
	return len(n.Hosts) > 0 && (len(n.Clusters) > 0 || len(n.Sites) > 0)
}

// Flatten resolves a selection against the inventory's hosts (in inventory
// order) into one naming hosts only: the union of the hosts in the named
// clusters and sites (both must match when both are given) and the named
// hosts, in inventory order without duplicates, cut to Any when Any is set.
// source names the inventory in errors. A selection that is not Mixed is
// returned unchanged.
func (n NodeSelection) Flatten(inv []NodeRef, source string) (NodeSelection, error) {
	if !n.Mixed() {
		return n, nil
	}
	known := func(names []string, field func(NodeRef) string, what string) error {
		for _, name := range names {
			if !slices.ContainsFunc(inv, func(r NodeRef) bool { return field(r) == name }) {
				return fmt.Errorf("jobs: nodes: %s %q is not in %s", what, name, source)
			}
		}
		return nil
	}
	if err := known(n.Hosts, func(r NodeRef) string { return r.Name }, "host"); err != nil {
		return n, err
	}
	if err := known(n.Clusters, func(r NodeRef) string { return r.Cluster }, "cluster"); err != nil {
		return n, err
	}
	if err := known(n.Sites, func(r NodeRef) string { return r.Site }, "site"); err != nil {
		return n, err
	}
	var out []string
	for _, r := range inv {
		inGroup := (len(n.Clusters) == 0 || slices.Contains(n.Clusters, r.Cluster)) &&
			(len(n.Sites) == 0 || slices.Contains(n.Sites, r.Site))
		if (inGroup || slices.Contains(n.Hosts, r.Name)) && !slices.Contains(out, r.Name) {
			out = append(out, r.Name)
		}
	}
	if n.Any > len(out) {
		return n, fmt.Errorf("jobs: nodes: any = %d, but the selection holds only %d hosts of %s", n.Any, len(out), source)
	}
	if n.Any > 0 {
		out = out[:n.Any]
	}
	return NodeSelection{Hosts: out}, nil
}

// duplicateHost returns the first host named twice in hosts, or "".
func duplicateHost(hosts []string) string {
	seen := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		if seen[h] {
			return h
		}
		seen[h] = true
	}
	return ""
}

// explicitZeros refuses keys a job file sets to 0 where 0 would silently
// become the default: eps, max_iterations and wall_time.
func explicitZeros(file string, data []byte, s Spec) error {
	switch {
	case s.Obstacle.Eps == 0 && tomlfile.Written(data, "obstacle.eps"):
		return keyError(file, data, "obstacle.eps", "obstacle.eps = 0 must be a positive number (leave it out for the default 1e-8)")
	case s.MaxIter == 0 && tomlfile.Written(data, "max_iterations"):
		return keyError(file, data, "max_iterations", "max_iterations = 0 must be at least 1 (leave it out for the default)")
	case s.WallTime == 0 && tomlfile.Written(data, "wall_time"):
		return keyError(file, data, "wall_time", fmt.Sprintf("wall_time %q must be positive (leave it out for the default)", s.WallTime.String()))
	}
	return nil
}
