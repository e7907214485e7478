package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
)

// partArrays is how many arrays of its part's size a worker holds while it
// computes and sends its result: the iterate and the next one, the
// application's per-point data (φ, h²f) and the result as it is encoded.
const partArrays = 4

// workerBase is the memory of an idle worker (the Go runtime, its
// endpoints and buffers), counted for every node on a host.
const workerBase = 16 << 20

// nodeMemory is the memory a node needs to compute part r of plan.
func nodeMemory(plan *Plan, r int) uint64 {
	return workerBase + partArrays*8*uint64(max(plan.Task.Parts[r].Size, 0))
}

// hostNeed is what the nodes of one host need together against what the
// host said it has (the smallest figure among their hellos).
type hostNeed struct {
	host      string
	nodes     []string
	need      uint64
	available uint64
}

// checkNodeMemory refuses a plan whose parts would not fit the memory of
// their hosts, before any task is sent: the nodes of a host (several on a
// local grid) share its memory, which each worker's hello reports. A host
// that reported no figure is not checked. The error wraps jobs.ErrMemory and
// names the host, its nodes, both figures and the per-node share.
func checkNodeMemory(plan *Plan, workers []*deploy.Worker) error {
	byNode := map[string]*deploy.Worker{}
	for _, w := range workers {
		byNode[w.Host.Name] = w
	}
	hosts := map[string]*hostNeed{}
	var order []string
	for r, name := range plan.Ranks {
		w := byNode[name]
		if w == nil || w.Hello.Memory == 0 {
			continue
		}
		key := w.Hello.Host
		if key == "" {
			key = w.Host.Name
		}
		h := hosts[key]
		if h == nil {
			h = &hostNeed{host: key, available: w.Hello.Memory}
			hosts[key] = h
			order = append(order, key)
		}
		h.nodes = append(h.nodes, name)
		h.need += nodeMemory(plan, r)
		h.available = min(h.available, w.Hello.Memory)
	}
	for _, key := range order {
		h := hosts[key]
		if h.need <= h.available {
			continue
		}
		who := "node there (" + h.nodes[0] + ") needs"
		if len(h.nodes) > 1 {
			who = fmt.Sprintf("%d nodes there (%s) need", len(h.nodes), abbreviate(h.nodes, 4))
		}
		return fmt.Errorf("%w: host %s has %s available; this job's %s %s, %s each at most (%d arrays of a part's values and an idle worker's %s): use more hosts or a smaller problem",
			jobs.ErrMemory, h.host, jobs.Bytes(h.available), who, jobs.Bytes(h.need),
			jobs.Bytes(largestNeed(plan, h.nodes)), partArrays, jobs.Bytes(workerBase))
	}
	return nil
}

// largestNeed is the largest nodeMemory among the named nodes of plan.
func largestNeed(plan *Plan, nodes []string) uint64 {
	var top uint64
	for r, name := range plan.Ranks {
		if slices.Contains(nodes, name) {
			top = max(top, nodeMemory(plan, r))
		}
	}
	return top
}

// abbreviate lists the first k names, then how many more there are.
func abbreviate(names []string, k int) string {
	if len(names) <= k {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:k], ", "), len(names)-k)
}

// memoryNote adds the memory figures to the exit of a worker killed by
// SIGKILL (deploy.ErrKilled): the kernel's out-of-memory killer is the
// usual culprit, and the figures say whether the node's part could fit.
func (s *submission) memoryNote(node string, err error) string {
	if !errors.Is(err, deploy.ErrKilled) {
		return ""
	}
	r := slices.Index(s.plan.Ranks, node)
	if r < 0 {
		return ""
	}
	had := "an unknown amount"
	if w := s.workers[node]; w != nil && w.Hello.Memory > 0 {
		had = jobs.Bytes(w.Hello.Memory)
	}
	what := "possibly out of memory"
	if errors.Is(err, deploy.ErrOutOfMemory) {
		what = "out of memory"
	}
	return fmt.Sprintf(" (%s: the node's part needs about %s, its host had %s available when the worker started)",
		what, jobs.Bytes(nodeMemory(s.plan, r)), had)
}
