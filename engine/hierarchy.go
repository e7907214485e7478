package engine

import (
	"fmt"

	"github.com/gridtui/gridtui/jobs"
)

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
	for top := groups; len(top) > jobs.MaxGroupSize; {
		var next []jobs.Group
		for i := 0; i < len(top); i += jobs.MaxGroupSize {
			g := jobs.Group{Coordinator: top[i].Coordinator}
			for _, sub := range top[i:min(i+jobs.MaxGroupSize, len(top))] {
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
	s := fmt.Sprintf("%d %s, %d %s", workers, plural(workers, "worker", "workers"), len(levels[0]), plural(len(levels[0]), "group", "groups"))
	for _, l := range levels[1:] {
		s += fmt.Sprintf(" under %d %s", len(l), plural(len(l), "coordinator of coordinators", "coordinators of coordinators"))
	}
	return s + fmt.Sprintf(" (%d %s below the submitter)", len(levels), plural(len(levels), "level", "levels"))
}
