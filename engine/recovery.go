package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/jobs"
)

// Recovery (docs/FAILURES.md): a run whose parts checkpoint survives a
// lost node. The submitter sees the loss as it sees any (heartbeats, a
// process that ended, a coordinator's report), stops the attempt on every
// node, puts the lost node's part on a spare (or restarts a worker on its
// host, when the host still answers, else starts a second worker on a
// surviving node of its cluster), and runs the job again from the
// checkpoints: a synchronous run rolls every part back to the last
// iteration every rank has (so it is bit for bit the undisturbed run), an
// asynchronous or hybrid one restarts every part from its own newest
// checkpoint. The detectors start afresh with every part, so none is
// fooled by the parts that moved. At most Resilience.Recoveries() times.

// checkpointDir is the directory the run's checkpoints go to ("": none on
// disk), or "" with the reason checkpoints are off. The copies in memory on
// buddies (buddy.go) are on whenever checkpoints are; the disk too with
// checkpoint_dir, or by default when every host shares the console's disk
// (the local grid: `gridtui run --resume` and `gridtui drain` need it).
func checkpointDir(spec jobs.Spec, hosts []inventory.Host, opt RunOptions) (string, string) {
	if spec.Resilience.Every() == 0 {
		return "", "checkpoints are off (checkpoint_every = -1)"
	}
	if d := spec.Resilience.CheckpointDir; d != "" {
		return d, ""
	}
	for _, h := range hosts {
		if !h.EthernetAddr.IsValid() || !diskByDefault {
			return "", "" // in memory only
		}
	}
	base := opt.StoreDir
	if base == "" {
		var err error
		if base, err = jobs.DataDir(""); err != nil {
			return "", ""
		}
	}
	return filepath.Join(base, "checkpoints"), ""
}

// diskByDefault is false in the tests of the copies in memory alone.
var diskByDefault = true

// linkGone is in the cause of a node whose neighbour's link vanished under
// it: the neighbour's worker left the run (seen after a recovery, when a
// node's end of the previous attempt arrives late). The node itself is
// sound; the attempt is run again where it was.
const linkGone = "no link to peer"

// linkFailed reports whether cause is a link's failure on a sound node (a
// vanished link, or a pre-flight that met a neighbour's endpoint as it was
// rebound for the new attempt).
func linkFailed(cause string) bool {
	return strings.Contains(cause, linkGone) || strings.Contains(cause, "unreachable on every network") ||
		strings.Contains(cause, linkUnconfirmed) || strings.Contains(cause, linkDead)
}

// linkDead is in the cause of a node whose neighbour's new link died under
// it (the neighbour's end of the attempt before, arriving late, rebinds its
// endpoint): the node is sound.
const linkDead = "no live link"

// linkUnconfirmed is in the cause of a node whose neighbour's first message
// on a new link was not its confirmation (a message of the attempt before,
// seen after a recovery): the node is sound.
const linkUnconfirmed = "is not its link confirmation"

// checkpointKey names a run's checkpoints: the job's name (made a file
// name) and the first attempt's run id.
func checkpointKey(name string, run uint64) string {
	clean := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < ' ' {
			return '_'
		}
		return r
	}, name)
	if len(clean) > 64 {
		clean = clean[:64]
	}
	return fmt.Sprintf("%s-%016x", clean, run)
}

// isLoss reports whether the attempt failed because a node was lost (its
// process ended, it went silent, its connection broke), not for a reason a
// new attempt would meet again (the application's error, the wall time, an
// abort).
func isLoss(s *submission) bool {
	f := s.failed
	if f == nil || s.aborted != nil || f.Node == "" {
		return false
	}
	if s.failedGateway() != nil {
		return true // exited or silent: gateway_lost.go
	}
	if w := s.workers[f.Node]; w != nil {
		select {
		case <-w.Done():
			return true
		default:
		}
	}
	for _, p := range []string{worker.SilentCause, "coordinator sent " + worker.SilentCause, "coordinator connection lost", "worker process exited", "connection lost", "cannot reach", linkGone, "unreachable on every network", linkUnconfirmed, linkDead, drainCause} {
		if strings.Contains(f.Cause, p) {
			return true
		}
	}
	return false
}

// restorePoint says where every part restarts from: the newest iteration
// every rank has a checkpoint of (synchronous), or each rank's newest
// (Latest). It fails naming the rank that has none, unless orStart (the
// recovery of an asynchronous or hybrid run): that rank then starts from
// the start of the run (OrStart, in the run's first step, as fromStart).
func restorePoint(dir, key string, ranks int, sync, orStart bool) (solve.CheckpointPlan, error) {
	d := checkpoint.Dir{Path: dir, Keep: solve.KeepCheckpoints}
	var common []uint64
	var none []int
	for r := range ranks {
		its, err := d.Iterations(key, r)
		if (err != nil || len(its) == 0) && (sync || !orStart) {
			return solve.CheckpointPlan{}, fmt.Errorf("rank %d has %w in %s", r, errNoCheckpointYet, filepath.Join(dir, key))
		}
		if len(its) == 0 {
			none = append(none, r)
		}
		if r == 0 {
			common = its
			continue
		}
		common = slices.DeleteFunc(common, func(it uint64) bool { return !slices.Contains(its, it) })
	}
	if !sync {
		from := solve.CheckpointPlan{Latest: true, OrStart: none}
		if len(none) > 0 {
			from.StepFrom = make([]uint64, ranks)
		}
		return from, nil
	}
	if len(common) == 0 {
		return solve.CheckpointPlan{}, fmt.Errorf("the ranks have %w", errNoCommonCheckpoint)
	}
	return solve.CheckpointPlan{Restore: common[0]}, nil
}

// plan is an attempt's checkpoint plan: where from restores, with the
// run's store, interval and key.
func (rc *recoverer) plan(from solve.CheckpointPlan) *solve.CheckpointPlan {
	cp := from
	cp.Dir, cp.Memory, cp.Every, cp.Auto, cp.First, cp.Run = rc.dir, rc.memory, rc.spec.Resilience.Every(), rc.spec.Resilience.Auto(), rc.opt.FirstCheckpoint, rc.key
	return &cp
}

// errNoCheckpointYet says that a rank has taken no checkpoint yet: a loss
// then restarts every part of a synchronous run from the start (an
// asynchronous or hybrid one restarts only the parts without one:
// CheckpointPlan.OrStart). errNoCommonCheckpoint says that the ranks of a
// synchronous run hold no checkpoint of one iteration yet (their first
// ones at different multiples, FirstCheckpointAfter): a loss restarts it
// from the start too.
var (
	errNoCheckpointYet    = errors.New("no checkpoint yet")
	errNoCommonCheckpoint = errors.New("no checkpoint of a common iteration")
)

// recoverer is what Run keeps across a run's attempts.
type recoverer struct {
	spec    jobs.Spec
	inv     *inventory.Inventory
	opt     RunOptions
	workers *[]*deploy.Worker
	real    map[string]inventory.Host // second workers' hosts, by node name
	refused map[string]bool           // hosts a recovery's start failed on (recovery_second.go)
	dir     string                    // "" when no checkpoints go to disk
	memory  bool                      // in-memory copies on buddies (buddy.go)
	why     string                    // why checkpoints are off
	key     string
	done    []jobs.Recovery
	count   int // recoveries (one loss may take several nodes)
}

// next starts the attempt after s failed, or says why the run ends. It
// returns the next submission, or nil and the note to add to the failure.
func (rc *recoverer) next(ctx context.Context, s *submission) (*submission, string) {
	chargeDead(s)
	if !isLoss(s) {
		return nil, ""
	}
	rc.done = slices.Clone(s.recoveries) // with the times noteRecovered saw
	if why := rc.refusal(); why != "" {
		return nil, why
	}
	lost := s.failed.Node
	gone := withSameHost(s, lostWith(s, lost))
	if w := s.workers[lost]; w != nil && !isDone(w) && linkFailed(s.failed.Cause) {
		gone = nil // every worker is sound: the same nodes again
	} else if s.failedGateway() != nil {
		gone = s.deadBlamed() // none but a worker lost with the gateway
	}
	gone = withEnded(s, gone)
	from, holders, err := rc.restoreFrom(s, gone)
	why := "no checkpoint yet"
	if err != nil && (isDrain(s) || len(gone) == 0 || errors.Is(err, errNoCheckpointYet) || errors.Is(err, errNoCommonCheckpoint)) {
		// Drained, or a link failed between sound nodes, or a node lost
		// before the first checkpoint: from the start (no work is lost
		// that a checkpoint held). Ranks whose checkpoints share no
		// iteration (their first ones at different multiples, or
		// intervals far apart and the older copies gone) restart from
		// the start too, rather than fail the run, and the record says
		// why.
		if errors.Is(err, errNoCommonCheckpoint) {
			why = "no checkpoint of an iteration common to every part"
		}
		from, holders, err = solve.CheckpointPlan{}, nil, nil
	}
	if err != nil {
		return nil, "not recovered: " + err.Error()
	}
	moved, err := rc.replace(ctx, s, gone)
	if err != nil {
		return nil, "not recovered: " + err.Error()
	}
	next, err := rc.submission(s, moved, from)
	if err != nil {
		return nil, "not recovered: " + solve.Bare(err.Error())
	}
	next.holders = holders
	carryCopies(next, s, from)
	rc.record(s, gone, moved, from, why)
	next.recoveries = slices.Clone(rc.done)
	rc.count++
	return next, ""
}

// refusal says why the run cannot recover at all, or "".
func (rc *recoverer) refusal() string {
	switch {
	case rc.dir == "" && !rc.memory:
		return rc.why
	case rc.count >= rc.spec.Resilience.Recoveries():
		return fmt.Sprintf("not recovered: %d recoveries already (max_recoveries)", rc.count)
	case rc.dir != "" && checkpoint.Dir{Path: rc.dir}.MarkedNone(rc.key):
		return fmt.Sprintf("not recovered: the application %s has no checkpoints (gridapp.Checkpointer)", rc.spec.App)
	}
	return ""
}

// submission plans the next attempt: the ranks of s with the moved nodes
// replaced, every part restored from.
func (rc *recoverer) submission(s *submission, moved map[string]placement, from solve.CheckpointPlan) (*submission, error) {
	ranks := slices.Clone(s.plan.Ranks)
	for r, name := range ranks {
		if to, ok := moved[name]; ok {
			ranks[r] = to.node
		}
	}
	spec := rc.spec
	spec.Nodes, spec.Groups = jobs.NodeSelection{Hosts: ranks}, nil
	plan, err := planJob(spec, withHelloCores(rc.inv, *rc.workers), liveNodes(*rc.workers))
	if err != nil {
		return nil, err
	}
	next, err := newSubmission(rc.spec, plan, *rc.workers, rc.opt, s.logf)
	if err != nil {
		return nil, err
	}
	next.inventory, next.inv = s.inventory, s.inv
	if s.inv != nil && len(rc.real) > 0 {
		next.inv = rc.inv // with the second workers' names
	}
	carryGateways(next, s)
	if next.inv != nil {
		if err := allowWorkers(next.gateways, next.inv, *rc.workers); err != nil {
			s.logf("", "warning: %v", err)
		}
	}
	next.joins = s.joins
	next.start, next.ckptKey = s.start, rc.key
	next.ckpt = rc.plan(from)
	return next, nil
}

// record logs and keeps the recovery of each node of gone (or, when none
// moved, of the attempt started again on the same nodes).
func (rc *recoverer) record(s *submission, gone []string, moved map[string]placement, from solve.CheckpointPlan, why string) {
	lost, detected := s.failed.Node, s.finished
	what := "every part from its newest checkpoint"
	switch {
	case !from.Latest && from.Restore == 0:
		what = "every part from the start (" + why + ")"
	case !from.Latest:
		what = fmt.Sprintf("every part rolled back to iteration %d", from.Restore)
	case len(from.OrStart) > 0:
		what = fmt.Sprintf("each part from its newest checkpoint, rank %s with none yet from the start", ranksText(from.OrStart))
	}
	add := func(name, cause string, to placement) string {
		rec := jobs.Recovery{Node: name, Cause: cause, Rank: slices.Index(s.plan.Ranks, name), To: to.node, How: to.how, Detected: detected}
		if !from.Latest {
			rec.From = from.Restore
		}
		rec.FromStart = !from.Latest && from.Restore == 0 || from.Latest && slices.Contains(from.OrStart, rec.Rank)
		if k, back := from.Rollback[rec.Rank]; back && from.Latest {
			rec.From, rec.FromStart, rec.Cluster = k, k == 0, rollbackCluster(from, rec.Rank, s.plan)
			rc.done = append(rc.done, rec)
			return rollbackText(rec)
		}
		rc.done = append(rc.done, rec)
		if from.Latest && rec.FromStart {
			return "its part from the start (no checkpoint yet), the others from their newest checkpoint"
		}
		return what
	}
	origin := lost // the node whose loss took the others
	if g := s.failedGateway(); g != nil && len(gone) > 0 {
		origin = s.blamed.Node
		add(lost, s.failed.Cause, placement{lost, "without the gateway"})
		s.logf(lost, "FAILED (%s): the run goes on without gateway %s (its site's links direct, else through SSH tunnels)", s.failed.Cause, g.Name)
	}
	if len(gone) == 0 {
		to, links := placement{lost, "same nodes again"}, ""
		if g := s.failedGateway(); g != nil {
			to.how = "same nodes again, without the gateway"
			links = fmt.Sprintf(" without gateway %s (its site's links direct, else through SSH tunnels)", g.Name)
		}
		add(lost, s.failed.Cause, to)
		s.logf(lost, "FAILED (%s): the run starts again on the same nodes%s; %s", s.failed.Cause, links, what)
	}
	for _, name := range gone {
		cause := s.failed.Cause
		switch {
		case name == origin:
		case isDrain(s) && hostName(name) == hostName(lost):
			cause += " (its host " + hostName(lost) + " left)"
		case slices.Contains(lostWith(s, origin), name):
			cause = "its coordinator " + origin + " was lost"
		default:
			cause = "its worker ended with the attempt"
		}
		how := add(name, cause, moved[name])
		s.logf(name, "LOST (%s): rank %d moves to %s (%s); %s", cause, slices.Index(s.plan.Ranks, name), moved[name].node, moved[name].how, how)
	}
}

// ranksText lists ranks for the event log: "3" or "1, 4".
func ranksText(ranks []int) string {
	out := make([]string, len(ranks))
	for i, r := range ranks {
		out[i] = strconv.Itoa(r)
	}
	return strings.Join(out, ", ")
}

// withEnded adds to gone the nodes of s's plan whose worker has ended
// meanwhile (with the members of an ended coordinator): a member whose
// parent's link broke as the attempt ended exits ("parent lost"), and the
// next attempt must not be planned on it. Without any, gone is returned
// as it is.
func withEnded(s *submission, gone []string) []string {
	for _, name := range s.plan.Ranks {
		if w := s.workers[name]; w == nil || !isDone(w) || slices.Contains(gone, name) {
			continue
		}
		for _, n := range lostWith(s, name) {
			if !slices.Contains(gone, n) {
				gone = append(gone, n)
			}
		}
	}
	return gone
}

// lostWith returns the nodes lost with lost: itself and, for a
// coordinator, the members of its group, whose workers end with their
// parent.
func lostWith(s *submission, lost string) []string {
	out := []string{lost}
	for _, g := range s.plan.Groups {
		if g.Coordinator != lost {
			continue
		}
		for _, w := range g.Workers {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// restartTimeout bounds the start of a recovery's new workers (an SSH
// session, or a step of a batch allocation, with its hello): every
// surviving part waits for them, so a start that hangs ends the run with
// the reason instead.
const restartTimeout = time.Minute

// placement is where a lost node's part goes.
type placement struct{ node, how string }

// replace finds the nodes that take the lost nodes' parts: spares (live
// workers of the job outside the plan), else workers restarted on the lost
// nodes' hosts, else second workers on surviving nodes of their clusters
// (recovery_second.go) for the hosts where none started. The lost workers are killed first; a worker restarted on a
// lost node's host is handed back only once the lost one is gone (bounded
// as stopLost is), since both are the same peer on the control plane: a
// survivor's link to a lost worker that was stopped (SIGSTOP) or is slow
// to die stays up, and rmnp sends on a peer's oldest link, so the new
// attempt's task, assignment or fetch would go to the old process and be
// lost with it — the new worker, never given its task, silent until
// StartupTimeout named it lost again.
func (rc *recoverer) replace(ctx context.Context, s *submission, gone []string) (map[string]placement, error) {
	var keep []*deploy.Worker
	hosts := map[string]inventory.Host{}
	stopped := map[string]chan struct{}{}
	for _, w := range *rc.workers {
		if slices.Contains(gone, w.Host.Name) {
			hosts[w.Host.Name] = w.Host
			c := make(chan struct{})
			stopped[w.Host.Name] = c
			go func() {
				stopLost(w)
				close(c)
			}()
			continue
		}
		keep = append(keep, w)
	}
	*rc.workers = keep
	moved := map[string]placement{}
	var restart []inventory.Host
	used, drained := map[string]bool{}, false
	for _, name := range gone {
		spare := ""
		for _, w := range keep {
			n := w.Host.Name
			if !used[n] && !slices.Contains(s.plan.Ranks, n) && !isDone(w) {
				spare = n
				break
			}
		}
		if spare != "" {
			used[spare] = true
			moved[name] = placement{spare, "spare"}
			continue
		}
		if isDrain(s) && hostName(name) == hostName(s.failed.Node) {
			h, to, err := rc.drainedTo(slices.Concat(restart, s.joins.pendingHosts()), s.plan.Ranks, name)
			if err != nil {
				return nil, err
			}
			drained = true
			restart, moved[name] = append(restart, h), to
			continue
		}
		h, ok := hosts[name]
		if !ok {
			return nil, fmt.Errorf("no spare for %s and its host is unknown", name)
		}
		restart = append(restart, h)
		moved[name] = placement{name, "new worker on its host"}
	}
	if len(restart) == 0 {
		return moved, nil
	}
	started, err := rc.restartOrSecond(ctx, s, restart, moved, drained)
	if err != nil {
		return nil, err
	}
	*rc.workers = append(*rc.workers, started...)
	if rc.opt.OnWorkers != nil {
		rc.opt.OnWorkers(*rc.workers)
	}
	for _, h := range restart {
		if c := stopped[h.Name]; c != nil {
			<-c // the new worker started meanwhile
		}
	}
	return moved, nil
}

func isDone(w *deploy.Worker) bool {
	select {
	case <-w.Done():
		return true
	default:
		return false
	}
}

// noteRecovered records, once every part of a recovered attempt iterates
// past its restart point, how long the recovery took.
func (s *submission) noteRecovered(now time.Time) {
	if len(s.recoveries) == 0 {
		return
	}
	last := &s.recoveries[len(s.recoveries)-1]
	if last.Took > 0 {
		return
	}
	for _, st := range s.statuses {
		if st.Iteration <= int(last.From) || st.Iteration == 0 {
			return
		}
	}
	took := now.Sub(last.Detected)
	for i := range s.recoveries {
		if r := &s.recoveries[i]; r.Took == 0 && r.Detected.Equal(last.Detected) {
			r.Took, r.Seconds = took, took.Seconds()
		}
	}
	s.logf("", "recovered from the loss of %s in %v: every part iterates again", last.Node, took.Round(time.Millisecond))
}

// attempts runs the job again after each loss it can recover from, and
// returns the last attempt; a loss it cannot recover from says why in the
// report and the error. A run that ends well leaves no checkpoint behind.
func (rc *recoverer) attempts(ctx context.Context, s *submission, rep *Report, err error) (*submission, *Report, error) {
	for err != nil {
		next, note := rc.next(ctx, s)
		if next == nil {
			if note != "" {
				rep.Cause = strings.TrimSuffix(rep.Cause, ".") + "; " + note
				s.logf("", "%s", note)
				err = fmt.Errorf("%w; %s", err, note)
			}
			break
		}
		s = next
		rep, err = s.execute(ctx)
	}
	if err == nil && rc.dir != "" {
		checkpoint.Dir{Path: rc.dir}.Remove(rc.key)
	}
	return s, rep, err
}

// spareHosts returns n hosts of the inventory outside hosts: the job's
// spares (its own clusters first).
func spareHosts(inv *inventory.Inventory, hosts []inventory.Host, n int) []inventory.Host {
	if n <= 0 {
		return nil
	}
	used, clusters := map[string]bool{}, map[string]bool{}
	for _, h := range hosts {
		used[h.Name], clusters[h.Cluster] = true, true
	}
	var same, other []inventory.Host
	for _, h := range inv.Hosts() {
		switch {
		case used[h.Name], strings.Contains(h.Name, secondSep): // a second worker's entry is its host's
		case clusters[h.Cluster]:
			same = append(same, h)
		default:
			other = append(other, h)
		}
	}
	all := append(same, other...)
	return all[:min(n, len(all))]
}

// withoutHosts returns the workers not on hosts.
func withoutHosts(workers []*deploy.Worker, hosts []inventory.Host) []*deploy.Worker {
	var out []*deploy.Worker
	for _, w := range workers {
		if !slices.ContainsFunc(hosts, func(h inventory.Host) bool { return h.Name == w.Host.Name }) {
			out = append(out, w)
		}
	}
	return out
}

// hostsOf returns the workers' hosts.
func hostsOf(workers []*deploy.Worker) []inventory.Host {
	out := make([]inventory.Host, len(workers))
	for i, w := range workers {
		out[i] = w.Host
	}
	return out
}
