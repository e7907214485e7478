package study

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

// Run is one run of a study: a job and the grid configuration it belongs to.
type Run struct {
	// Index counts the runs from 0 in the order they are run.
	Index int
	// Grid is the grid configuration's label (jobs.GridLabel).
	Grid string
	// Single marks the 1 node × 1 core runs that give t1.
	Single bool
	Spec   jobs.Spec
}

// Skip is a combination of the matrix that cannot run on the inventory
// (shown as "-" in the tables, as in the paper).
type Skip struct {
	N, Nodes, Cores int
	Grid            string
	Reason          string
}

// ErrInventory is wrapped when a matrix names clusters the inventory lacks.
var ErrInventory = errors.New("study: matrix does not fit the inventory")

// Plan lists the runs of m on inv, in the order they run: for each size
// (ascending as written), first the single-node runs (1 node × 1 core,
// synchronous, on the first host of the first grid's first cluster), then
// for each grid configuration, node count and cores per node, the schemes
// one after the other, Repeats times, so that the schemes of one
// configuration are measured close together in time. A k-node run on a grid
// of several clusters takes k/len(clusters) nodes from each (the first ones
// get the remainder), in inventory order, so the ranks of one cluster are
// contiguous and only one neighbour pair crosses each inter-cluster link, as
// in GRIDHPC's decomposition.
func Plan(m Matrix, inv *inventory.Inventory) ([]Run, []Skip, error) {
	byCluster := map[string][]inventory.Host{}
	for _, h := range inv.Hosts() {
		byCluster[h.Cluster] = append(byCluster[h.Cluster], h)
	}
	for _, g := range m.Grids {
		for _, c := range g.Clusters {
			if len(byCluster[c]) == 0 {
				return nil, nil, fmt.Errorf("%w: cluster %q of grid %s has no host in %s", ErrInventory, c, g.Label(), inv.Source)
			}
		}
	}
	var runs []Run
	var skips []Skip
	add := func(r Run) {
		r.Index = len(runs)
		runs = append(runs, r)
	}
	first := byCluster[m.Grids[0].Clusters[0]][0]
	for _, n := range m.Sizes {
		for range m.SingleRepeats {
			add(Run{Grid: first.Cluster, Single: true,
				Spec: m.spec(n, first.Cluster, jobs.Synchronous, 1, []string{first.Name})})
		}
		for _, g := range m.Grids {
			for _, k := range m.Nodes {
				if k == 1 {
					continue
				}
				hosts, why := pickHosts(g, byCluster, k)
				if why == "" && n < k {
					why = fmt.Sprintf("n = %d is too small to split over %d nodes", n, k)
				}
				for _, c := range m.Cores {
					if why != "" {
						skips = append(skips, Skip{N: n, Nodes: k, Cores: c, Grid: g.Label(), Reason: why})
						continue
					}
					for range m.Repeats {
						for _, s := range g.Schemes {
							add(Run{Grid: g.Label(), Spec: m.spec(n, g.Label(), s, c, hosts)})
						}
					}
				}
			}
		}
	}
	return runs, skips, nil
}

// pickHosts takes k hosts from the grid's clusters, as evenly as possible;
// the reason is set when the clusters have too few hosts.
func pickHosts(g GridConfig, byCluster map[string][]inventory.Host, k int) ([]string, string) {
	if k < len(g.Clusters) {
		return nil, fmt.Sprintf("%d nodes cannot span %d clusters", k, len(g.Clusters))
	}
	var hosts []string
	for i, c := range g.Clusters {
		share := k / len(g.Clusters)
		if i < k%len(g.Clusters) {
			share++
		}
		have := byCluster[c]
		if len(have) < share {
			return nil, fmt.Sprintf("cluster %s has %d hosts, the run needs %d there", c, len(have), share)
		}
		for _, h := range have[:share] {
			hosts = append(hosts, h.Name)
		}
	}
	return hosts, ""
}

// spec is the job of one run.
func (m Matrix) spec(n int, grid string, s jobs.Scheme, cores int, hosts []string) jobs.Spec {
	name := fmt.Sprintf("%s-n%d-%s-%dx%d-%s", m.Name, n, strings.ReplaceAll(grid, "+", "_"), len(hosts), cores, s)
	return jobs.Spec{
		Name: name, App: "obstacle", Params: map[string]string{"n": strconv.Itoa(n), "eps": strconv.FormatFloat(m.Eps, 'g', -1, 64)},
		Scheme: s, Nodes: jobs.NodeSelection{Hosts: hosts}, Cores: cores,
		MaxIter: m.MaxIter, WallTime: m.WallTime,
	}.WithDefaults()
}
