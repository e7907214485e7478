package engine

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
)

// ErrPlan is wrapped by every planning error (not enough nodes, n too small
// for the split, a group naming an unknown node…).
var ErrPlan = errors.New("engine: cannot plan job")

// Plan is what runs where: one rank per node with its part of the
// application's task, the groups and their coordinators, and the network of
// each neighbour pair of the task's graph.
type Plan struct {
	Ranks  []string // node name per rank
	Cores  []int    // cores per rank
	Groups []jobs.Group
	// Levels is the control hierarchy (see Levels): Levels[0] is Groups,
	// each further level the coordinators of coordinators above it.
	Levels [][]jobs.Group
	// App, Values and Task are the job's application, its parameters and
	// the task it defined for these nodes (GRIDHPC Fig. 4, task definition).
	App    gridapp.Application
	Values gridapp.Values
	Task   gridapp.Task
	// Edges are the neighbour pairs of the task's graph, lower rank first,
	// ordered by it (a chain's are ranks i and i+1, in order). Routes[e] is
	// the chosen (best) route of edge e; Candidates[e] lists it and its
	// fallbacks, which the workers try in order.
	Edges      [][2]int
	Routes     []probe.Route
	Candidates [][]probe.Route
	// Modes[e] is the link mode of edge e: hybrid is synchronous inside a
	// cluster and asynchronous between clusters.
	Modes    []rmnp.Mode
	Warnings []string
	Htable   *probe.Htable
}

// GroupOf returns the group index of rank r.
func (p *Plan) GroupOf(r int) int {
	for gi, g := range p.Groups {
		if slices.Contains(g.Workers, p.Ranks[r]) {
			return gi
		}
	}
	return -1
}

func planErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrPlan}, args...)...)
}

// PlanJob chooses the job's nodes among the free ones (those with a live
// worker), checks there are enough (GRIDHPC Sec. V-B, step 3: before
// anything starts), splits the grid, forms the groups (by cluster, at most
// 32 each, the first node coordinating, unless the job names them) and
// chooses each neighbour pair's network (Algorithm 1). The spec is admitted
// first, as Run admits it.
func PlanJob(spec jobs.Spec, inv *inventory.Inventory, nodes []probe.Node) (*Plan, error) {
	spec, err := admit(spec, inv)
	if err != nil {
		return nil, err
	}
	return planJob(spec, inv, nodes)
}

// admit is where a job spec enters the engine, through Run or PlanJob: it
// fills the defaults, validates the spec, and refuses a node selection that
// names a site, cluster or host not in the inventory (jobs.ErrUnknownName)
// or whose sites and clusters share no host (jobs.ErrEmptySelection), as the
// console's Compose view refuses them, before any worker starts. Everything
// after trusts the spec it returns.
func admit(spec jobs.Spec, inv *inventory.Inventory) (jobs.Spec, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return spec, err
	}
	if wd, err := os.Getwd(); err == nil {
		// A file parameter given relative (--param, Compose) is relative to
		// the submitter: the workers get its absolute path.
		spec = spec.AbsPaths(wd)
	}
	if inv != nil && len(spec.Groups) == 0 {
		_, err := spec.Nodes.Resolve(grid.Refs(inv), inv.Source)
		if errors.Is(err, jobs.ErrUnknownName) || errors.Is(err, jobs.ErrEmptySelection) {
			return spec, selectionError{err}
		}
	}
	return spec, nil
}

// selectionError reads as the jobs error that refused a node selection
// while matching ErrPlan too.
type selectionError struct{ err error }

func (e selectionError) Error() string   { return e.err.Error() }
func (e selectionError) Unwrap() []error { return []error{ErrPlan, e.err} }

// planJob is PlanJob for an admitted spec.
func planJob(spec jobs.Spec, inv *inventory.Inventory, nodes []probe.Node) (*Plan, error) {
	free := map[string]probe.Node{}
	for _, n := range nodes {
		free[n.Name] = n
	}
	names, err := selectNodes(spec, inv, nodes)
	if err != nil {
		return nil, err
	}
	p := &Plan{Ranks: names}
	if err := p.planCores(spec, inv); err != nil {
		return nil, err
	}
	ids := map[rmnp.PeerID]string{}
	sel := make([]probe.Node, len(names))
	for i, name := range names {
		if other, dup := ids[worker.NodeID(name)]; dup {
			return nil, planErr("node names %s and %s hash to the same peer id; rename one", other, name)
		}
		ids[worker.NodeID(name)] = name
		sel[i] = free[name]
	}
	loc := localityOf(inv)
	if p.Htable, err = probe.NewHtable(sel, loc); err != nil {
		return nil, planErr("%w", err)
	}
	if err := p.planGroups(spec, sel); err != nil {
		return nil, err
	}
	p.Levels = worker.Levels(p.Groups)
	if err := p.planTask(spec, sel); err != nil {
		return nil, err
	}
	if err := p.planRoutes(spec, sel, loc); err != nil {
		return p, err
	}
	return p, p.checkScheme(spec)
}

// checkScheme lets an application refuse the links' modes its method is not
// known to converge under (gridapp.SchemeChecker).
func (p *Plan) checkScheme(spec jobs.Spec) (err error) {
	c, ok := p.App.(gridapp.SchemeChecker)
	if !ok {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = planErr("application %s: panic in CheckScheme: %v", spec.App, r)
		}
	}()
	if err := c.CheckScheme(p.Values, p.Task, slices.Contains(p.Modes, rmnp.Async)); err != nil {
		return planErr("application %s: %w", spec.App, err)
	}
	return nil
}

// planTask is "task definition" (GRIDHPC Fig. 4): the application splits
// its problem over the chosen nodes and says which parts neighbour which.
func (p *Plan) planTask(spec jobs.Spec, sel []probe.Node) (err error) {
	if p.App, p.Values, err = spec.Application(); err != nil {
		return planErr("%w", err)
	}
	nodes := make([]gridapp.Node, len(sel))
	for i, n := range sel {
		nodes[i] = gridapp.Node{Name: n.Name, Cluster: n.Cluster, Cores: p.Cores[i]}
	}
	defer func() {
		if r := recover(); r != nil {
			err = planErr("application %s: panic in Define: %v", spec.App, r)
		}
	}()
	if p.Task, err = p.App.Define(p.Values, nodes); err != nil {
		return planErr("application %s: %w", spec.App, err)
	}
	if len(p.Task.Parts) != len(nodes) {
		return planErr("application %s defined %d parts for %d nodes", spec.App, len(p.Task.Parts), len(nodes))
	}
	if err := gridapp.CheckGraph(p.Task.Parts); err != nil {
		return planErr("application %s: %w", spec.App, err)
	}
	for a, ps := range p.Task.Parts {
		for _, b := range ps.Neighbours {
			if a < b {
				p.Edges = append(p.Edges, [2]int{a, b})
			}
		}
	}
	return nil
}

func localityOf(inv *inventory.Inventory) probe.Locality {
	if inv == nil {
		return probe.Locality{}
	}
	return inv.Locality
}

// selectNodes returns the job's nodes in rank order: the groups' workers in
// order when the job names groups, else the job's node selection resolved
// among the free nodes, in their order (jobs.NodeSelection.Resolve, the one
// resolver of selections: sites and clusters intersect, named hosts keep
// their order and are added once, any takes the first N). Hosts the job
// names must be in the inventory and have a live worker.
func selectNodes(spec jobs.Spec, inv *inventory.Inventory, nodes []probe.Node) ([]string, error) {
	inInventory := map[string]bool{}
	for _, r := range grid.Refs(inv) {
		inInventory[r.Name] = true
	}
	free := grid.RefsOf(inv, nodes)
	isFree := map[string]bool{}
	for _, r := range free {
		isFree[r.Name] = true
	}
	want := spec.Nodes.Hosts
	if len(spec.Groups) > 0 {
		want = nil
		for _, g := range spec.Groups {
			want = append(want, g.Workers...)
		}
	}
	var missing, unknown []string
	for _, w := range want {
		if !isFree[w] {
			if inv != nil && !inInventory[w] {
				unknown = append(unknown, w)
			} else {
				missing = append(missing, w)
			}
		}
	}
	if len(unknown) > 0 {
		return nil, planErr("%s named by the job %s not in the inventory %s (hosts: %s)",
			strings.Join(unknown, ", "), plural(len(unknown), "is", "are"), inv.Source, nodeList(nodes))
	}
	if len(missing) > 0 {
		return nil, planErr("not enough nodes: %s named by the job %s no live worker (free: %s)",
			strings.Join(missing, ", "), plural(len(missing), "has", "have"), nodeList(nodes))
	}
	if len(spec.Groups) > 0 {
		return want, nil
	}
	source := "the free nodes"
	if inv != nil {
		source = inv.Source
	}
	names, err := resolveFree(spec.Nodes, inv, free, source)
	if err != nil {
		all := spec.Nodes
		all.Any = 0
		match, _ := all.Resolve(free, source)
		need := spec.Nodes.Any
		if need == 0 {
			need = len(match)
		}
		return nil, planErr("not enough nodes: the job needs %d, only %d free %s match %s (free: %s)",
			max(need, 1), len(match), plural(len(match), "node", "nodes"), spec.Nodes.Describe(), nodeList(nodes))
	}
	return names, nil
}

// resolveFree resolves a selection of sites and clusters among the free
// nodes: the sites and clusters are the inventory's, so one whose hosts have
// no live worker (a run starts only the workers it needs: the first Any of
// "clusters alpha, beta") is no error; Any then takes the first free hosts
// of the selection.
func resolveFree(sel jobs.NodeSelection, inv *inventory.Inventory, free []jobs.NodeRef, source string) ([]string, error) {
	if inv == nil || len(sel.Hosts) > 0 || len(sel.Sites)+len(sel.Clusters) == 0 {
		return sel.Resolve(free, source)
	}
	all := sel
	all.Any = 0
	cand, err := all.Resolve(grid.Refs(inv), source)
	if err != nil {
		return nil, err
	}
	isFree := map[string]bool{}
	for _, r := range free {
		isFree[r.Name] = true
	}
	hosts := slices.DeleteFunc(cand, func(h string) bool { return !isFree[h] })
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%w: no free node among %s", jobs.ErrEmptySelection, sel.Describe())
	}
	return jobs.NodeSelection{Hosts: hosts, Any: sel.Any}.Resolve(free, source)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func nodeList(nodes []probe.Node) string {
	if len(nodes) == 0 {
		return "none"
	}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	return strings.Join(names, ", ")
}

// planCores gives each rank its cores: the job's, or the host's.
func (p *Plan) planCores(spec jobs.Spec, inv *inventory.Inventory) error {
	hostCores := map[string]int{}
	if inv != nil {
		for _, h := range inv.Hosts() {
			hostCores[h.Name] = h.Cores
		}
	}
	p.Cores = make([]int, len(p.Ranks))
	for i, name := range p.Ranks {
		c := spec.Cores
		if c == 0 {
			c = max(hostCores[name], 1)
		}
		if hc := hostCores[name]; hc > 0 && c > hc {
			p.Warnings = append(p.Warnings, fmt.Sprintf("node %s: the job asks %d cores, the inventory gives the host %d: its cores will be oversubscribed", name, c, hc))
		}
		p.Cores[i] = c
	}
	return nil
}

// planGroups keeps the job's groups or forms them by cluster, at most
// MaxGroupSize each, the first node of each coordinating (P2PDC).
func (p *Plan) planGroups(spec jobs.Spec, sel []probe.Node) error {
	if len(spec.Groups) > 0 {
		p.Groups = slices.Clone(spec.Groups)
		return nil
	}
	for i, n := range sel {
		last := len(p.Groups) - 1
		if last < 0 || sel[i-1].Cluster != n.Cluster || len(p.Groups[last].Workers) == jobs.MaxGroupSize {
			if last >= 0 && len(p.Groups[last].Workers) == jobs.MaxGroupSize && sel[i-1].Cluster == n.Cluster {
				p.Warnings = append(p.Warnings, fmt.Sprintf("cluster %s has more than %d nodes: split into several groups", n.Cluster, jobs.MaxGroupSize))
			}
			p.Groups = append(p.Groups, jobs.Group{Coordinator: n.Name})
			last++
		}
		p.Groups[last].Workers = append(p.Groups[last].Workers, n.Name)
	}
	return nil
}

// planRoutes chooses the network and link mode of every neighbour pair.
func (p *Plan) planRoutes(spec jobs.Spec, sel []probe.Node, loc probe.Locality) error {
	for _, e := range p.Edges {
		a, b := sel[e[0]], sel[e[1]]
		c := p.Htable.Candidates(a.Name, b.Name)
		if len(c) == 0 {
			_, err := p.Htable.Route(a.Name, b.Name)
			return planErr("ranks %d (%s) and %d (%s) have no network in common: %v", e[0], a.Name, e[1], b.Name, err)
		}
		mode := rmnp.Sync
		switch spec.Scheme {
		case jobs.Asynchronous:
			mode = rmnp.Async
		case jobs.Hybrid:
			same, _, err := loc.SameCluster(a, b)
			if err != nil {
				return planErr("locality of %s and %s: %w", a.Name, b.Name, err)
			}
			if !same {
				mode = rmnp.Async
			}
		}
		p.Candidates = append(p.Candidates, c)
		p.Routes = append(p.Routes, c[0])
		p.Modes = append(p.Modes, mode)
	}
	return nil
}
