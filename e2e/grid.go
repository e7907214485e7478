//go:build e2e

package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// Prefix starts the name of everything a Grid creates outside its directory
// (network namespaces, users), so that leftovers of a killed run can be found
// and removed by name (CleanStale) without touching anything else.
const Prefix = "gte2e"

// MaxHosts bounds the hosts of a grid (both clusters together).
const MaxHosts = 16

// Addresses. Everything lives in 198.18.0.0/15 (RFC 2544, benchmarking),
// which is never routed and exists only inside the grid's namespaces: the
// root namespace gets no address, no route and no interface.
//
// eth0 of every host is on one Ethernet segment (198.18.0.0/16) whose third
// octet is the cluster's (64 for A, 34 for B), so GRIDHPC's third-octet
// locality test (Sec. III-B, Table I) tells the clusters apart; ib0 is on the
// cluster's own fast segment (198.19.64.0/24 or 198.19.34.0/24), reachable
// only inside the cluster.
var (
	// ConsoleAddr is the console namespace's eth0 address, on cluster A's
	// side of the Ethernet segment (the user sits at site A).
	ConsoleAddr = netip.MustParseAddr("198.18.1.1")
	clusterDefs = [2]clusterDef{
		{Name: "alpha", Site: "siteA", Key: "a", Octet: 64, First: 11},
		{Name: "beta", Site: "siteB", Key: "b", Octet: 34, First: 21},
	}
)

const (
	ethernetBits = 16
	fastBits     = 24
)

// clusterDef fixes a cluster's names and address block.
type clusterDef struct {
	Name, Site, Key string
	Octet, First    byte
}

// Config says what grid Up builds. The zero value is the default grid.
type Config struct {
	// HostsA and HostsB are the hosts of clusters alpha and beta
	// (default 3 each; together at most MaxHosts).
	HostsA, HostsB int
	// LimitWAN, when set, is a tc tbf rate ("100mbit") applied in both
	// directions to the link between the two clusters' Ethernet bridges,
	// emulating a slow wide-area link (the kernel has tbf but no netem, so
	// there is no added delay).
	LimitWAN string
	// Frontend hides cluster beta behind a frontend, as on Grid'5000: beta's
	// sshds listen only on ib0 (their cluster's own network), a frontend host
	// "fB" (eth0 and ib0 on beta's segments) runs sshd on port 2222 for a user
	// of its own, and ConsoleHome/.ssh/config reaches beta's hosts, named
	// "b1"…, through a Host alias of the frontend (ProxyJump, HostName, User,
	// Port); sites.toml names them and says nothing else about SSH.
	Frontend bool
	// Gateways, when set, is the tc tbf rate of a WAN ("100mbit") and makes
	// the two sites' node networks unrouted to each other (gateway.go): only
	// the first host of each site has a third NIC, wan0, on that WAN, and
	// sites.toml names it as its site's gateway. "ssh" builds the same two
	// sites with no WAN at all: the gateways have no address, and gridtui
	// links them through an SSH tunnel over the console's connections.
	// "closed" is the same without a WAN, but sites.toml names the gateways'
	// WAN addresses and ports anyway (a firewall closed them): gridtui finds
	// the ports closed and falls back to the SSH tunnel.
	Gateways string
	// Slurm runs a real Slurm for cluster beta (needs Frontend): slurmctld
	// on the frontend, a slurmd per beta host, and site B's launcher is
	// "slurm" with the frontend as where allocations are asked (slurm.go).
	Slurm bool
	// OAR runs a real OAR for cluster beta (needs Frontend; not with
	// Slurm): Almighty on the frontend, oar-node's sshd on every beta host,
	// and site B's launcher is "oar" with the frontend as where jobs are
	// submitted (oar.go).
	OAR bool
	// Logf receives what the harness does (default: nothing).
	Logf func(format string, args ...any)
}

// Host is one test host: a network namespace with eth0 and ib0, an sshd and
// a user of its own (whose home holds gridtui's ~/.gridtui for this host).
type Host struct {
	// Name is the short name, "a1" … "b3".
	Name string
	// Cluster and Site are the inventory names of the host's cluster and site.
	Cluster, Site string
	// Netns is the host's network namespace.
	Netns string
	// User is the host's SSH user; Home its home directory.
	User, Home string
	// Ethernet and Fast are the addresses of eth0 and ib0. Ethernet is also
	// the host's name in sites.toml.
	Ethernet, Fast netip.Addr
	// HostKey is the public host key its sshd presents.
	HostKey ssh.PublicKey
	// SSHAddr and SSHPort are where its sshd listens: eth0, port 22, unless
	// the host sits behind a frontend (Config.Frontend).
	SSHAddr netip.Addr
	SSHPort int

	dir       string    // sshd config, host key, log
	sshd      *exec.Cmd // nil once stopped
	sshdExtra string    // lines added to its sshd_config
}

// Grid is a running test grid. Everything it created is removed by Down.
type Grid struct {
	// ID names this grid's namespaces and users: Prefix + ID + "-…".
	ID string
	// Dir holds the grid's files: homes, sshd configs, the console's HOME.
	Dir string
	// Switch is the namespace holding the bridges (the "switches").
	Switch string
	// Console is the namespace gridtui runs in, attached to the Ethernet
	// segment at ConsoleAddr.
	Console string
	// ConsoleHome is HOME for commands run in the console namespace: its
	// .ssh holds the test user key and known_hosts.
	ConsoleHome string
	// SitesFile is the inventory of the grid; KnownHosts has every host key;
	// Identity is the private key every test user accepts.
	SitesFile, KnownHosts, Identity string
	// Hosts lists cluster alpha's hosts, then beta's.
	Hosts []*Host
	// Frontend is beta's frontend when Config.Frontend is set, else nil. It
	// is not in Hosts: it runs no worker.
	Frontend *Host
	// SSHConfig is ConsoleHome/.ssh/config (written when Config.Frontend).
	SSHConfig string

	cfg      Config
	mu       sync.Mutex
	down     bool
	netns    []string // created namespaces, in order
	users    []string // created users
	cleanups []func() // extra teardown, run first
}

// ErrUnsupported is returned by Up where the harness cannot run: not Linux,
// not root, or a tool missing.
var ErrUnsupported = errors.New("e2e: cannot build a test grid here")

// Supported reports whether a grid can be built here, and if not, why.
func Supported() error {
	if runtime.GOOS != "linux" {
		return fmt.Errorf("%w: needs Linux network namespaces, this is %s", ErrUnsupported, runtime.GOOS)
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: needs root to create network namespaces and users (uid %d)", ErrUnsupported, os.Geteuid())
	}
	for _, tool := range []string{"ip", "tc", "useradd", "userdel", "unshare", sshdPath} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%w: %s not found (apt-get install openssh-server iproute2 passwd)", ErrUnsupported, tool)
		}
	}
	return nil
}

// Up builds a grid: namespaces, bridges, links, users, keys, sshds, the
// inventory and known_hosts. On error everything already built is removed.
func Up(ctx context.Context, cfg Config) (*Grid, error) {
	if err := Supported(); err != nil {
		return nil, err
	}
	if cfg.HostsA == 0 && cfg.HostsB == 0 {
		cfg.HostsA, cfg.HostsB = 3, 3
	}
	if cfg.HostsA < 0 || cfg.HostsB < 0 || cfg.HostsA+cfg.HostsB > MaxHosts {
		return nil, fmt.Errorf("e2e: %d+%d hosts: want 0..%d in all", cfg.HostsA, cfg.HostsB, MaxHosts)
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	g, err := newGrid(cfg)
	if err != nil {
		return nil, err
	}
	register(g)
	if err := g.build(ctx); err != nil {
		if derr := g.Down(); derr != nil {
			err = errors.Join(err, derr)
		}
		return nil, err
	}
	return g, nil
}

func newGrid(cfg Config) (*Grid, error) {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("e2e: grid id: %w", err)
	}
	id := hex.EncodeToString(b[:])
	g := &Grid{ID: id, Dir: filepath.Join(os.TempDir(), "gridtui-e2e-"+id), cfg: cfg}
	g.Switch = g.name("sw")
	g.Console = g.name("con")
	g.ConsoleHome = filepath.Join(g.Dir, "console")
	g.SitesFile = filepath.Join(g.ConsoleHome, "sites.toml")
	g.KnownHosts = filepath.Join(g.ConsoleHome, ".ssh", "known_hosts")
	g.Identity = filepath.Join(g.ConsoleHome, ".ssh", "id_ed25519")
	for ci, n := range []int{cfg.HostsA, cfg.HostsB} {
		c := clusterDefs[ci]
		for i := range n {
			name := c.Key + strconv.Itoa(i+1)
			h := &Host{Name: name, Cluster: c.Name, Site: c.Site, Netns: g.name(name), User: g.name(name),
				Home:     filepath.Join(g.Dir, "home", name),
				Ethernet: netip.AddrFrom4([4]byte{198, 18, c.Octet, c.First + byte(i)}),
				Fast:     netip.AddrFrom4([4]byte{198, 19, c.Octet, c.First + byte(i)}),
				dir:      filepath.Join(g.Dir, "sshd", name)}
			h.SSHAddr, h.SSHPort = h.Ethernet, 22
			if cfg.Frontend && ci == 1 {
				h.SSHAddr = h.Fast
			}
			g.Hosts = append(g.Hosts, h)
		}
	}
	g.SSHConfig = filepath.Join(g.ConsoleHome, ".ssh", "config")
	if cfg.Frontend {
		c := clusterDefs[1]
		g.Frontend = &Host{Name: "fB", Site: c.Site, Netns: g.name("fB"), User: g.name("fB"),
			Home:     filepath.Join(g.Dir, "home", "fB"),
			Ethernet: netip.AddrFrom4([4]byte{198, 18, c.Octet, frontendHost}),
			Fast:     netip.AddrFrom4([4]byte{198, 19, c.Octet, frontendHost}),
			SSHPort:  frontendPort, dir: filepath.Join(g.Dir, "sshd", "fB")}
		g.Frontend.SSHAddr = g.Frontend.Ethernet
		if cfg.Slurm {
			g.Frontend.sshdExtra = "SetEnv SLURM_CONF=" + g.slurmConf() + "\n"
		}
	}
	return g, nil
}

// The frontend's last address octet and sshd port (not 22: the inventory
// must learn it from the ssh configuration).
const (
	frontendHost = 250
	frontendPort = 2222
)

// sshHosts is every host running an sshd: Hosts and the frontend.
func (g *Grid) sshHosts() []*Host {
	if g.Frontend == nil {
		return g.Hosts
	}
	return append(append([]*Host(nil), g.Hosts...), g.Frontend)
}

// name is the grid-unique name of a namespace or user: "gte2e1a2b3c-a1".
func (g *Grid) name(s string) string { return Prefix + g.ID + "-" + s }

// build does the work of Up; Up tears down whatever it leaves.
func (g *Grid) build(ctx context.Context) error {
	if err := os.MkdirAll(g.Dir, 0o755); err != nil {
		return fmt.Errorf("e2e: grid directory: %w", err)
	}
	if err := os.Chmod(g.Dir, 0o755); err != nil { // homes below must be reachable by their users
		return fmt.Errorf("e2e: grid directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(g.Dir, "owner"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return fmt.Errorf("e2e: grid directory: %w", err)
	}
	start := time.Now()
	if err := g.buildNetwork(ctx); err != nil {
		return err
	}
	if err := g.buildSSH(ctx); err != nil {
		return err
	}
	if g.cfg.Slurm {
		if err := g.startSlurm(ctx); err != nil {
			return err
		}
	}
	if g.cfg.OAR {
		if err := g.startOAR(ctx); err != nil {
			return err
		}
	}
	if err := g.writeInventory(); err != nil {
		return err
	}
	g.cfg.Logf("e2e: grid %s up in %v: %d hosts, console %s, inventory %s", g.ID, time.Since(start).Round(time.Millisecond), len(g.Hosts), ConsoleAddr, g.SitesFile)
	return nil
}

// Host returns the host named name ("a1", or "fB" for the frontend), or nil.
func (g *Grid) Host(name string) *Host {
	for _, h := range g.sshHosts() {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// ByAddr returns the host whose eth0 or ib0 has address a, or nil.
func (g *Grid) ByAddr(a netip.Addr) *Host {
	for _, h := range g.Hosts {
		if h.Ethernet == a || h.Fast == a {
			return h
		}
	}
	return nil
}

// Cluster returns the hosts of the named cluster.
func (g *Grid) Cluster(name string) []*Host {
	var out []*Host
	for _, h := range g.Hosts {
		if h.Cluster == name {
			out = append(out, h)
		}
	}
	return out
}

// Down stops every process in the grid's namespaces, deletes the namespaces
// (and with them every bridge and link), the users and the directory. It is
// idempotent and carries on past errors, returning them all.
func (g *Grid) Down() error {
	g.mu.Lock()
	if g.down {
		g.mu.Unlock()
		return nil
	}
	g.down = true
	cleanups := g.cleanups
	g.mu.Unlock()
	defer unregister(g)
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	var errs []error
	g.stopSSHDs()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, ns := range g.allNetns() {
		killNetns(ctx, ns)
	}
	for _, ns := range g.allNetns() {
		if err := delNetns(ctx, ns); err != nil {
			errs = append(errs, err)
		}
	}
	for _, h := range g.sshHosts() {
		for _, p := range tmpFilesOf(h.User) { // else a later grid's user with the same uid inherits them
			if err := os.RemoveAll(p); err != nil {
				errs = append(errs, fmt.Errorf("e2e: remove %s of %s: %w", p, h.Name, err))
			}
		}
		if err := delUser(ctx, h.User); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(g.Dir); err != nil {
		errs = append(errs, fmt.Errorf("e2e: remove %s: %w", g.Dir, err))
	}
	if leaks := g.Leaks(ctx); len(leaks) > 0 {
		errs = append(errs, fmt.Errorf("e2e: grid %s left behind: %v", g.ID, leaks))
	}
	g.cfg.Logf("e2e: grid %s down", g.ID)
	return errors.Join(errs...)
}

// allNetns lists every namespace the grid may have created, hosts first.
func (g *Grid) allNetns() []string {
	out := make([]string, 0, len(g.Hosts)+3)
	for _, h := range g.sshHosts() {
		out = append(out, h.Netns)
	}
	return append(out, g.Console, g.Switch)
}

// onDown registers f to run first in Down (e.g. to stop something a test
// started in a namespace).
func (g *Grid) onDown(f func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cleanups = append(g.cleanups, f)
}

// live holds the grids of this process, for DownAll on a signal.
var live = struct {
	sync.Mutex
	grids map[*Grid]bool
}{grids: map[*Grid]bool{}}

func register(g *Grid) {
	live.Lock()
	defer live.Unlock()
	live.grids[g] = true
}

func unregister(g *Grid) {
	live.Lock()
	defer live.Unlock()
	delete(live.grids, g)
}

// DownAll tears down every grid of this process that is still up (for a
// signal handler: Ctrl-C must leave nothing behind).
func DownAll() error {
	live.Lock()
	var gs []*Grid
	for g := range live.grids {
		gs = append(gs, g)
	}
	live.Unlock()
	var errs []error
	for _, g := range gs {
		errs = append(errs, g.Down())
	}
	return errors.Join(errs...)
}
