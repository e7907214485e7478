package jobs

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The one place of node selections: ParseNodes reads one as typed on the
// command line, Picks builds one from the console's ticked hosts, Describe
// says how one reads, and Resolve (specfile_nodes.go) turns one into the
// hosts of a job in rank order. The CLI, the console, job files and the
// submitter all go through these.

// ErrBadNodes is wrapped by ParseNodes' errors: a count below 1, a name
// listed twice, a name the inventory lacks or a node set that does not
// expand.
var ErrBadNodes = errors.New("jobs: nodes")

// ParseNodes reads a node selection as the command line types it (--nodes):
// a count (any N of the live workers), or a comma-separated list of sites,
// clusters and hosts of inv (named source in errors), hosts possibly given
// as a node set ("alpha-[1-2],beta") that expand expands (nil: no node
// sets). Hosts win over clusters and clusters over sites when a name is
// both.
func ParseNodes(s string, inv []NodeRef, source string, expand func(string) ([]string, error)) (NodeSelection, error) {
	var sel NodeSelection
	if k, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		if k < 1 {
			return sel, fmt.Errorf("%w %d: want at least 1", ErrBadNodes, k)
		}
		sel.Any = k
		return sel, nil
	}
	toks := strings.Split(s, ",")
	if strings.Contains(s, "[") && expand != nil {
		set, err := expand(s)
		if err != nil {
			return sel, fmt.Errorf("%w: %w", ErrBadNodes, err)
		}
		toks = set
	}
	has := func(field func(NodeRef) string, name string) bool {
		return slices.ContainsFunc(inv, func(r NodeRef) bool { return field(r) == name })
	}
	seen := map[string]bool{}
	for _, tok := range toks {
		tok = strings.TrimSpace(tok)
		if seen[tok] && tok != "" {
			return sel, fmt.Errorf("%w: %s is listed twice", ErrBadNodes, tok)
		}
		seen[tok] = true
		switch {
		case tok == "":
		case has(func(r NodeRef) string { return r.Name }, tok):
			sel.Hosts = append(sel.Hosts, tok)
		case has(func(r NodeRef) string { return r.Cluster }, tok):
			sel.Clusters = append(sel.Clusters, tok)
		case has(func(r NodeRef) string { return r.Site }, tok):
			sel.Sites = append(sel.Sites, tok)
		default:
			return sel, fmt.Errorf("%w: %q is no site, cluster or host of %s", ErrBadNodes, tok, source)
		}
	}
	return sel, nil
}

// Describe says how the selection reads: sites and clusters intersect
// ("sites a ∩ clusters b"), hosts are added ("+ hosts h"), Any takes the
// first N; "every host" when it names nothing.
func (n NodeSelection) Describe() string {
	var group, parts []string
	if len(n.Sites) > 0 {
		group = append(group, "sites "+strings.Join(n.Sites, ","))
	}
	if len(n.Clusters) > 0 {
		group = append(group, "clusters "+strings.Join(n.Clusters, ","))
	}
	if len(group) > 0 {
		parts = append(parts, strings.Join(group, " ∩ "))
	}
	if len(n.Hosts) > 0 {
		parts = append(parts, "hosts "+strings.Join(n.Hosts, ","))
	}
	rule := strings.Join(parts, " + ")
	if rule == "" {
		rule = "every host"
	}
	if n.Any > 0 {
		rule += fmt.Sprintf(", the first %d", n.Any)
	}
	return rule
}

// Picks are the hosts a console ticked: Picked by name, Order their rank
// order when it is not the inventory's (a loaded job file's hosts), Take
// the "first N" cut (0: all).
type Picks struct {
	Picked map[string]bool
	Order  []string
	Take   int
}

// Hosts returns the picked hosts of inv in rank order: inventory order, or
// Order, the first Take of them when Take is set.
func (p Picks) Hosts(inv []NodeRef) []string {
	var out []string
	for _, r := range inv {
		if p.Picked[r.Name] {
			out = append(out, r.Name)
		}
	}
	if p.Order != nil {
		in := make(map[string]bool, len(out))
		for _, n := range out {
			in[n] = true
		}
		out = slices.DeleteFunc(slices.Clone(p.Order), func(n string) bool { return !in[n] })
	}
	if p.Take > 0 && p.Take < len(out) {
		out = out[:p.Take]
	}
	return out
}

// Selection turns the picks into a node selection: whole clusters by name
// when every picked host belongs to a fully picked cluster (then Take is
// its Any), else the hosts by name in rank order (Hosts). It never mixes
// clusters and hosts, so a job file written from it means the same to
// every reader.
func (p Picks) Selection(inv []NodeRef) NodeSelection {
	var sel NodeSelection
	partial := p.Order != nil // hosts by name keep their rank order
	var clusters []string
	for _, r := range inv {
		if !slices.Contains(clusters, r.Cluster) {
			clusters = append(clusters, r.Cluster)
		}
	}
	for _, c := range clusters {
		all, any := true, false
		for _, r := range inv {
			if r.Cluster == c {
				all = all && p.Picked[r.Name]
				any = any || p.Picked[r.Name]
			}
		}
		switch {
		case all:
			sel.Clusters = append(sel.Clusters, c)
		case any:
			partial = true
		}
	}
	if !partial {
		sel.Any = p.Take
		return sel
	}
	return NodeSelection{Hosts: p.Hosts(inv)}
}
