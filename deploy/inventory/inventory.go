package inventory

import (
	"net/netip"
	"time"

	"github.com/gridtui/gridtui/deploy/sched"
	"github.com/gridtui/gridtui/owner"
	"github.com/gridtui/gridtui/probe"
)

// Launcher says how a site's workers are started.
type Launcher string

// The built-in launchers: SSH to every host, local processes. Any other
// launcher is a batch scheduler registered by name (sched.RegisterScheduler):
// each one registers itself in its package under deploy/sched.
const (
	LauncherSSH   Launcher = "ssh"
	LauncherLocal Launcher = "local"
)

// Inventory is a parsed and validated sites.toml: every host of every cluster,
// node-set ranges expanded, defaults and ~/.ssh/config applied.
type Inventory struct {
	// Source is the file the inventory came from, or "embedded".
	Source string
	// Example marks the repository's example inventory (example = true):
	// Load("") skips such a file and uses the embedded local grid instead.
	Example bool
	// Notice, when set, is a line to show the user about how the inventory
	// was chosen (for instance why ./sites.toml was not used).
	Notice string
	// Locality is the rule that groups nodes into clusters (locality and
	// prefix_bits in the file): probe.RuleOctet unless the file says.
	Locality probe.Locality
	Defaults Defaults
	Sites    []Site
}

// Defaults apply to every host unless a site, cluster or host overrides them.
type Defaults struct {
	User           string
	Port           int
	IdentityFiles  []string
	KnownHosts     string
	Workdir        string
	ConnectTimeout time.Duration
}

// Site is one grid site: a set of clusters reached the same way.
type Site struct {
	Name     string
	Frontend string // optional jump host, "user@host:port" or "host"; where a batch scheduler is asked
	Launcher Launcher
	// Batch are the allocation options of a batch launcher ([site.batch]).
	Batch    sched.BatchOptions
	Clusters []Cluster
	// Gateways are the site's gateway hosts ([[site.gateway]]): the links
	// of its workers to the nodes of another site that they cannot reach
	// directly run through a gateway of each site. The first is used.
	Gateways []Gateway
}

// Gateway is a host of a site that carries the site's links to other sites
// (PACX-MPI's gateway processes): gridtui starts `gridtui gateway` on it
// with the job. The site's workers reach it at its host name; the gateways
// of other sites reach it at Address.
type Gateway struct {
	// Host is the inventory host the gateway runs on (over SSH, as a worker).
	Host string
	// Address is where other sites' gateways dial it (its WAN side): an IP
	// address or a host name. Empty: no port of it is open to other sites,
	// and the gateway links that would dial it go through an SSH tunnel
	// (the console's SSH connections to both gateway hosts).
	Address string
	// Ports are the ports other sites may reach, in order of preference:
	// the gateway listens on the first one it can bind.
	Ports []int
}

// Cluster is a set of similar hosts at one site.
type Cluster struct {
	Name  string
	Cores int
	// Ethernet and Fast are interface-name hints ("eth0", "ib0") that override
	// NIC kind detection on the cluster's hosts.
	Ethernet string
	Fast     string
	Hosts    []Host
}

// Host is one node of the grid, with every default resolved.
type Host struct {
	// Name is the node's name: the SSH host name, or "alpha-1" for local nodes.
	Name    string
	Site    string
	Cluster string
	Cores   int
	// SSH settings (unused by the local launcher).
	User          string
	Port          int
	IdentityFiles []string
	ProxyJump     string // jump host for this host, from the site frontend or ~/.ssh/config
	Workdir       string
	// Interface hints inherited from the cluster unless overridden.
	Ethernet string
	Fast     string
	// EthernetAddr and FastAddr are the addresses of a local-launcher node
	// (loopback range); zero for SSH hosts, whose addresses come from probing.
	EthernetAddr netip.Addr
	FastAddr     netip.Addr
	// Owner is the host's owner policy (an [owner] table of its site,
	// cluster or host): a desktop gridtui uses only while its owner does
	// not. Nil: the host is gridtui's whenever it is asked for.
	Owner *owner.Policy `json:",omitempty"`
}

// Hosts returns every host of the inventory in order: sites, clusters, hosts.
func (inv *Inventory) Hosts() []Host {
	var out []Host
	for _, s := range inv.Sites {
		for _, c := range s.Clusters {
			out = append(out, c.Hosts...)
		}
	}
	return out
}
