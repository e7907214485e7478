package predict

import (
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// PlatformFor is the platform the model's runs used, resized to nodes: the
// clusters of its latest source filled evenly in order, each cluster's
// network and the one between clusters as their traces show, the figures of
// every network measured from the synchronous runs (bandwidth: bytes sent
// over the time spent sending, on nodes that used one network) or else
// DefaultNetworks, and on the embedded local grid the console host's cores
// shared by every node.
func PlatformFor(res *jobs.Results, m *Model, nodes int) Platform {
	pl := Platform{Networks: DefaultNetworks(), Between: "ethernet"}
	latest := latestSource(res, m)
	if latest == nil {
		pl.Clusters = []Cluster{{Name: "cluster", Nodes: nodes, Network: "ethernet"}}
		return pl
	}
	if latest.Job.Inventory == jobs.InventoryEmbedded {
		pl.SharedCores = latest.Machine.Cores
	}
	names, inside := clusterNetworks(latest, &pl)
	for i, name := range names {
		share := nodes / len(names)
		if i < nodes%len(names) {
			share++
		}
		if share > 0 {
			pl.Clusters = append(pl.Clusters, Cluster{Name: name, Nodes: share, Network: inside[name]})
		}
	}
	measureNetworks(res, m, &pl)
	return pl
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
// network inside each and the one between them (into pl.Between).
func clusterNetworks(rec *jobs.RunRecord, pl *Platform) ([]string, map[string]string) {
	byRank := map[int]string{}
	var names []string
	inside := map[string]string{}
	for _, n := range rec.Nodes {
		byRank[n.Rank] = n.Cluster
		if _, ok := inside[n.Cluster]; !ok {
			names = append(names, n.Cluster)
			inside[n.Cluster] = "ethernet"
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

// measureNetworks replaces the default bandwidth of every network that a
// synchronous source's node used alone by the measured one.
func measureNetworks(res *jobs.Results, m *Model, pl *Platform) {
	ids := map[string]bool{}
	for _, s := range m.Sources {
		if s.Scheme == jobs.Synchronous {
			ids[s.ID] = true
		}
	}
	bytes, secs := map[string]float64{}, map[string]float64{}
	for _, r := range res.Records {
		if !ids[r.ID] {
			continue
		}
		for _, n := range r.Nodes {
			nets := map[string]bool{}
			var b float64
			for _, l := range n.Trace.Links {
				nets[l.Network] = true
				b += float64(l.BytesSent)
			}
			if len(nets) != 1 || n.SendSeconds <= 0 {
				continue
			}
			for name := range nets {
				bytes[name] += b
				secs[name] += n.SendSeconds
			}
		}
	}
	var measured Network
	for name, b := range bytes {
		net := pl.Networks[name]
		if net.Latency == 0 {
			net.Latency = 50 * time.Microsecond
		}
		net.Bandwidth, net.Source = b/secs[name], "measured"
		pl.Networks[name] = net
		measured = net
	}
	if pl.SharedCores == 0 || measured.Source == "" {
		return
	}
	// On the local grid every network is the loopback: one measured is
	// the figure of all.
	for name, net := range pl.Networks {
		if net.Source == "default" {
			measured.Source = "measured on another network (loopback)"
			pl.Networks[name] = measured
		}
	}
}
