package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/worker"
)

// A second part (docs/FAILURES.md, "Where a part goes"): when a lost
// node's host takes no new worker (it is gone, or the start failed) and
// the job has no spare, a surviving node of the same cluster takes the
// part. It does so with a second worker process on its host, under a node
// name of its own, "<host>#2" (a peer id of its own on the control and data
// planes): the plan maps the lost rank to that name and routes its pairs
// by Algorithm 1 with pre-flight, as any node's. The second worker shares
// the host's cores with the first.

// startRecoveryWorkers starts the workers of a run after its start (a
// recovery's, a joining host's): deploy.StartWorkers, but for the tests
// that make a lost node's host refuse a new worker, or a joining host slow.
var startRecoveryWorkers = deploy.StartWorkers

// hostName returns the host node runs on, by its name: "alpha-1" for
// "alpha-1#2".
func hostName(node string) string {
	host, _, _ := strings.Cut(node, secondSep)
	return host
}

// secondSep separates a host's name from a second worker's number.
const secondSep = "#"

// realHost returns the host a worker whose Host is h runs on: h itself, or
// for a second worker (h.Name "alpha-1#2", its entry a copy of its host's)
// h under its host's name, the one SSH dials.
func realHost(h inventory.Host) inventory.Host {
	h.Name = hostName(h.Name)
	return h
}

// hostOf returns the host a node runs on: the node's own, or for a second
// worker ("alpha-1#2") the host it shares.
func (rc *recoverer) hostOf(name string, h inventory.Host) inventory.Host {
	if real, ok := rc.real[name]; ok {
		return real
	}
	return h
}

// nodeOn is a worker to start: under the node name node, on host (a
// second worker when node is not host's name).
type nodeOn struct {
	node string
	host inventory.Host
}

// startNodes starts a worker for each of nodes with one start call (one
// SSH pool, one batch allocation), or one per round when some share a
// host (a boot is chosen per host). All or none: on an error the workers
// of the rounds before are stopped, and failed lists the nodes whose hosts
// the error names (none when it names none).
func (rc *recoverer) startNodes(ctx context.Context, nodes []nodeOn) (started []*deploy.Worker, failed []nodeOn, err error) {
	for left := nodes; len(left) > 0; {
		round, rest := oneRound(left)
		ws, err := rc.startRound(ctx, round)
		if err != nil {
			stopWorkers(started, nil, "")
			return nil, namedIn(err, round), err
		}
		started, left = append(started, ws...), rest
	}
	return started, nil, nil
}

// oneRound splits nodes into those of one start call (the first on each
// host) and the rest.
func oneRound(nodes []nodeOn) (round, rest []nodeOn) {
	on := map[string]bool{}
	for _, n := range nodes {
		if on[n.host.Name] {
			rest = append(rest, n)
			continue
		}
		on[n.host.Name] = true
		round = append(round, n)
	}
	return round, rest
}

// startRound starts round's workers with one call, each booted under its
// node's name; their Host.Name is the node's name.
func (rc *recoverer) startRound(ctx context.Context, round []nodeOn) ([]*deploy.Worker, error) {
	boot := deploy.BootFor(rc.opt.RunID, rc.opt.Secret)
	as := map[string]string{}
	hosts := make([]inventory.Host, len(round))
	for i, n := range round {
		as[n.host.Name], hosts[i] = n.node, n.host
	}
	ws, err := startRecoveryWorkers(ctx, rc.inv, hosts, func(h inventory.Host) deploy.Boot {
		b := boot(h)
		if node := as[h.Name]; node != "" {
			b.Node, b.LogFile = node, deploy.WorkerLogFile(node)
		}
		return b
	}, rc.opt.Deploy)
	if err != nil {
		return nil, err
	}
	for i, w := range ws {
		w.Host.Name = round[i].node
	}
	return ws, nil
}

// namedIn returns the nodes of round whose hosts a failed start's error
// names (deploy.Summary.Err: a line "  <host>: <reason>" per failed host).
func namedIn(err error, round []nodeOn) []nodeOn {
	if !errors.Is(err, deploy.ErrHostsFailed) {
		return nil
	}
	var out []nodeOn
	for _, n := range round {
		if strings.Contains(err.Error(), "\n  "+n.host.Name+": ") {
			out = append(out, n)
		}
	}
	return out
}

// secondParts places the parts of lost (nodes whose hosts took no new
// worker) on second workers of surviving nodes of their clusters, each on
// the survivor's host holding the fewest parts (those placed here
// counted), and starts those workers with one call. It returns them, or
// fails naming the node that has no survivor of its cluster; on a failure
// nothing of it is kept.
func (rc *recoverer) secondParts(ctx context.Context, s *submission, lost []inventory.Host, moved map[string]placement) ([]*deploy.Worker, error) {
	taken := map[string]bool{}
	for _, w := range *rc.workers {
		taken[w.Host.Name] = true
	}
	parts := rc.partsOn(s, lost)
	nodes := make([]nodeOn, len(lost))
	for i, h := range lost {
		host, ok := rc.survivorOf(s, h, lost, parts)
		if !ok {
			return nil, fmt.Errorf("no spare, %s's host takes no new worker, and no surviving node of cluster %s to take its part", h.Name, h.Cluster)
		}
		node := secondName(host.Name, taken)
		taken[node] = true
		parts[host.Name]++
		nodes[i] = nodeOn{node, host}
	}
	started, _, err := rc.startNodes(ctx, nodes)
	if err != nil {
		return nil, fmt.Errorf("no spare, %s take no new worker, and second workers did not start: %w", hostNames(lost), err)
	}
	for i, n := range nodes {
		rc.addSecond(n.node, n.host)
		moved[lost[i].Name] = placement{n.node, "second part on " + n.host.Name}
	}
	return started, nil
}

// partsOn counts the parts of the attempt each host holds (a second
// worker's on its host), but lost's.
func (rc *recoverer) partsOn(s *submission, lost []inventory.Host) map[string]int {
	parts := map[string]int{}
	for _, name := range s.plan.Ranks {
		if !slices.ContainsFunc(lost, func(h inventory.Host) bool { return h.Name == name }) {
			parts[hostName(name)]++
		}
	}
	return parts
}

// survivorOf returns the host of a surviving node of the attempt (live,
// not lost) in h's cluster that holds the fewest parts, on none of lost's
// hosts.
func (rc *recoverer) survivorOf(s *submission, h inventory.Host, lost []inventory.Host, parts map[string]int) (inventory.Host, bool) {
	var best inventory.Host
	found := false
	for _, w := range *rc.workers {
		real := rc.hostOf(w.Host.Name, w.Host)
		if isDone(w) || !s.inRun(w.Host.Name) || real.Cluster != h.Cluster ||
			slices.ContainsFunc(lost, func(l inventory.Host) bool { return hostName(l.Name) == real.Name }) {
			continue
		}
		if !found || parts[real.Name] < parts[best.Name] {
			best, found = real, true
		}
	}
	return best, found
}

// secondName returns the first free name "<host>#N", N ≥ 2.
func secondName(host string, taken map[string]bool) string {
	for n := 2; ; n++ {
		if name := fmt.Sprintf("%s%s%d", host, secondSep, n); !taken[name] {
			return name
		}
	}
}

// addSecond records node as a second worker on host: the recovery's
// inventory gets a host of that name in host's cluster (the plan places
// ranks on the inventory's hosts), and a later loss of node restarts it on
// host.
func (rc *recoverer) addSecond(node string, host inventory.Host) {
	if rc.real == nil {
		rc.real = map[string]inventory.Host{}
	}
	rc.real[node] = host
	rc.inv = withHost(rc.inv, node, host)
}

// withHost returns a copy of inv with a host named node beside host (same
// site, cluster and settings).
func withHost(inv *inventory.Inventory, node string, host inventory.Host) *inventory.Inventory {
	if inv == nil {
		return nil
	}
	out := *inv
	out.Sites = slices.Clone(inv.Sites)
	for i, s := range out.Sites {
		s.Clusters = slices.Clone(s.Clusters)
		for j, c := range s.Clusters {
			if slices.ContainsFunc(c.Hosts, func(h inventory.Host) bool { return h.Name == host.Name }) {
				h := host
				h.Name = node
				c.Hosts = append(slices.Clone(c.Hosts), h)
			}
			s.Clusters[j] = c
		}
		out.Sites[i] = s
	}
	return &out
}

// restartOn starts a new worker on each host of restart, a lost node's
// (a second worker's on the host it shares), with one start call (one
// allocation on a batch site). When that fails naming hosts, the others
// are started again with one call; when it names none, each host is
// started on its own. It returns the workers started, and the hosts where
// none started with the errors.
func (rc *recoverer) restartOn(ctx context.Context, restart []inventory.Host) ([]*deploy.Worker, []inventory.Host, error) {
	left := make([]nodeOn, len(restart))
	for i, h := range restart {
		left[i] = nodeOn{h.Name, rc.hostOf(h.Name, h)}
	}
	lostHost := func(n nodeOn) inventory.Host {
		return restart[slices.IndexFunc(restart, func(h inventory.Host) bool { return h.Name == n.node })]
	}
	var started []*deploy.Worker
	var failed []inventory.Host
	var errs []error
	for len(left) > 0 {
		ws, named, err := rc.startNodes(ctx, left)
		if err == nil {
			started = append(started, ws...)
			break
		}
		errs = append(errs, err)
		if ctx.Err() != nil { // out of time: no more calls
			named = left
		}
		if len(named) == 0 {
			ws, f, err := rc.startEach(ctx, left)
			started, errs = append(started, ws...), append(errs, err)
			for _, n := range f {
				failed = append(failed, lostHost(n))
			}
			break
		}
		for _, n := range named {
			failed = append(failed, lostHost(n))
		}
		left = slices.DeleteFunc(left, func(n nodeOn) bool {
			return slices.ContainsFunc(named, func(m nodeOn) bool { return m.node == n.node })
		})
	}
	if len(failed) == 0 {
		return started, nil, nil
	}
	return started, failed, errors.Join(errs...)
}

// startEach starts a worker for each of nodes, each with a call of its
// own (concurrently): the workers started, and the nodes none started for.
func (rc *recoverer) startEach(ctx context.Context, nodes []nodeOn) ([]*deploy.Worker, []nodeOn, error) {
	ws := make([][]*deploy.Worker, len(nodes))
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Go(func() { ws[i], errs[i] = rc.startRound(ctx, []nodeOn{n}) })
	}
	wg.Wait()
	var started []*deploy.Worker
	var failed []nodeOn
	for i, n := range nodes {
		if errs[i] != nil {
			failed = append(failed, n)
			continue
		}
		started = append(started, ws[i]...)
	}
	return started, failed, errors.Join(errs...)
}

// recoveryStartTimeout bounds a recovery's starts of new workers, the
// restarts on the lost nodes' hosts and the second parts together
// (restartTimeout; the tests shorten it).
var recoveryStartTimeout = restartTimeout

// restartShare is the part of recoveryStartTimeout the restarts on the
// lost nodes' hosts may take when second parts can follow: half, or a
// quarter (15 s, beyond an SSH dial's 10 s) when the node was lost to
// silence or a broken connection (its host may be cut off). A host whose
// start fails at once (an SSH dial refused) gives its part to a second
// worker at once.
func restartShare(cause string) time.Duration {
	for _, p := range []string{worker.SilentCause, "connection lost", "cannot reach"} {
		if strings.Contains(cause, p) {
			return recoveryStartTimeout / 4
		}
	}
	return recoveryStartTimeout / 2
}

// restartOrSecond starts new workers on the lost nodes' hosts (restart);
// when they do not start and no node was drained, their parts go to second
// workers on surviving nodes of their clusters instead (moved says so).
// Both share one deadline, recoveryStartTimeout: the restarts take at most
// restartShare of it, the second parts the rest.
func (rc *recoverer) restartOrSecond(ctx context.Context, s *submission, restart []inventory.Host, moved map[string]placement, drained bool) ([]*deploy.Worker, error) {
	dctx, cancel := context.WithTimeout(ctx, recoveryStartTimeout)
	defer cancel()
	sctx, scancel := dctx, context.CancelFunc(func() {})
	if !drained {
		sctx, scancel = context.WithTimeout(dctx, restartShare(s.failed.Cause))
	}
	started, failed, err := rc.restartOn(sctx, restart)
	timedOut := sctx.Err() != nil
	scancel()
	if err == nil {
		return started, nil
	}
	for _, h := range failed {
		if rc.refused == nil {
			rc.refused = map[string]bool{}
		}
		rc.refused[rc.hostOf(h.Name, h).Name] = true
	}
	if ctx.Err() == nil && !drained {
		s.logf("", "no new worker on %s (%v): their parts go to surviving nodes", hostNames(failed), err)
		// The new workers on the other lost nodes' hosts are survivors too
		// (a lost coordinator's members, whose hosts answer).
		*rc.workers = append(*rc.workers, started...)
		second, serr := rc.secondParts(dctx, s, failed, moved)
		*rc.workers = (*rc.workers)[:len(*rc.workers)-len(started)]
		if serr == nil {
			return append(started, second...), nil
		}
		err, timedOut = fmt.Errorf("%w; %w", err, serr), dctx.Err() != nil
	}
	stopWorkers(started, nil, "")
	if ctx.Err() == nil && timedOut {
		return nil, fmt.Errorf("no spare, and new workers did not start within %v: %w", recoveryStartTimeout, err)
	}
	return nil, fmt.Errorf("no spare, and new workers did not start: %w", err)
}

// hostNames lists hosts' names for the event log: "alpha-3, beta-1".
func hostNames(hosts []inventory.Host) string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = h.Name
	}
	return strings.Join(out, ", ")
}
