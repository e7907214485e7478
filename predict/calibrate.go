package predict

import (
	"cmp"
	"slices"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// PlatformFor is the platform the model's runs used, resized to nodes: the
// clusters of its latest source filled evenly in order, each cluster's
// network and the one between clusters as their traces show, the figures of
// every network measured from the synchronous runs (bandwidth: bytes sent
// over the time spent sending, on nodes that used one network) or else
// DefaultNetworks, and on the embedded local grid the console host's cores
// shared by every node. A cluster whose traces show no link inside it
// (a run of one node) is on Ethernet: PlatformWith says otherwise.
func PlatformFor(res *jobs.Results, m *Model, nodes int) Platform {
	return PlatformWith(res, m, nodes, nil)
}

// PlatformWith is PlatformFor with the network inside each cluster as the
// inventory gives it (grid.InsideNetworks) for the clusters whose traces show
// no link inside them.
func PlatformWith(res *jobs.Results, m *Model, nodes int, inventory map[string]string) Platform {
	pl := Platform{Networks: DefaultNetworks(), Between: "ethernet"}
	latest := latestSource(res, m)
	if latest == nil {
		pl.Clusters = []Cluster{{Name: "cluster", Nodes: nodes, Network: "ethernet", NetworkSource: SourceDefault}}
		return pl
	}
	if latest.Job.Inventory == jobs.InventoryEmbedded {
		pl.SharedCores = latest.Machine.Cores
	}
	if m.SharedCores > 0 {
		pl.SharedCores = m.SharedCores
	}
	names, inside := clusterNetworks(latest, &pl)
	for i, name := range names {
		share := nodes / len(names)
		if i < nodes%len(names) {
			share++
		}
		if share > 0 {
			c := Cluster{Name: name, Nodes: share, Network: inside[name], NetworkSource: SourceTraced}
			if c.Network == "" {
				c.Network, c.NetworkSource = untracedNetwork(name, inventory)
			}
			pl.Clusters = append(pl.Clusters, c)
		}
	}
	probeLatencies(res, m, &pl)
	measureNetworks(res, m, &pl, latest.Job.Inventory == jobs.InventoryEmbedded)
	return pl
}

// probeLatencies sets the latency of every network the model's sources'
// links used from their pre-flight handshakes (jobs.LinkTrace's
// HandshakeMicros: TCP's and RMNP's, two round trips, so four one-way
// latencies): the least over the links, the least disturbed one, as the
// bandwidth fit keeps the least exchange.
func probeLatencies(res *jobs.Results, m *Model, pl *Platform) {
	ids := map[string]bool{}
	for _, s := range m.Sources {
		ids[s.ID] = true
	}
	least := map[string]uint64{}
	for _, r := range res.Records {
		if !ids[r.ID] {
			continue
		}
		for _, n := range r.Nodes {
			for _, l := range n.Trace.Links {
				if l.HandshakeMicros > 0 && (least[l.Network] == 0 || l.HandshakeMicros < least[l.Network]) {
					least[l.Network] = l.HandshakeMicros
				}
			}
		}
	}
	for name, us := range least {
		net, ok := pl.Networks[name]
		if !ok {
			continue // a label no platform network has (a route through gateways)
		}
		net.Latency, net.LatencySource = time.Duration(us)*time.Microsecond/4, "probe"
		pl.Networks[name] = net
	}
}

// latestSource is the newest record among the model's sources.
func latestSource(res *jobs.Results, m *Model) *jobs.RunRecord {
	ids := map[string]bool{}
	for _, s := range m.Sources {
		ids[s.ID] = true
	}
	var latest *jobs.RunRecord
	for i := range res.Records {
		r := &res.Records[i]
		if ids[r.ID] && (latest == nil || r.Time.After(latest.Time)) {
			latest = r
		}
	}
	return latest
}

// clusterNetworks reads from rec's traces the clusters in rank order, the
// network inside each ("" when no link inside it was traced) and the one
// between them (into pl.Between).
func clusterNetworks(rec *jobs.RunRecord, pl *Platform) ([]string, map[string]string) {
	byRank := map[int]string{}
	var names []string
	inside := map[string]string{}
	for _, n := range rec.Nodes {
		byRank[n.Rank] = n.Cluster
		if _, ok := inside[n.Cluster]; !ok {
			names = append(names, n.Cluster)
			inside[n.Cluster] = ""
		}
	}
	for _, n := range rec.Nodes {
		for _, l := range n.Trace.Links {
			if byRank[l.Peer] == n.Cluster {
				inside[n.Cluster] = l.Network
			} else {
				pl.Between = l.Network
			}
		}
	}
	return names, inside
}

// measureNetworks replaces the default bandwidth of every network that
// the synchronous sources show by the one their iterations imply: a
// synchronous iteration is a sweep then an exchange, so the exchange takes
// the busiest node's time per iteration less its mean sweep (and less the
// host's exchange delay on a shared host). A run over one network gives
// that network's exchange time; a run over several gives the one network
// not yet known, when its exchange is slower than the known ones explain
// (the run's bottleneck), else a bound on the slowest known one; each
// network keeps its least exchange time (the least disturbed run). The bandwidth is the traffic of a link per
// iteration over the exchange time less the network's latency.
func measureNetworks(res *jobs.Results, m *Model, pl *Platform, loopback bool) {
	var xs []runExchange
	ids := map[string]bool{}
	for _, s := range m.Sources {
		ids[s.ID] = s.Scheme == jobs.Synchronous
	}
	for _, r := range res.Records {
		if !ids[r.ID] {
			continue
		}
		if x, ok := syncExchange(r, m); ok {
			xs = append(xs, x)
		}
	}
	slices.SortStableFunc(xs, func(a, b runExchange) int { return len(a.nets) - len(b.nets) })
	// A run's exchange bounds the time of its slowest network from above
	// (on a shared machine other load only slows a run down): each
	// network keeps the least bound.
	fitted := map[string]float64{}
	for _, x := range xs {
		var unknown []string
		slowest := ""
		for _, n := range x.nets {
			if d, ok := fitted[n]; !ok {
				unknown = append(unknown, n)
			} else if slowest == "" || d > fitted[slowest] {
				slowest = n
			}
		}
		switch {
		case len(x.nets) == 1:
			fitted[x.nets[0]] = min(x.seconds, cmp.Or(fitted[x.nets[0]], x.seconds))
		case len(unknown) == 1 && (slowest == "" || x.seconds > 1.25*fitted[slowest]):
			fitted[unknown[0]] = x.seconds
		case slowest != "":
			fitted[slowest] = min(fitted[slowest], x.seconds)
		}
	}
	bytes := m.LinkBytes
	var measured Network
	for name, d := range fitted {
		net := pl.Networks[name]
		if net.LatencySource == "probe" && net.Latency.Seconds() >= d {
			// A handshake slower than a whole exchange was slowed by
			// something else than the network: keep the default.
			net.Latency, net.LatencySource = DefaultNetworks()[name].Latency, ""
		}
		if net.Latency == 0 {
			net.Latency = 50 * time.Microsecond
		}
		if t := d - net.Latency.Seconds(); t > 0 && bytes > 0 {
			net.Bandwidth, net.Source = bytes/t, "measured"
			pl.Networks[name] = net
			measured = net
		}
	}
	if !loopback {
		return
	}
	// On the local grid every network is the loopback: one measured is
	// the figure of all. With none measured (the synchronous waits the
	// exchange delay fits leave no exchange time over), the networks are
	// still the loopback, not the hardware the defaults describe: its
	// figures, and no probed latency (a handshake there is as long as the
	// processes' turns on the cores, which the delay already counts).
	if measured.Source == "" {
		measured = DefaultNetworks()["unix"]
		measured.Source = "loopback: the exchanges are in the traced waits"
	} else {
		measured.Source = "measured on another network (loopback)"
	}
	for name, net := range pl.Networks {
		if net.Source == "default" {
			pl.Networks[name] = measured
		}
	}
}

// runExchange is one synchronous run's exchange time per iteration and the
// networks its links used.
type runExchange struct {
	nets    []string
	seconds float64
}

// syncExchange reads a synchronous run's exchange time per iteration.
func syncExchange(r jobs.RunRecord, m *Model) (runExchange, bool) {
	var x runExchange
	busiest, sweep, iters := 0.0, 0.0, 0
	seen := map[string]bool{}
	for _, n := range r.Nodes {
		busiest = max(busiest, n.ComputeSeconds+n.SendSeconds+n.WaitSeconds)
		sweep = max(sweep, n.Trace.Sweeps.Mean())
		iters = max(iters, n.Iterations)
		for _, l := range n.Trace.Links {
			if !seen[l.Network] {
				seen[l.Network] = true
				x.nets = append(x.nets, l.Network)
			}
		}
	}
	if iters == 0 || len(x.nets) == 0 {
		return x, false
	}
	slices.Sort(x.nets)
	x.seconds = busiest/float64(iters) - sweep - m.ExchangeDelay.At(contention(r))
	return x, x.seconds > 0
}
