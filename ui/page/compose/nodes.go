package compose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
)

// applyNodes picks the hosts a node selection names, resolved as the engine
// resolves it (jobs.NodeSelection.Resolve): sites and clusters both named intersect, hosts
// are added once, in inventory order, a selection of hosts only keeps its
// order. Any stays in the "Take N nodes" field, which cuts the same list.
func (v *Model) applyNodes(sel jobs.NodeSelection) {
	v.picked, v.unknown, v.selErr, v.order = map[string]bool{}, nil, "", nil
	if v.inv == nil {
		return
	}
	seen := map[string]bool{}
	refs := grid.Refs(v.inv)
	for _, r := range refs {
		seen["host "+r.Name], seen["cluster "+r.Cluster], seen["site "+r.Site] = true, true, true
	}
	for _, want := range []struct {
		kind  string
		names []string
	}{{"site", sel.Sites}, {"cluster", sel.Clusters}, {"host", sel.Hosts}} {
		for _, n := range want.names {
			if !seen[want.kind+" "+n] {
				v.unknown = append(v.unknown, want.kind+" "+n)
			}
		}
	}
	if len(v.unknown) > 0 {
		return
	}
	all := sel
	all.Any = 0 // the form's "Take N nodes" cuts the list
	hosts, err := all.Resolve(refs, v.inv.Source)
	if err != nil {
		// Every name is known, so the selection is empty (sites and
		// clusters sharing no host): say which, without the prefix.
		v.selErr = strings.TrimPrefix(err.Error(), jobs.ErrEmptySelection.Error()+": ")
		return
	}
	for _, h := range hosts {
		v.picked[h] = true
	}
	if !slices.Equal(hosts, v.inventoryOrder()) {
		v.order = hosts
	}
}

// inventoryOrder returns the picked hosts in inventory order.
func (v *Model) inventoryOrder() []string {
	var out []string
	for _, h := range v.inv.Hosts() {
		if v.picked[h.Name] {
			out = append(out, h.Name)
		}
	}
	return out
}

// picks are the console's ticked hosts as jobs.Picks.
func (v *Model) picks(take int) jobs.Picks {
	return jobs.Picks{Picked: v.picked, Order: v.order, Take: take}
}

// selection turns the picked hosts into a node selection
// (jobs.Picks.Selection).
func (v *Model) selection(take int) jobs.NodeSelection {
	if v.inv == nil {
		return jobs.NodeSelection{}
	}
	return v.picks(take).Selection(grid.Refs(v.inv))
}

// chosen returns the job's nodes in rank order (jobs.Picks.Hosts): the
// picked hosts in inventory order (or in a loaded job file's order of
// hosts), the first N of them when "Take N nodes" is set.
func (v *Model) chosen() []inventory.Host {
	if v.inv == nil {
		return nil
	}
	byName := map[string]inventory.Host{}
	for _, h := range v.inv.Hosts() {
		byName[h.Name] = h
	}
	names := v.picks(v.take()).Hosts(grid.Refs(v.inv))
	out := make([]inventory.Host, len(names))
	for i, n := range names {
		out[i] = byName[n]
	}
	return out
}

// take is the "Take N nodes" field, 0 when unset or not a number.
func (v *Model) take() int {
	n, _ := strconv.Atoi(strings.TrimSpace(v.field(fAny).Value))
	return max(0, n)
}

// keepOrder keeps a loaded rank order for the hosts still picked, the
// newly picked ones after them in inventory order.
func (v *Model) keepOrder() {
	if v.order == nil {
		return
	}
	v.order = slices.DeleteFunc(v.order, func(n string) bool { return !v.picked[n] })
	for _, n := range v.inventoryOrder() {
		if !slices.Contains(v.order, n) {
			v.order = append(v.order, n)
		}
	}
}

// keepHierarchy fits a hand-edited hierarchy to a changed node choice,
// keeping what still applies: nodes no longer chosen leave their group (a
// group that lost its coordinator gets its first remaining worker, a group
// left empty goes), nodes newly chosen join a group of their cluster with
// room, else a new group. It returns what changed (groups by their number
// before the change, numbered from 0 as the run's log and report number
// them), "" when the hierarchy is the automatic one (it
// follows the choice by itself).
func (v *Model) keepHierarchy() string {
	if v.groups == nil {
		return ""
	}
	chosen := v.chosen()
	in := make(map[string]bool, len(chosen))
	cluster := make(map[string]string, len(chosen))
	for _, h := range chosen {
		in[h.Name], cluster[h.Name] = true, h.Cluster
	}
	var kept []jobs.Group
	var notes []string
	placed := map[string]bool{}
	for i, g := range v.groups {
		var ws, gone []string
		for _, w := range g.Workers {
			if in[w] {
				ws, placed[w] = append(ws, w), true
			} else {
				gone = append(gone, w)
			}
		}
		switch {
		case len(ws) == 0:
			notes = append(notes, fmt.Sprintf("group %d (%s) dropped", i, strings.Join(gone, ", ")))
			continue
		case len(gone) > 0:
			notes = append(notes, fmt.Sprintf("%s left group %d", strings.Join(gone, ", "), i))
		}
		coord := g.Coordinator
		if !in[coord] {
			coord = ws[0]
			notes = append(notes, fmt.Sprintf("group %d's coordinator is now %s", i, coord))
		}
		kept = append(kept, jobs.Group{Coordinator: coord, Workers: ws})
	}
	for _, h := range chosen {
		if placed[h.Name] {
			continue
		}
		to := slices.IndexFunc(kept, func(g jobs.Group) bool {
			return len(g.Workers) < jobs.MaxGroupSize && slices.ContainsFunc(g.Workers, func(w string) bool { return cluster[w] == h.Cluster })
		})
		if to < 0 {
			kept = append(kept, jobs.Group{Coordinator: h.Name, Workers: []string{h.Name}})
			notes = append(notes, h.Name+" coordinates a new group")
			continue
		}
		kept[to].Workers = append(kept[to].Workers, h.Name)
		notes = append(notes, fmt.Sprintf("%s joins %s's group", h.Name, kept[to].Coordinator))
	}
	v.groups = kept
	if len(kept) == 0 {
		v.groups = nil // nothing chosen: nothing of the edit is left
	}
	if len(notes) == 0 {
		return ""
	}
	return "hierarchy kept: " + strings.Join(notes, "; ")
}
