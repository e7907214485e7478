package inventory

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"github.com/gridtui/gridtui/deploy/sched"
	"github.com/gridtui/gridtui/internal/tomlfile"
	"github.com/gridtui/gridtui/owner"
	"github.com/gridtui/gridtui/probe"
)

// builder validates a decoded fileInventory and resolves it into an Inventory.
type builder struct {
	file  string
	data  []byte
	seen  map[string]string     // host name -> key path where first defined
	addrs map[netip.Addr]string // local address -> key path
	// siteOwner is the owner policy of the site being built ([site.owner]),
	// nil without one.
	siteOwner *owner.Policy
}

// errAt returns a ConfigError for the key path, positioned at the key (or
// at the closest enclosing table) when the file says where it is.
func (b *builder) errAt(path, format string, args ...any) error {
	return fromProblem(b.file, b.data, tomlfile.At(b.data, path, fmt.Sprintf(format, args...)))
}

func (b *builder) build(fi *fileInventory) (*Inventory, error) {
	inv := &Inventory{Locality: probe.Locality{Rule: probe.RuleOctet, PrefixBits: probe.DefaultPrefixBits}}
	switch fi.Locality {
	case "":
	case probe.RuleOctet, probe.RulePrefix, probe.RuleLabel:
		inv.Locality.Rule = fi.Locality
	default:
		return nil, b.errAt("locality", "unknown locality rule %q (want octet, prefix or label)", fi.Locality)
	}
	if fi.PrefixBits != 0 {
		if fi.PrefixBits < 1 || fi.PrefixBits > 32 {
			return nil, b.errAt("prefix_bits", "prefix_bits must be between 1 and 32, not %d", fi.PrefixBits)
		}
		inv.Locality.PrefixBits = fi.PrefixBits
	}
	d, err := b.defaults(fi.Defaults)
	if err != nil {
		return nil, err
	}
	inv.Defaults = d
	if len(fi.Sites) == 0 {
		return nil, b.errAt("site", "no [[site]]: the inventory lists no hosts")
	}
	names := map[string]bool{}
	for i := range fi.Sites {
		path := fmt.Sprintf("site[%d]", i)
		s, err := b.site(path, &fi.Sites[i], &inv.Defaults)
		if err != nil {
			return nil, err
		}
		if names[s.Name] {
			return nil, b.errAt(path+".name", "duplicate site %q", s.Name)
		}
		names[s.Name] = true
		inv.Sites = append(inv.Sites, s)
	}
	return inv, nil
}

func (b *builder) defaults(fd fileDefaults) (Defaults, error) {
	d := Defaults{
		User:          fd.User,
		Port:          fd.Port,
		IdentityFiles: fd.IdentityFiles,
		KnownHosts:    fd.KnownHosts,
		Workdir:       fd.Workdir,
	}
	if fd.Port < 0 || fd.Port > 65535 {
		return d, b.errAt("defaults.port", "port %d is not between 1 and 65535", fd.Port)
	}
	if fd.ConnectTimeout != "" {
		t, err := time.ParseDuration(fd.ConnectTimeout)
		if err != nil || t <= 0 {
			return d, b.errAt("defaults.connect_timeout", "connect_timeout %q is not a positive duration such as \"10s\"", fd.ConnectTimeout)
		}
		d.ConnectTimeout = t
	}
	if d.Workdir == "" {
		d.Workdir = DefaultWorkdir
	}
	return d, nil
}

// batch reads [site.batch], which only a batch launcher's site may have.
func (b *builder) batch(path string, fs *fileSite, s *Site) error {
	if fs.Batch == nil {
		return nil
	}
	if sched.AllocatorFor(string(s.Launcher)) == nil {
		return b.errAt(path+".batch", "[site.batch] is only for batch launchers that ask a frontend for allocations (launcher = \"slurm\" or \"oar\"), not %q", s.Launcher)
	}
	s.Batch = sched.BatchOptions{Partition: fs.Batch.Partition, Account: fs.Batch.Account, Properties: fs.Batch.Properties, Options: fs.Batch.Options}
	if fs.Batch.Queue != "" {
		if fs.Batch.Partition != "" {
			return b.errAt(path+".batch.queue", "queue and partition name the same thing: give one")
		}
		s.Batch.Partition = fs.Batch.Queue
	}
	if fs.Batch.TimeLimit != "" {
		d, err := time.ParseDuration(fs.Batch.TimeLimit)
		if err != nil || d <= 0 {
			return b.errAt(path+".batch.time_limit", "time_limit %q is not a positive duration (like \"30m\" or \"2h\")", fs.Batch.TimeLimit)
		}
		s.Batch.TimeLimit = d
	}
	return nil
}

func (b *builder) site(path string, fs *fileSite, d *Defaults) (Site, error) {
	s := Site{Name: fs.Name, Frontend: fs.Frontend, Launcher: Launcher(fs.Launcher)}
	if s.Name == "" {
		return s, b.errAt(path+".name", "site has no name")
	}
	switch {
	case s.Launcher == "":
		s.Launcher = LauncherSSH
	case s.Launcher == LauncherSSH || s.Launcher == LauncherLocal || sched.SchedulerFor(string(s.Launcher)) != nil:
	default:
		return s, b.errAt(path+".launcher", "unknown launcher %q (want %s)", fs.Launcher, sched.Names())
	}
	if err := b.batch(path, fs, &s); err != nil {
		return s, err
	}
	if fs.Port < 0 || fs.Port > 65535 {
		return s, b.errAt(path+".port", "port %d is not between 1 and 65535", fs.Port)
	}
	if len(fs.Clusters) == 0 {
		return s, b.errAt(path, "site %q has no [[site.cluster]]", s.Name)
	}
	var err error
	if b.siteOwner, err = b.ownerPolicy(path, fs.Owner, nil); err != nil {
		return s, err
	}
	names := map[string]bool{}
	for j := range fs.Clusters {
		cpath := fmt.Sprintf("%s.cluster[%d]", path, j)
		c, err := b.cluster(cpath, fs, &fs.Clusters[j], d, s.Launcher)
		if err != nil {
			return s, err
		}
		if names[c.Name] {
			return s, b.errAt(cpath+".name", "duplicate cluster %q in site %q", c.Name, s.Name)
		}
		names[c.Name] = true
		s.Clusters = append(s.Clusters, c)
	}
	s.Gateways, err = b.gateways(path, fs, &s)
	return s, err
}

func (b *builder) cluster(path string, fs *fileSite, fc *fileCluster, d *Defaults, l Launcher) (Cluster, error) {
	c := Cluster{Name: fc.Name, Cores: fc.Cores, Ethernet: fc.Ethernet, Fast: fc.Fast}
	if c.Name == "" {
		return c, b.errAt(path+".name", "cluster has no name")
	}
	if fc.Cores < 0 || (fc.Cores == 0 && b.written(path+".cores")) {
		return c, b.errAt(path+".cores", "cores must be at least 1, not %d", fc.Cores)
	}
	if err := b.distinctNICs(path, fc.Ethernet, fc.Fast); err != nil {
		return c, err
	}
	policy, err := b.ownerPolicy(path, fc.Owner, b.siteOwner)
	if err != nil {
		return c, err
	}
	var names []string
	if l == LauncherLocal {
		names, err = b.localNames(path, fc)
	} else {
		names, err = b.sshNames(path, fc)
	}
	if err != nil {
		return c, err
	}
	for k, name := range names {
		hpath := fmt.Sprintf("%s.hosts[%d]", path, k)
		if first, dup := b.seen[name]; dup {
			return c, b.errAt(path+".hosts", "duplicate host %q (also in %s)", name, first)
		}
		b.seen[name] = hpath
		h := b.host(name, fs, &c, d)
		h.Owner = policy
		if l == LauncherLocal {
			if h.EthernetAddr, h.FastAddr, err = b.localAddrs(path, fc, k); err != nil {
				return c, err
			}
		}
		c.Hosts = append(c.Hosts, h)
	}
	return c, b.overrides(path, fc, &c)
}

// written reports whether the file sets the key path explicitly.
func (b *builder) written(path string) bool { return tomlfile.Written(b.data, path) }

// sshNames expands the hosts of an SSH cluster.
func (b *builder) sshNames(path string, fc *fileCluster) ([]string, error) {
	for key, set := range map[string]bool{"nodes": fc.Nodes != 0, "ethernet_addr": fc.EthernetAddr != "", "fast_addr": fc.FastAddr != ""} {
		if set {
			return nil, b.errAt(path+"."+key, "%s is only for launcher = \"local\" sites", key)
		}
	}
	var patterns []string
	switch v := fc.Hosts.(type) {
	case nil:
	case string:
		patterns = []string{v}
	case []any:
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, b.errAt(path+".hosts", "hosts[%d] is %T, want a string", i, e)
			}
			patterns = append(patterns, s)
		}
	default:
		return nil, b.errAt(path+".hosts", "hosts is %T, want a string or an array of strings", v)
	}
	var names []string
	for _, p := range patterns {
		n, err := sched.ExpandNodeSet(p)
		if err != nil {
			return nil, b.errAt(path+".hosts", "%v", err)
		}
		names = append(names, n...)
	}
	if len(names) == 0 {
		return nil, b.errAt(path, "empty cluster %q: hosts lists no host", fc.Name)
	}
	return names, nil
}

// localNames names the nodes of a local cluster "<cluster>-1" … "<cluster>-N".
func (b *builder) localNames(path string, fc *fileCluster) ([]string, error) {
	if fc.Hosts != nil {
		return nil, b.errAt(path+".hosts", "hosts is only for launcher = \"ssh\" or \"slurm\" sites; local clusters use nodes = N")
	}
	if fc.Nodes < 1 {
		if fc.Nodes < 0 || b.written(path+".nodes") {
			return nil, b.errAt(path+".nodes", "empty cluster %q: nodes must be at least 1, not %d", fc.Name, fc.Nodes)
		}
		return nil, b.errAt(path, "empty cluster %q: set nodes = N", fc.Name)
	}
	if fc.Nodes > 4096 {
		return nil, b.errAt(path+".nodes", "nodes = %d is more than a local grid can hold (4096)", fc.Nodes)
	}
	if fc.EthernetAddr == "" {
		return nil, b.errAt(path, "local cluster %q needs ethernet_addr (first node's Ethernet address, in 127.0.0.0/8)", fc.Name)
	}
	names := make([]string, fc.Nodes)
	for i := range names {
		names[i] = fc.Name + "-" + strconv.Itoa(i+1)
	}
	return names, nil
}

// localAddrs returns the k-th node's addresses: the first addresses plus k.
func (b *builder) localAddrs(path string, fc *fileCluster, k int) (eth, fast netip.Addr, err error) {
	eth, err = b.loopback(path+".ethernet_addr", fc.EthernetAddr, k)
	if err != nil || fc.FastAddr == "" {
		return eth, fast, err
	}
	fast, err = b.loopback(path+".fast_addr", fc.FastAddr, k)
	return eth, fast, err
}

func (b *builder) loopback(key, first string, k int) (netip.Addr, error) {
	a, err := netip.ParseAddr(first)
	if err != nil || !a.Is4() {
		return netip.Addr{}, b.errAt(key, "%q is not an IPv4 address", first)
	}
	for range k {
		a = a.Next()
	}
	if !a.IsLoopback() {
		return netip.Addr{}, b.errAt(key, "local address %s is outside 127.0.0.0/8", a)
	}
	if prev, dup := b.addrs[a]; dup {
		return netip.Addr{}, b.errAt(key, "address %s is already used by %s", a, prev)
	}
	b.addrs[a] = key
	return a, nil
}

// host resolves one host's settings from the inventory. User, port,
// identity files and jump host stay empty unless the inventory states them:
// the ssh configuration (ssh -G) fills them in when connecting, as it would
// for ssh -l, -p, -i and -J.
func (b *builder) host(name string, fs *fileSite, c *Cluster, d *Defaults) Host {
	return Host{
		Name: name, Site: fs.Name, Cluster: c.Name, Cores: c.Cores,
		User: firstOf(fs.User, d.User), Port: firstInt(fs.Port, d.Port),
		IdentityFiles: d.IdentityFiles, ProxyJump: fs.Frontend,
		Workdir: firstOf(fs.Workdir, d.Workdir), Ethernet: c.Ethernet, Fast: c.Fast,
	}
}

// overrides applies [[site.cluster.host]] entries to the named hosts.
func (b *builder) overrides(path string, fc *fileCluster, c *Cluster) error {
	for i, o := range fc.Host {
		opath := fmt.Sprintf("%s.host[%d]", path, i)
		idx := -1
		for k := range c.Hosts {
			if c.Hosts[k].Name == o.Name {
				idx = k
			}
		}
		if idx < 0 {
			return b.errAt(opath+".name", "host %q is not in cluster %q", o.Name, c.Name)
		}
		if o.Cores < 0 || (o.Cores == 0 && b.written(opath+".cores")) {
			return b.errAt(opath+".cores", "cores must be at least 1, not %d", o.Cores)
		}
		if o.Port < 0 || o.Port > 65535 {
			return b.errAt(opath+".port", "port %d is not between 1 and 65535", o.Port)
		}
		h := &c.Hosts[idx]
		var err error
		if h.Owner, err = b.ownerPolicy(opath, o.Owner, h.Owner); err != nil {
			return err
		}
		h.Cores = firstInt(o.Cores, h.Cores)
		h.User = firstOf(o.User, h.User)
		h.Port = firstInt(o.Port, h.Port)
		h.Ethernet = firstOf(o.Ethernet, h.Ethernet)
		h.Fast = firstOf(o.Fast, h.Fast)
		if err := b.distinctNICs(opath, h.Ethernet, h.Fast); err != nil {
			return err
		}
	}
	return nil
}

// distinctNICs refuses an Ethernet hint and a fast-network hint that name
// the same interface: a host needs two NICs for two networks (GRIDHPC
// Table I), and probe.ApplyHints would otherwise drop the fast hint.
func (b *builder) distinctNICs(path, ethernet, fast string) error {
	if ethernet != "" && ethernet == fast {
		return b.errAt(path+".fast", "fast = %q names the Ethernet interface too; the fast network needs its own NIC", fast)
	}
	return nil
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func firstInt(vals ...int) int {
	for _, v := range vals {
		if v != 0 {
			return v
		}
	}
	return 0
}
