package probe

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/gridtui/gridtui/internal/columns"
)

// Htable holds, for every node of a job, its Ethernet addresses and its
// fast-network addresses with their kinds (GRIDHPC Sec. III-B, Table I), and
// answers which network each pair uses. It never looks at the machine it runs
// on: nodes come from worker hellos or from the inventory. An Htable is
// immutable and safe for concurrent use.
type Htable struct {
	loc   Locality
	nodes []Node
	views []view
	index map[string]int
}

// Row is one node's entry in the Htable: the two lines of Table I.
type Row struct {
	Node    string `json:"node"`
	Host    string `json:"host"`
	Cluster string `json:"cluster,omitempty"`
	// Ethernet are the node's Ethernet addresses (NICs that are up).
	Ethernet []netip.Addr `json:"ethernet"`
	// Fast are the node's Infiniband and Myrinet addresses (NICs that are up),
	// best kind first.
	Fast []FastAddr `json:"fast"`
}

// FastAddr is an address on a fast network.
type FastAddr struct {
	Kind Kind       `json:"kind"`
	Addr netip.Addr `json:"addr"`
}

// NewHtable validates the nodes and the locality rule and builds the Htable.
// Node names must be unique; RuleLabel needs every node's Cluster label.
func NewHtable(nodes []Node, loc Locality) (*Htable, error) {
	loc, err := loc.normalize()
	if err != nil {
		return nil, err
	}
	h := &Htable{loc: loc, nodes: make([]Node, len(nodes)), views: make([]view, len(nodes)),
		index: make(map[string]int, len(nodes))}
	for i, n := range nodes {
		if err := n.Validate(); err != nil {
			return nil, err
		}
		if _, dup := h.index[n.Name]; dup {
			return nil, fmt.Errorf("probe: node %s listed twice: %w", n.Name, ErrBadNode)
		}
		if loc.Rule == RuleLabel && n.Cluster == "" {
			return nil, fmt.Errorf("probe: node %s: no cluster label for locality rule %q: %w", n.Name, RuleLabel, ErrBadNode)
		}
		h.index[n.Name] = i
		h.nodes[i] = cloneNode(n)
		h.views[i] = newView(&h.nodes[i])
	}
	return h, nil
}

func cloneNode(n Node) Node {
	n.NICs = slices.Clone(n.NICs)
	for i := range n.NICs {
		n.NICs[i].Addrs = slices.Clone(n.NICs[i].Addrs)
	}
	return n
}

// Locality returns the rule in force, defaults filled in.
func (h *Htable) Locality() Locality { return h.loc }

// Nodes returns a copy of the nodes, in the order given to NewHtable.
func (h *Htable) Nodes() []Node {
	out := make([]Node, len(h.nodes))
	for i, n := range h.nodes {
		out[i] = cloneNode(n)
	}
	return out
}

// Node returns the node named name.
func (h *Htable) Node(name string) (Node, bool) {
	i, ok := h.index[name]
	if !ok {
		return Node{}, false
	}
	return cloneNode(h.nodes[i]), true
}

// Rows returns the Htable's rows, one per node, in node order.
func (h *Htable) Rows() []Row {
	out := make([]Row, 0, len(h.nodes))
	for i, n := range h.nodes {
		v := &h.views[i]
		r := Row{Node: n.Name, Host: n.Host, Cluster: n.Cluster, Ethernet: slices.Clone(v.of(Ethernet))}
		for _, k := range []Kind{Infiniband, Myrinet} {
			for _, a := range v.of(k) {
				r.Fast = append(r.Fast, FastAddr{Kind: k, Addr: a})
			}
		}
		out = append(out, r)
	}
	return out
}

// Route is BestNetwork for the nodes named a and b.
func (h *Htable) Route(a, b string) (Route, error) {
	routes, err := h.candidates(a, b, 1)
	if err != nil {
		return Route{}, err
	}
	return routes[0], nil
}

// Candidates returns the routes a and b may use, best first, then the
// fallbacks; nil when a node is unknown or the pair has no network in common
// (Route says why).
func (h *Htable) Candidates(a, b string) []Route {
	routes, _ := h.candidates(a, b, len(viewKinds)+1)
	return routes
}

func (h *Htable) candidates(a, b string, max int) ([]Route, error) {
	ia, ok := h.index[a]
	if !ok {
		return nil, fmt.Errorf("probe: node %q not in the Htable: %w", a, ErrUnknownNode)
	}
	ib, ok := h.index[b]
	if !ok {
		return nil, fmt.Errorf("probe: node %q not in the Htable: %w", b, ErrUnknownNode)
	}
	return candidates(&h.views[ia], &h.views[ib], h.loc, max)
}

// String renders the Htable as text, one line per node: name, cluster label,
// Ethernet addresses and fast addresses with their kinds ("-" when none).
func (h *Htable) String() string {
	var sb strings.Builder
	tw := columns.NewWriter(&sb, 2)
	fmt.Fprintln(tw, "NODE\tCLUSTER\tETHERNET\tFAST")
	for _, r := range h.Rows() {
		eth := make([]string, len(r.Ethernet))
		for i, a := range r.Ethernet {
			eth[i] = a.String()
		}
		fast := make([]string, len(r.Fast))
		for i, f := range r.Fast {
			fast[i] = fmt.Sprintf("%s %s", f.Kind, f.Addr)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Node, dash(r.Cluster), dash(strings.Join(eth, ", ")), dash(strings.Join(fast, ", ")))
	}
	tw.Flush()
	return sb.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
