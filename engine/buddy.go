package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/jobs"
)

// In-memory checkpoints on buddies (docs/FAILURES.md): each part's
// checkpoints stay in its worker's memory and a copy goes to its buddy,
// another node of the job chosen so that one failure does not take both:
// in another cluster when the job has one (another failure domain), else in
// another group (a lost coordinator takes its group), else another node.
// On a loss the submitter restarts every part from memory: the survivors
// from their own, the lost parts from their buddies' copies.

// pickBuddies returns each rank's buddy node ("" for a job of one node).
// Among the candidates of the best kind (in rank order after r), the i-th
// rank of a cluster (or group) takes the i-th candidate, so that the copies
// spread over the other cluster's nodes instead of piling on one. A node
// that reach (nil: all) says a rank's node cannot link to directly is no
// candidate: its copies would never arrive (another site of a grid whose
// sites link through gateways, buddySites), and the part's copies would
// stay unreported.
func pickBuddies(ranks []string, cluster func(name string) string, group func(r int) int, reach func(a, b string) bool) []string {
	out := make([]string, len(ranks))
	for r, name := range ranks {
		var other, otherGroup, any, sameHost []string
		nth, nthGroup := 0, 0
		for q := range r {
			if cluster(ranks[q]) == cluster(name) {
				nth++
			}
			if group(q) == group(r) {
				nthGroup++
			}
		}
		for k := 1; k < len(ranks); k++ {
			q := (r + k) % len(ranks)
			cand := ranks[q]
			if cand == name || slices.Contains(any, cand) || slices.Contains(sameHost, cand) || reach != nil && !reach(name, cand) {
				continue
			}
			if hostName(cand) == hostName(name) {
				sameHost = append(sameHost, cand) // a second worker's host: the last resort
				continue
			}
			any = append(any, cand)
			if cluster(cand) != cluster(name) {
				other = append(other, cand)
			}
			if group(q) != group(r) {
				otherGroup = append(otherGroup, cand)
			}
		}
		switch {
		case len(other) > 0:
			out[r] = other[nth%len(other)]
		case len(otherGroup) > 0:
			out[r] = otherGroup[nthGroup%len(otherGroup)]
		case len(any) > 0:
			out[r] = any[0]
		case len(sameHost) > 0:
			out[r] = sameHost[0]
		}
	}
	return out
}

// holder is how a worker reaches node's memory: its control addresses.
func (s *submission) holder(node string) solve.Holder {
	return solve.Holder{Node: node, Ctrl: s.ctrl[node]}
}

// rankCheckpoint is rank r's checkpoint plan: the run's with its buddy and
// the holders of its copies.
func (s *submission) rankCheckpoint(r int) *solve.CheckpointPlan {
	if s.ckpt == nil {
		return nil
	}
	cp := *s.ckpt
	if k, ok := cp.Rollback[r]; ok {
		// Its cluster rolls back (hybrid): exactly there, as a
		// synchronous run's parts.
		cp.Latest, cp.Restore, cp.OrStart, cp.Step, cp.StepFrom = false, k, nil, 0, nil
	}
	cp.Rollback = nil // each rank's own
	if !cp.Memory {
		return &cp
	}
	if s.buddies == nil {
		p := s.plan
		s.buddies = pickBuddies(p.Ranks, func(n string) string {
			if w := s.workers[n]; w != nil {
				return w.Host.Cluster
			}
			return ""
		}, p.GroupOf, s.buddyReach())
	}
	if b := s.buddies[r]; b != "" {
		h := s.holder(b)
		cp.Buddy = &h
	}
	cp.Holders = s.holders[r]
	return &cp
}

// buddyReach says which nodes a node can send its copies to, for
// pickBuddies: on a grid whose sites link through gateways
// (gatewaySites), a node of its own site only, since the copies go over
// the control links, which reach no other site's private network; nil
// (every node) otherwise.
func (s *submission) buddyReach() func(a, b string) bool {
	if s.inv == nil || gatewaySites(s.inv, s.plan.Ranks) == nil {
		return nil
	}
	return func(a, b string) bool { return s.inv.SiteOf(hostName(a)) == s.inv.SiteOf(hostName(b)) }
}

// memoryPoint says where every part restarts from when the copies are in
// memory: the newest iteration every rank holds (synchronous), or each
// rank's newest. The ranks on gone nodes read their buddy's copy; a part
// whose buddy was lost with it cannot be restored, and the error names
// both. It also returns, by rank, the holders each part may read from.
// Before a rank's first checkpoint a synchronous run restarts every part
// from the start (errNoCheckpointYet); an asynchronous or hybrid one only
// the parts that have none (stepPoint's OrStart), the others from their
// newest. A hybrid task of one step rolls back the lost parts' clusters
// alone (clusterPoint). The parts that roll back (all in a synchronous
// run, a hybrid one's lost clusters) count the newest copy their holders
// say they keep now (askHeld, withHeld), not only what their statuses,
// which lag, last said.
func memoryPoint(s *submission, gone []string, sync bool) (solve.CheckpointPlan, map[int][]solve.Holder, error) {
	holders := map[int][]solve.Holder{}
	for r, name := range s.plan.Ranks {
		st := s.statuses[r]
		if st.NoCheckpoints {
			return solve.CheckpointPlan{}, nil, fmt.Errorf("the application %s has no checkpoints (gridapp.Checkpointer)", s.spec.App)
		}
		b := ""
		if r < len(s.buddies) {
			b = s.buddies[r]
		}
		if b != "" && !slices.Contains(gone, b) && s.workers[b] != nil && isDone(s.workers[b]) {
			gone = append(slices.Clone(gone), b) // lost too, not judged yet
		}
		if len(st.Copies) == 0 && !sync {
			// From the start, or where it stopped (stepPoint's OrStart):
			// nothing of it is lost. A lost one's buddy may hold a copy its
			// statuses did not report yet: asked (askHeld, in a task of one
			// step too), and read when it does.
			if slices.Contains(gone, name) {
				holders[r] = copyHolders(s, r, b, gone)
			}
			continue
		}
		if slices.Contains(gone, name) {
			switch {
			case b == "":
				return solve.CheckpointPlan{}, nil, fmt.Errorf("rank %d on %s had no buddy: its part and its only checkpoints were lost", r, name)
			case slices.Contains(gone, b) && lostTogether(s, name, b):
				// One loss (a coordinator, its group with it) took the part
				// and the copy its buddy held: a buddy in its own group,
				// the only reachable kind on a site behind a gateway whose
				// nodes form one group (buddyReach). Its copies are gone, as
				// if it had none: from the start (a synchronous run every
				// part, an asynchronous one this part: fromStart).
				s.statuses[r].Copies = nil
				if !sync {
					holders[r] = copyHolders(s, r, b, gone)
					continue
				}
			case slices.Contains(gone, b):
				return solve.CheckpointPlan{}, nil, fmt.Errorf("rank %d's node %s and its buddy %s, which held its only copy, were both lost", r, name, b)
			}
		}
		holders[r] = copyHolders(s, r, b, gone)
	}
	if !sync && s.spec.Scheme == jobs.Hybrid && s.plan.Task.StepCount() == 1 {
		from := clusterPoint(s, gone, s.askHeld(gone, holders, lostClusters(s.plan, gone)))
		for r, k := range from.Rollback {
			if k == 0 {
				delete(holders, r) // its cluster from the start: nothing read, as its record says
			}
		}
		return from, holders, nil
	}
	if !sync {
		from, err := stepPoint(s, gone, s.askHeld(gone, holders, nil))
		for _, r := range from.OrStart {
			if slices.Contains(gone, s.plan.Ranks[r]) {
				delete(holders, r) // its holders, asked (askHeld), held none or did not answer: from the start, as its record says
			}
		}
		return from, holders, err
	}
	// Every part rolls back: each one's holders are asked what they keep
	// now (the statuses lag, most a lost coordinator's group's).
	lists := withHeld(s, s.askHeld(gone, holders, allRanks(s.plan)))
	for r, name := range s.plan.Ranks {
		if len(lists[r]) == 0 {
			return solve.CheckpointPlan{}, nil, fmt.Errorf("rank %d (%s) has %w in memory", r, name, errNoCheckpointYet)
		}
	}
	every := takenEvery(s)
	k, ok := commonIteration(lists, reachOf(s, gone, lists, every), every)
	if !ok {
		return solve.CheckpointPlan{}, nil, fmt.Errorf("the ranks hold %w in memory", errNoCommonCheckpoint)
	}
	return solve.CheckpointPlan{Restore: k}, holders, nil
}

// lostTogether reports whether nodes a and b were both lost by the one
// loss s failed on (lostWith: a coordinator and its group), not by two.
func lostTogether(s *submission, a, b string) bool {
	if s.failed == nil {
		return false
	}
	one := lostWith(s, s.failed.Node)
	return slices.Contains(one, a) && slices.Contains(one, b)
}

// withHeld is, by rank, the copies its statuses reported (newest first)
// with, before them, the newer one its holders said they keep (held,
// askHeld).
func withHeld(s *submission, held map[int]checkpoint.Header) [][]uint64 {
	lists := make([][]uint64, len(s.plan.Ranks))
	for r := range lists {
		lists[r] = s.statuses[r].Copies
		if h, ok := held[r]; ok && h.Iteration > 0 && (len(lists[r]) == 0 || h.Iteration > lists[r][0]) {
			lists[r] = append([]uint64{h.Iteration}, lists[r]...)
		}
	}
	return lists
}

// allRanks is every rank of p.
func allRanks(p *Plan) []int {
	out := make([]int, len(p.Ranks))
	for r := range out {
		out[r] = r
	}
	return out
}

// lostClusters is the ranks of the synchronous clusters (syncClusters)
// that hold a part of gone: those that roll back (clusterPoint).
func lostClusters(p *Plan, gone []string) []int {
	cl := syncClusters(p)
	var lost, out []int
	for r, name := range p.Ranks {
		if slices.Contains(gone, name) {
			lost = append(lost, cl[r])
		}
	}
	for r := range p.Ranks {
		if slices.Contains(lost, cl[r]) {
			out = append(out, r)
		}
	}
	return out
}

// copyHolders are the nodes rank r's copies may be read from: its buddy
// b, then those of the attempt before, but none of gone.
func copyHolders(s *submission, r int, b string, gone []string) []solve.Holder {
	var out []solve.Holder
	if b != "" && !slices.Contains(gone, b) {
		out = []solve.Holder{s.holder(b)}
	}
	for _, h := range s.holders[r] { // the copies of the attempt before
		if !slices.Contains(gone, h.Node) && h.Node != b {
			out = append(out, h)
		}
	}
	return out
}

// commonIteration picks a synchronous rollback's iteration from the copies
// each rank last reported (newest first): the newest that every rank
// reported or, since the statuses lag, that is one of the multiples it
// surely took (takenEvery) no later than its reach (reachOf).
func commonIteration(lists [][]uint64, reach []uint64, every []interval) (uint64, bool) {
	if len(lists) == 0 {
		return 0, false
	}
	has := func(r int, it uint64) bool {
		e := every[r]
		return slices.Contains(lists[r], it) || e.every > 0 && it%e.every == 0 && it > e.since && it <= reach[r]
	}
	var cands []uint64
	for _, l := range lists {
		cands = append(cands, l...)
	}
	if k, ok := newestCommon(reach, every); ok {
		cands = append(cands, k) // in no list the statuses gave yet (they lag, and thin out)
	}
	slices.Sort(cands)
	for i := len(cands) - 1; i >= 0; i-- {
		it := cands[i]
		all := true
		for r := range lists {
			all = all && has(r, it)
		}
		if all {
			return it, true
		}
	}
	return 0, false
}

// newestCommon is the newest iteration every rank surely took a checkpoint
// of by its interval (a common multiple of every interval, after each
// rank chose its own) no later than its reach: none when a rank's
// interval is unknown.
func newestCommon(reach []uint64, every []interval) (uint64, bool) {
	l, since, ok := commonEvery(every)
	if !ok || len(reach) < len(every) {
		return 0, false
	}
	k := slices.Min(reach[:len(every)]) / l * l
	return k, k > since && k > 0
}

// commonEvery is the least common multiple of the ranks' intervals and
// the latest since, after which its multiples were taken by every rank:
// none when a rank's interval is unknown.
func commonEvery(every []interval) (l, since uint64, ok bool) {
	l = 1
	for _, e := range every {
		if e.every == 0 {
			return 0, 0, false
		}
		l = l / gcd(l, e.every) * e.every
		since = max(since, e.since)
	}
	return l, since, len(every) > 0
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// commonTaken is, in a synchronous run, the first iteration every rank
// surely took a checkpoint of by its interval (takenEvery) and progress
// (its last status; a lost rank's less two intervals, its write on the
// way): when the ranks share no checkpoint, they lost that one (the disk
// keeps each rank's newest few) rather than took none yet, and restarting
// from the start would silently drop the work it held.
func commonTaken(s *submission, gone []string) (uint64, bool) {
	every := takenEvery(s)
	l, since, ok := commonEvery(every)
	if !ok || len(s.statuses) < len(every) {
		return 0, false
	}
	reach := make([]uint64, len(every))
	for r, e := range every {
		st := s.statuses[r]
		if st.Iteration > 0 && st.Sigma < s.plan.Task.Eps {
			return 0, false // it may have skipped checkpoints (maybeCheckpoint)
		}
		reach[r] = uint64(max(st.Iteration, 0))
		if slices.Contains(gone, s.plan.Ranks[r]) {
			reach[r] -= min(reach[r], 2*e.every)
		}
	}
	k := (since/l + 1) * l
	return k, k <= slices.Min(reach)
}

// interval is a rank's checkpoint interval: every multiple of every after
// since (every 0: unknown, only its reported copies count).
type interval struct{ every, since uint64 }

// takenEvery is, by rank, the checkpoints the rank surely took: every
// multiple of the job's interval when it is fixed (checkpoint_every), else
// (the default, solve's pace) the multiples of the interval the rank's
// statuses said it chose, after the iteration it chose it at.
func takenEvery(s *submission) []interval {
	out := make([]interval, len(s.plan.Ranks))
	for r := range out {
		if !s.spec.Resilience.Auto() {
			out[r].every = uint64(max(1, s.spec.Resilience.Every()))
			continue
		}
		if r < len(s.statuses) {
			st := s.statuses[r]
			out[r] = interval{uint64(max(st.CheckpointEvery, 0)), uint64(max(st.CheckpointSince, 0))}
		}
	}
	return out
}

// reachOf is, by rank, the iteration up to which the rank surely took every
// checkpoint of its interval, as far as a synchronous rollback may count on
// it. A synchronous rank sweeps iteration k only with its neighbours' halos
// of k, so a rank at distance d in the task's graph from one that reached k
// has swept k−d: each rank's progress is bounded below by every status (its
// own and the others', less the distance) and every lost rank's newest
// reported copy. A surviving rank holds its checkpoints up to there (its
// memory keeps the recent ones). A lost rank's copies are on its buddy,
// which may lack the last one or two still on their way when it was lost:
// its reach is two intervals less, and none when its reported copies fell
// behind its statuses (its buddy did not answer). A rank whose last status
// had σ < ε may have skipped checkpoints (maybeCheckpoint): it counts only
// the copies it reported, reach 0.
func reachOf(s *submission, gone []string, lists [][]uint64, every []interval) []uint64 {
	return reachIn(s, gone, lists, every, s.plan.Edges)
}

// reachIn is reachOf over the links edges alone: those on which a rank
// sweeps only with its neighbour's halo of the same iteration (a hybrid
// cluster's synchronous links, clusterIteration).
func reachIn(s *submission, gone []string, lists [][]uint64, every []interval, edges [][2]int) []uint64 {
	ranks := len(lists)
	adj := make([][]int, ranks)
	for _, e := range edges {
		if e[0] < ranks && e[1] < ranks {
			adj[e[0]] = append(adj[e[0]], e[1])
			adj[e[1]] = append(adj[e[1]], e[0])
		}
	}
	progress := make([]uint64, ranks)
	spread := func(from int, k uint64) {
		for q, d := range hops(adj, from) {
			if d >= 0 && uint64(d) <= k {
				progress[q] = max(progress[q], k-uint64(d))
			}
		}
	}
	for r, name := range s.plan.Ranks[:ranks] {
		spread(r, uint64(max(s.statuses[r].Iteration, 0)))
		if slices.Contains(gone, name) && len(lists[r]) > 0 {
			spread(r, lists[r][0])
		}
	}
	reach := make([]uint64, ranks)
	for r, name := range s.plan.Ranks[:ranks] {
		st := s.statuses[r]
		switch {
		case st.Iteration > 0 && st.Sigma < s.plan.Task.Eps:
		case !slices.Contains(gone, name):
			reach[r] = progress[r]
		case every[r].every == 0:
		case len(lists[r]) > 0 && lists[r][0]+4*every[r].every >= uint64(max(st.Iteration, 0)) && progress[r] > 2*every[r].every:
			// Its copies kept pace with it (a buddy it could not reach
			// leaves them behind): the newer ones are on the buddy too.
			reach[r] = progress[r] - 2*every[r].every
		}
	}
	return reach
}

// hops is every rank's distance from rank from in the graph adj (−1:
// unreachable).
func hops(adj [][]int, from int) []int {
	d := make([]int, len(adj))
	for i := range d {
		d[i] = -1
	}
	d[from] = 0
	queue := []int{from}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		for _, q := range adj[r] {
			if d[q] < 0 {
				d[q] = d[r] + 1
				queue = append(queue, q)
			}
		}
	}
	return d
}

// restoreFrom says where the next attempt restores from: memory when the
// copies allow it, else the disk (checkpoint_dir), else why neither can.
func (rc *recoverer) restoreFrom(s *submission, gone []string) (solve.CheckpointPlan, map[int][]solve.Holder, error) {
	sync := rc.spec.Scheme == jobs.Synchronous
	var merr error
	if rc.memory {
		from, holders, err := memoryPoint(s, gone, sync)
		if err == nil || rc.dir == "" || errors.Is(err, errNoCheckpointYet) { // none on disk either
			return from, holders, err
		}
		merr = err
	}
	from, err := restorePoint(rc.dir, rc.key, len(s.plan.Ranks), sync, true)
	if k, ok := commonTaken(s, gone); ok && sync && errors.Is(err, errNoCommonCheckpoint) {
		// Not before the first common checkpoint: its files are gone, and
		// the run fails saying so rather than restart from the start.
		err = fmt.Errorf("the ranks' checkpoints on disk share no iteration any more, though every part took iteration %d (each keeps its newest %d)", k, solve.KeepCheckpoints)
		if merr != nil {
			err = fmt.Errorf("%w (in memory: %v)", err, merr)
		}
		return from, nil, err
	}
	if err != nil && merr != nil {
		err = fmt.Errorf("%w (in memory: %w)", err, merr)
	}
	return from, nil, err
}

// carryCopies gives the next attempt's statuses the copies this attempt's
// reported, until its own statuses say more: a loss right after a recovery
// restores from the same copies.
func carryCopies(next, s *submission, from solve.CheckpointPlan) {
	for r := range next.statuses {
		if r >= len(s.statuses) {
			break
		}
		c := s.statuses[r].Copies
		if k, ok := from.Rollback[r]; ok && from.Latest {
			c = nil // its cluster from the start, or rolled back to k: the newer ones are dropped (solve: DropAfter)
			if k > 0 {
				c = []uint64{k}
			}
		}
		if !from.Latest {
			c = []uint64{from.Restore}
		}
		next.statuses[r].Copies = slices.Clone(c)
		next.statuses[r].StepStarts, next.statuses[r].StepBase = slices.Clone(s.statuses[r].StepStarts), s.statuses[r].StepBase
	}
}
