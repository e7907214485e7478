package engine

import (
	"strings"

	"github.com/gridtui/gridtui/engine/worker"
)

// chargeDead charges a link failure that a sound node reported to a
// worker of the attempt whose process has ended. When a worker dies, its
// neighbours' tasks end, and a node further away can lose its link to one
// of them and report that first ("halo from rank 1: … no live link");
// the loss to recover from is the dead worker's, not the reporter's.
func chargeDead(s *submission) {
	f := s.failed
	if f == nil || s.aborted != nil || f.Node == "" || !(linkFailed(f.Cause) || strings.Contains(f.Cause, "no live link")) {
		return
	}
	for _, name := range s.plan.Ranks {
		if w := s.workers[name]; w != nil && name != f.Node && isDone(w) {
			s.failed = &worker.Failure{Node: name, Cause: "worker process exited (" + f.Node + " reported first: " + f.Cause + ")"}
			return
		}
	}
}
