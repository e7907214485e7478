package worker

import (
	"fmt"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/rmnp"
)

// LevelFanout is how many coordinators one coordinator of coordinators (or
// the submitter) serves: jobs.MaxGroupSize, lowered by tests to build deep
// hierarchies from few processes.
var LevelFanout = jobs.MaxGroupSize

// Levels builds the control hierarchy above the groups (P2PDC's
// coordinators, GRIDHPC Sec. IV-B, applied again): level 0 is the groups of
// workers; while a level has more than jobs.MaxGroupSize coordinators, the
// next level groups them by at most jobs.MaxGroupSize, in order, the first
// of each coordinating. The coordinators of the last level are the ones the
// submitter talks to, so its fan-in never exceeds jobs.MaxGroupSize: 32
// groups (1024 workers) need one level, 1024 groups (32 768 workers) two,
// and three levels serve a million workers.
func Levels(groups []jobs.Group) [][]jobs.Group {
	if len(groups) == 0 {
		return nil
	}
	levels := [][]jobs.Group{groups}
	for top := groups; len(top) > LevelFanout; {
		var next []jobs.Group
		for i := 0; i < len(top); i += LevelFanout {
			g := jobs.Group{Coordinator: top[i].Coordinator}
			for _, sub := range top[i:min(i+LevelFanout, len(top))] {
				g.Workers = append(g.Workers, sub.Coordinator)
			}
			next = append(next, g)
		}
		levels = append(levels, next)
		top = next
	}
	return levels
}

// DescribeLevels says in one line how the submitter reaches the workers,
// e.g. "313 groups under 10 coordinators of coordinators (3 levels)".
func DescribeLevels(levels [][]jobs.Group) string {
	if len(levels) == 0 {
		return "no groups"
	}
	workers := 0
	for _, g := range levels[0] {
		workers += len(g.Workers)
	}
	s := fmt.Sprintf("%d %s, %d %s", workers, pluralOf(workers, "worker", "workers"), len(levels[0]), pluralOf(len(levels[0]), "group", "groups"))
	for _, l := range levels[1:] {
		s += fmt.Sprintf(" under %d %s", len(l), pluralOf(len(l), "coordinator of coordinators", "coordinators of coordinators"))
	}
	return s + fmt.Sprintf(" (%d %s below the submitter)", len(levels), pluralOf(len(levels), "level", "levels"))
}

// Assignments builds the assignment of every coordinator the submitter
// talks to (those of the last level), each carrying its subtree: level by
// level from the groups up, a coordinator of coordinators takes its own
// group's assignment (it is the first coordinator of the level below) and
// the assignments of the others, which report to it.
func Assignments(levels [][]jobs.Group, base map[string]*GroupAssign, ctrl map[string][]string) []GroupAssign {
	for _, level := range levels[1:] {
		for _, g := range level {
			up := base[g.Coordinator]
			for _, sub := range g.Workers {
				if sub == g.Coordinator {
					continue
				}
				a := base[sub]
				a.Parent = NodeID(g.Coordinator)
				up.Subgroups = append(up.Subgroups, subAssign{Ctrl: ctrl[sub], Assign: *a})
			}
		}
	}
	top := levels[len(levels)-1]
	out := make([]GroupAssign, len(top))
	for i, g := range top {
		out[i] = *base[g.Coordinator]
		out[i].Parent = SubmitterID
	}
	return out
}

// Subtree calls f with every member of a and of the assignments below it,
// with the group it belongs to.
func (a *GroupAssign) Subtree(f func(m Member, group int)) {
	for _, m := range a.Members {
		f(m, a.Group)
	}
	for i := range a.Subgroups {
		a.Subgroups[i].Assign.Subtree(f)
	}
}

// parentName names a coordinator's parent in messages.
func parentName(id rmnp.PeerID) string {
	if id == SubmitterID {
		return "submitter"
	}
	return "coordinator"
}

// pluralOf is one for n == 1, else many.
func pluralOf(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
