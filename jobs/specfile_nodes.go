package jobs

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gridtui/gridtui/internal/tomlfile"
)

// ErrEmptySelection is wrapped by the errors of a node selection that
// names no host of the inventory (sites and clusters with no host in common,
// or an inventory with no hosts).
var ErrEmptySelection = errors.New("jobs: nodes: empty selection")

// ErrUnknownName is matched by the errors of a node selection that names a
// site, cluster or host the inventory does not have.
var ErrUnknownName = errors.New("jobs: nodes: name not in the inventory")

// unknownName reads as its own message and matches ErrUnknownName; key is
// the job-file key that names it (nodes.clusters).
type unknownName struct{ msg, key string }

func (e unknownName) Error() string        { return e.msg }
func (e unknownName) Is(target error) bool { return target == ErrUnknownName }

// NodeRef is one inventory host as a node selection sees it.
type NodeRef struct {
	Name, Cluster, Site string
}

// Mixed reports whether the selection names hosts together with sites or
// clusters: Resolve takes the union of both.
func (n NodeSelection) Mixed() bool {
	return len(n.Hosts) > 0 && (len(n.Clusters) > 0 || len(n.Sites) > 0)
}

// flatten is Resolve of a selection that names hosts, as a selection of
// hosts only; a selection of sites and clusters only is returned unchanged.
func (n NodeSelection) flatten(inv []NodeRef, source string) (NodeSelection, error) {
	switch {
	case len(n.Hosts) == 0:
		return n, nil
	case !n.Mixed():
		if n.Any == 0 {
			return n, nil
		}
		return n.cut(slices.Clone(n.Hosts), source)
	}
	if err := n.known(inv, source); err != nil {
		return n, err
	}
	group, err := n.group(inv, source)
	if err != nil {
		return n, err
	}
	var out []string
	for _, r := range inv {
		if (slices.Contains(group, r.Name) || slices.Contains(n.Hosts, r.Name)) && !slices.Contains(out, r.Name) {
			out = append(out, r.Name)
		}
	}
	return n.cut(out, source)
}

// Resolve is the one resolver of node selections: it returns the hosts of
// inv (the inventory's hosts, or those with a live worker, in the order
// ranks are filled) that the selection takes, in rank order. A selection of
// hosts only keeps their order; a Mixed one is the union of its sites' and
// clusters' hosts and its named hosts, in inventory order without
// duplicates; else the hosts of the named sites and clusters (both must
// match when both are given; neither named means every host), in inventory
// order. Any keeps the first Any. source names the inventory in errors; a
// name not in inv matches ErrUnknownName, a selection that names no host
// wraps ErrEmptySelection. The engine plans with it, and the console's
// Compose view shows what it gives.
func (n NodeSelection) Resolve(inv []NodeRef, source string) ([]string, error) {
	if err := n.known(inv, source); err != nil {
		return nil, err
	}
	if len(n.Hosts) > 0 {
		f, err := n.flatten(inv, source)
		return f.Hosts, err
	}
	group, err := n.group(inv, source)
	if err != nil {
		return nil, err
	}
	f, err := n.cut(group, source)
	return f.Hosts, err
}

// known checks that every site, cluster and host the selection names is in
// the inventory.
func (n NodeSelection) known(inv []NodeRef, source string) error {
	check := func(names []string, field func(NodeRef) string, what string) error {
		for _, name := range names {
			if !slices.ContainsFunc(inv, func(r NodeRef) bool { return field(r) == name }) {
				return unknownName{fmt.Sprintf("jobs: nodes: %s %q is not in %s", what, name, source), "nodes." + what + "s"}
			}
		}
		return nil
	}
	if err := check(n.Hosts, func(r NodeRef) string { return r.Name }, "host"); err != nil {
		return err
	}
	if err := check(n.Clusters, func(r NodeRef) string { return r.Cluster }, "cluster"); err != nil {
		return err
	}
	return check(n.Sites, func(r NodeRef) string { return r.Site }, "site")
}

// CheckSelectionIn checks the node selection of a job read from file
// against an inventory (refs, named source) as the engine will: a site,
// cluster or host the inventory does not have is an error at its key in
// the file (file:line:col), like the file's other mistakes. A job with
// groups is left to the engine, which checks their hosts.
func (s Spec) CheckSelectionIn(file string, refs []NodeRef, source string) error {
	if len(s.Groups) > 0 {
		return nil
	}
	_, err := s.Nodes.Resolve(refs, source)
	var un unknownName
	if !errors.As(err, &un) {
		return nil // the engine reports the rest, with the live nodes
	}
	data, rerr := os.ReadFile(file)
	if rerr != nil {
		return err
	}
	return keyError(file, data, un.key, strings.TrimPrefix(un.msg, "jobs: "))
}

// group returns, in inventory order, the hosts of the named clusters and
// sites: the intersection when both are named, every host when neither is.
// Named sites and clusters that share no host are an error wrapping
// ErrEmptySelection.
func (n NodeSelection) group(inv []NodeRef, source string) ([]string, error) {
	var out []string
	for _, r := range inv {
		if (len(n.Clusters) == 0 || slices.Contains(n.Clusters, r.Cluster)) &&
			(len(n.Sites) == 0 || slices.Contains(n.Sites, r.Site)) {
			out = append(out, r.Name)
		}
	}
	switch {
	case len(out) > 0:
		return out, nil
	case len(n.Sites) > 0 && len(n.Clusters) > 0:
		return nil, fmt.Errorf("%w: sites %s and clusters %s have no host in common in %s (naming both takes the hosts in both)",
			ErrEmptySelection, strings.Join(n.Sites, ", "), strings.Join(n.Clusters, ", "), source)
	}
	return nil, fmt.Errorf("%w: %s lists no hosts", ErrEmptySelection, source)
}

// cut returns the selection of hosts, the first Any of them when Any is set.
func (n NodeSelection) cut(hosts []string, source string) (NodeSelection, error) {
	if n.Any > len(hosts) {
		return n, fmt.Errorf("jobs: nodes: any = %d, but the selection holds only %d hosts of %s", n.Any, len(hosts), source)
	}
	if n.Any > 0 {
		hosts = hosts[:n.Any]
	}
	return NodeSelection{Hosts: hosts}, nil
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
// become the default: max_iterations and wall_time (an application's
// parameters are checked against its declarations).
func explicitZeros(file string, data []byte, s Spec) []error {
	var errs []error
	if s.MaxIter == 0 && tomlfile.Written(data, "max_iterations") {
		errs = append(errs, keyError(file, data, "max_iterations", "max_iterations = 0 must be at least 1 (leave it out for the default)"))
	}
	if s.WallTime == 0 && tomlfile.Written(data, "wall_time") {
		errs = append(errs, keyError(file, data, "wall_time", fmt.Sprintf("wall_time %q must be positive (leave it out for the default)", s.WallTime.String())))
	}
	return errs
}
