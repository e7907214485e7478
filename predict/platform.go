package predict

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Network is one network's performance as the replay uses it: the time a
// message waits before its first byte arrives and the rate of the rest.
type Network struct {
	Latency   time.Duration `json:"latency_seconds"`
	Bandwidth float64       `json:"bandwidth_bytes_per_s"` // bytes per second
	// Source says where the figures come from: "default", "measured" (from
	// recorded runs) or "set" (what-if).
	Source string `json:"source"`
	// LatencySource is "probe" when the latency is the one the traced
	// runs' pre-flight handshakes measured (see probeLatencies); empty
	// when it is Source's.
	LatencySource string `json:"latency_source,omitempty"`
}

// transfer is the time one message of n bytes takes on the network.
func (n Network) transfer(bytes float64) float64 {
	t := n.Latency.Seconds()
	if n.Bandwidth > 0 {
		t += bytes / n.Bandwidth
	}
	return t
}

// Cluster is a set of nodes that reach each other over one network.
type Cluster struct {
	Name    string `json:"name"`
	Nodes   int    `json:"nodes"`
	Network string `json:"network"` // the network inside the cluster
	// NetworkSource says where Network comes from: SourceTraced,
	// SourceInventory or SourceDefault.
	NetworkSource string `json:"network_source,omitempty"`
}

// Where a cluster's network comes from (Cluster.NetworkSource).
const (
	// SourceTraced: a traced run's link inside the cluster.
	SourceTraced = "traced"
	// SourceInventory: the inventory's addresses of the cluster's hosts
	// (no traced run had a link inside it).
	SourceInventory = "inventory"
	// SourceDefault: neither (Ethernet, or another traced cluster's).
	SourceDefault = "default"
)

// untracedNetwork is the network inside a cluster no traced run shows a
// link inside: the inventory's, else Ethernet.
func untracedNetwork(name string, inventory map[string]string) (network, source string) {
	if n := inventory[name]; n != "" {
		return n, SourceInventory
	}
	return "ethernet", SourceDefault
}

// Platform is the machine a prediction is for: its clusters, the network
// between them and the figures of every network.
type Platform struct {
	Clusters []Cluster          `json:"clusters"`
	Between  string             `json:"between"` // the network between clusters
	Networks map[string]Network `json:"networks"`
	// SharedCores is the number of cores all nodes share when they run on
	// one host (the local grid); 0: every node has its own cores.
	SharedCores int `json:"shared_cores,omitempty"`
}

// DefaultNetworks are the figures used for a network no run measured: the
// nominal rates of the kinds GRIDHPC's Table I lists.
func DefaultNetworks() map[string]Network {
	return map[string]Network{
		"ethernet":   {Latency: 50 * time.Microsecond, Bandwidth: 125e6, Source: "default"},
		"infiniband": {Latency: 5 * time.Microsecond, Bandwidth: 1.25e9, Source: "default"},
		"myrinet":    {Latency: 10 * time.Microsecond, Bandwidth: 250e6, Source: "default"},
		"unix":       {Latency: 5 * time.Microsecond, Bandwidth: 2e9, Source: "default"},
	}
}

// Nodes is the platform's node count.
func (p Platform) Nodes() int {
	n := 0
	for _, c := range p.Clusters {
		n += c.Nodes
	}
	return n
}

// ErrPlatform is wrapped by the errors of a bad platform description.
var ErrPlatform = errors.New("predict: platform")

// network returns the figures of the named network.
func (p Platform) network(name string) (Network, error) {
	n, ok := p.Networks[name]
	if !ok {
		return Network{}, fmt.Errorf("%w: no figures for network %q", ErrPlatform, name)
	}
	return n, nil
}

// SetNetwork applies a what-if edit "name=bandwidth[,latency]", e.g.
// "ethernet=10Gbit/s,100us" or "ethernet=100Mbit/s".
func (p *Platform) SetNetwork(edit string) error {
	name, val, ok := strings.Cut(edit, "=")
	if !ok || name == "" {
		return fmt.Errorf("%w: %q: want network=bandwidth[,latency] (e.g. ethernet=10Gbit/s,100us)", ErrPlatform, edit)
	}
	bw, lat, hasLat := strings.Cut(val, ",")
	n := p.Networks[name]
	rate, err := ParseBandwidth(bw)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrPlatform, name, err)
	}
	n.Bandwidth = rate
	if hasLat {
		d, err := time.ParseDuration(lat)
		if err != nil || d < 0 {
			return fmt.Errorf("%w: %s: latency %q: want a duration such as 100us", ErrPlatform, name, lat)
		}
		n.Latency, n.LatencySource = d, ""
	}
	n.Source = "set"
	if p.Networks == nil {
		p.Networks = map[string]Network{}
	}
	p.Networks[name] = n
	return nil
}

// FormatBandwidth writes a rate in bytes per second as ParseBandwidth
// reads it, in bits per second to four digits: "31.39Gbit/s",
// "100Mbit/s", "64kbit/s".
func FormatBandwidth(bytesPerSec float64) string {
	bits := bytesPerSec * 8
	unit, div := "kbit/s", 1e3
	switch {
	case bits >= 1e9:
		unit, div = "Gbit/s", 1e9
	case bits >= 1e6:
		unit, div = "Mbit/s", 1e6
	}
	return strconv.FormatFloat(bits/div, 'g', 4, 64) + unit
}

// ParseBandwidth reads a rate such as "10Gbit/s", "100Mbit/s", "10Gbps",
// "1.5GB/s" or "10 Gbit/s" into bytes per second.
func ParseBandwidth(s string) (float64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"Gbit/s", 1e9 / 8}, {"Mbit/s", 1e6 / 8}, {"kbit/s", 1e3 / 8}, {"Gbps", 1e9 / 8}, {"Mbps", 1e6 / 8}, {"kbps", 1e3 / 8},
		{"GB/s", 1e9}, {"MB/s", 1e6}, {"kB/s", 1e3}, {"B/s", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			// A rate must be a finite positive number below 1 PB/s.
			if err != nil || !(v > 0) || v*u.mult > 1e15 {
				break
			}
			return v * u.mult, nil
		}
	}
	return 0, fmt.Errorf("bandwidth %q: want a positive rate below 1 PB/s such as 10Gbit/s, 100Mbit/s or 1GB/s", s)
}

// ClustersOf groups the clusters of a job's ranks, in rank order, into the
// platform's clusters, each with its network as traced, else as the
// inventory gives it (inventory, see grid.InsideNetworks; nil: unknown), else
// the first traced cluster's, else Ethernet's.
func ClustersOf(ranks []string, traced Platform, inventory map[string]string) []Cluster {
	fallback := Cluster{Network: "ethernet", NetworkSource: SourceDefault}
	for _, c := range traced.Clusters {
		if c.NetworkSource == SourceTraced {
			fallback = Cluster{Network: c.Network, NetworkSource: SourceDefault}
			break
		}
	}
	var out []Cluster
	for _, name := range ranks {
		if k := len(out); k > 0 && out[k-1].Name == name {
			out[k-1].Nodes++
			continue
		}
		c := Cluster{Name: name, Nodes: 1, Network: fallback.Network, NetworkSource: fallback.NetworkSource}
		if n := inventory[name]; n != "" {
			c.Network, c.NetworkSource = n, SourceInventory
		}
		for _, t := range traced.Clusters {
			if t.Name == name && t.NetworkSource == SourceTraced {
				c.Network, c.NetworkSource = t.Network, SourceTraced
			}
		}
		out = append(out, c)
	}
	return out
}
