package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
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

// hostOf returns the host a node runs on: the node's own, or for a second
// worker ("alpha-1#2") the host it shares.
func (rc *recoverer) hostOf(name string, h inventory.Host) inventory.Host {
	if real, ok := rc.real[name]; ok {
		return real
	}
	return h
}

// startAs starts a worker named node on host h (a second worker when node
// is not h's name).
func (rc *recoverer) startAs(ctx context.Context, node string, h inventory.Host) (*deploy.Worker, error) {
	boot := deploy.BootFor(rc.opt.RunID, rc.opt.Secret)
	as := func(h inventory.Host) deploy.Boot {
		b := boot(h)
		b.Node, b.LogFile = node, deploy.WorkerLogFile(node)
		return b
	}
	ws, err := startRecoveryWorkers(ctx, rc.inv, []inventory.Host{h}, as, rc.opt.Deploy)
	if err != nil {
		return nil, err
	}
	ws[0].Host.Name = node
	return ws[0], nil
}

// secondParts places the parts of lost (nodes whose hosts took no new
// worker) on second workers of surviving nodes of their clusters, and
// starts those workers. It returns them, or fails naming the node that has
// no survivor of its cluster.
func (rc *recoverer) secondParts(ctx context.Context, s *submission, lost []inventory.Host, moved map[string]placement) ([]*deploy.Worker, error) {
	var started []*deploy.Worker
	taken := map[string]bool{}
	for _, w := range *rc.workers {
		taken[w.Host.Name] = true
	}
	for _, h := range lost {
		host, ok := rc.survivorOf(s, h)
		if !ok {
			stopWorkers(started, nil, "")
			return nil, fmt.Errorf("no spare, %s's host takes no new worker, and no surviving node of cluster %s to take its part", h.Name, h.Cluster)
		}
		node := secondName(host.Name, taken)
		taken[node] = true
		w, err := rc.startAs(ctx, node, host)
		if err != nil {
			stopWorkers(started, nil, "")
			return nil, fmt.Errorf("no spare, %s's host takes no new worker, and a second worker on %s did not start: %w", h.Name, host.Name, err)
		}
		started = append(started, w)
		rc.addSecond(node, host)
		moved[h.Name] = placement{node, "second part on " + host.Name}
	}
	return started, nil
}

// survivorOf returns the host of a surviving node of the attempt (live,
// not lost) in h's cluster that holds the fewest parts, other than h.
func (rc *recoverer) survivorOf(s *submission, h inventory.Host) (inventory.Host, bool) {
	parts := map[string]int{}
	for _, w := range *rc.workers {
		parts[rc.hostOf(w.Host.Name, w.Host).Name]++
	}
	var best inventory.Host
	found := false
	for _, w := range *rc.workers {
		real := rc.hostOf(w.Host.Name, w.Host)
		if isDone(w) || !s.inRun(w.Host.Name) || real.Name == rc.hostOf(h.Name, h).Name || real.Cluster != h.Cluster {
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
// (a second worker's on the host it shares), each on its own: it returns
// the workers started, and the hosts where none started with the errors.
func (rc *recoverer) restartOn(ctx context.Context, restart []inventory.Host) ([]*deploy.Worker, []inventory.Host, error) {
	ws := make([]*deploy.Worker, len(restart))
	errs := make([]error, len(restart))
	var wg sync.WaitGroup
	for i, h := range restart {
		real, ok := rc.real[h.Name]
		if !ok {
			real = h
		}
		wg.Go(func() { ws[i], errs[i] = rc.startAs(ctx, h.Name, real) })
	}
	wg.Wait()
	var started []*deploy.Worker
	var failed []inventory.Host
	for i, h := range restart {
		if errs[i] != nil {
			failed = append(failed, h)
			continue
		}
		started = append(started, ws[i])
	}
	return started, failed, errors.Join(errs...)
}

// restartOrSecond starts new workers on the lost nodes' hosts (restart);
// when they do not start and no node was drained, their parts go to second
// workers on surviving nodes of their clusters instead (moved says so).
func (rc *recoverer) restartOrSecond(ctx context.Context, s *submission, restart []inventory.Host, moved map[string]placement, drained bool) ([]*deploy.Worker, error) {
	sctx, cancel := context.WithTimeout(ctx, restartTimeout)
	defer cancel()
	started, failed, err := rc.restartOn(sctx, restart)
	if err == nil {
		return started, nil
	}
	if ctx.Err() == nil && !drained {
		s.logf("", "no new worker on %s (%v): their parts go to surviving nodes", hostNames(failed), err)
		// The new workers on the other lost nodes' hosts are survivors too
		// (a lost coordinator's members, whose hosts answer).
		*rc.workers = append(*rc.workers, started...)
		tctx, cancel := context.WithTimeout(ctx, restartTimeout)
		defer cancel()
		second, serr := rc.secondParts(tctx, s, failed, moved)
		*rc.workers = (*rc.workers)[:len(*rc.workers)-len(started)]
		if serr == nil {
			return append(started, second...), nil
		}
		err = fmt.Errorf("%w; %w", err, serr)
	}
	stopWorkers(started, nil, "")
	if ctx.Err() == nil && sctx.Err() != nil {
		return nil, fmt.Errorf("no spare, and new workers did not start within %v: %w", restartTimeout, err)
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
