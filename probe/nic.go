package probe

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	psnet "github.com/shirou/gopsutil/v4/net"
)

// NIC is one network interface of a host.
type NIC struct {
	// Name is the interface name, e.g. "eth0" or "ib0".
	Name string `json:"name"`
	// Kind is the detected (or hinted) network kind.
	Kind Kind `json:"kind"`
	// Addrs are the interface addresses, IPv4 first, then IPv6, each group in
	// the order the kernel lists them.
	Addrs []netip.Addr `json:"addrs"`
	// MTU is the maximum transmission unit in bytes.
	MTU int `json:"mtu"`
	// Up reports whether the link is operational.
	Up bool `json:"up"`
	// SpeedMbps is the link speed in Mb/s, 0 when the kernel does not know it.
	SpeedMbps int `json:"speed_mbps"`
}

// Linux ARPHRD_* link types read from /sys/class/net/<if>/type.
const (
	arphrdEther      = 1
	arphrdInfiniband = 32
	arphrdLoopback   = 772
)

// SysClassNet is where Local reads link type, speed and state on Linux.
const SysClassNet = "/sys/class/net"

// Local returns every network interface of this host, in kernel index order.
// The interface list and addresses come from gopsutil; kind, speed and state
// come from /sys/class/net when it exists (elsewhere they are guessed from the
// interface flags and name). An unreadable speed is unknown (0), not an error.
func Local() ([]NIC, error) {
	return LocalContext(context.Background())
}

// LocalContext is Local with a context for the interface enumeration.
func LocalContext(ctx context.Context) ([]NIC, error) {
	ifs, err := psnet.InterfacesWithContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("probe: list network interfaces: %w", err)
	}
	slices.SortStableFunc(ifs, func(a, b psnet.InterfaceStat) int { return a.Index - b.Index })
	out := make([]NIC, 0, len(ifs))
	for _, is := range ifs {
		out = append(out, nicFrom(is, SysClassNet))
	}
	return out, nil
}

// nicFrom builds a NIC from gopsutil's view of an interface and the sysfs
// directory root (SysClassNet, or a fixture in tests).
func nicFrom(is psnet.InterfaceStat, root string) NIC {
	n := NIC{Name: is.Name, MTU: is.MTU, Addrs: parseAddrs(is.Addrs)}
	flagUp := slices.Contains(is.Flags, "up")
	flagLoop := slices.Contains(is.Flags, "loopback")
	dir := filepath.Join(root, is.Name)
	link, typeErr := readInt(filepath.Join(dir, "type"))
	if typeErr != nil {
		n.Kind = guessKind(is.Name, flagLoop, is.HardwareAddr)
	} else {
		n.Kind = kindFromType(link, is.Name)
	}
	state, stateErr := readString(filepath.Join(dir, "operstate"))
	n.Up = upFrom(state, stateErr == nil, flagUp)
	if speed, err := readInt(filepath.Join(dir, "speed")); err == nil {
		n.SpeedMbps = speedFrom(speed)
	}
	return n
}

// parseAddrs turns gopsutil's "ip/bits" strings into addresses, IPv4 first.
// Unparsable entries are skipped: they come from the kernel, and one odd
// address must not hide the whole interface.
func parseAddrs(list psnet.InterfaceAddrList) []netip.Addr {
	var v4, v6 []netip.Addr
	for _, a := range list {
		addr, err := parseAddr(a.Addr)
		if err != nil {
			continue
		}
		if addr.Is4() {
			v4 = append(v4, addr)
		} else {
			v6 = append(v6, addr)
		}
	}
	return append(v4, v6...)
}

// parseAddr accepts "ip", "ip/bits" and "ip%zone/bits" forms and unmaps
// IPv4-mapped IPv6 addresses.
func parseAddr(s string) (netip.Addr, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Addr().Unmap(), nil
	}
	host, _, _ := strings.Cut(s, "/")
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("probe: interface address %q: %w", s, err)
	}
	return a.Unmap(), nil
}

// kindFromType maps a Linux ARPHRD link type to a kind. Myrinet has no link
// type of its own (Myri-10G cards register as Ethernet), so a "myri" name
// prefix is the only sign of it short of an inventory hint.
func kindFromType(link int, name string) Kind {
	switch link {
	case arphrdInfiniband:
		return Infiniband
	case arphrdLoopback:
		return Loopback
	case arphrdEther:
		if strings.HasPrefix(name, "myri") {
			return Myrinet
		}
		return Ethernet
	}
	return Other
}

// guessKind is used where /sys/class/net is missing (not Linux, or a
// restricted container): flags first, then the hardware address and name.
func guessKind(name string, loopback bool, hw string) Kind {
	switch {
	case loopback:
		return Loopback
	case strings.HasPrefix(name, "ib"):
		return Infiniband
	case strings.HasPrefix(name, "myri"):
		return Myrinet
	case strings.Count(hw, ":") == 5: // a MAC-48 address
		return Ethernet
	}
	return Other
}

// upFrom reads operstate: "up" is up; "unknown" (loopback, some virtual
// links) and an unreadable state defer to the interface's up flag.
func upFrom(state string, ok, flagUp bool) bool {
	if !ok || state == "unknown" || state == "" {
		return flagUp
	}
	return state == "up"
}

// speedFrom turns /sys/class/net/<if>/speed into Mb/s: -1 and the unsigned
// form of -1 mean unknown.
func speedFrom(v int) int {
	if v <= 0 || v >= 1<<31-1 {
		return 0
	}
	return v
}

func readString(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

func readInt(path string) (int, error) {
	s, err := readString(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("probe: %s: %w", path, err)
	}
	return v, nil
}
