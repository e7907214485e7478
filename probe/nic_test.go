package probe

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	psnet "github.com/shirou/gopsutil/v4/net"
)

// writeSysfs creates root/<name>/<file> for every file given.
func writeSysfs(t *testing.T, root, name string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, v := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNICFromSysfs(t *testing.T) {
	root := t.TempDir()
	writeSysfs(t, root, "ib0", map[string]string{"type": "32", "operstate": "up", "speed": "56000"})
	writeSysfs(t, root, "eth0", map[string]string{"type": "1", "operstate": "up", "speed": "-1"})
	writeSysfs(t, root, "eth1", map[string]string{"type": "1", "operstate": "down", "speed": "4294967295"})
	writeSysfs(t, root, "lo", map[string]string{"type": "772", "operstate": "unknown"})
	writeSysfs(t, root, "myri0", map[string]string{"type": "1", "operstate": "up", "speed": "10000"})
	writeSysfs(t, root, "tun0", map[string]string{"type": "65534", "operstate": "unknown", "speed": "garbage"})
	writeSysfs(t, root, "ib1", map[string]string{"type": "32", "operstate": "lowerlayerdown"})
	addrs := func(s ...string) psnet.InterfaceAddrList {
		var l psnet.InterfaceAddrList
		for _, a := range s {
			l = append(l, psnet.InterfaceAddr{Addr: a})
		}
		return l
	}
	tests := []struct {
		name string
		in   psnet.InterfaceStat
		want NIC
	}{
		{"infiniband with speed", psnet.InterfaceStat{Name: "ib0", MTU: 2044, Flags: []string{"up"}, Addrs: addrs("fe80::1/64", "192.18.64.10/24")},
			NIC{Name: "ib0", Kind: Infiniband, MTU: 2044, Up: true, SpeedMbps: 56000, Addrs: []netip.Addr{netip.MustParseAddr("192.18.64.10"), netip.MustParseAddr("fe80::1")}}},
		{"ethernet speed -1 is unknown", psnet.InterfaceStat{Name: "eth0", MTU: 1500, Flags: []string{"up"}, Addrs: addrs("192.16.64.10/24")},
			NIC{Name: "eth0", Kind: Ethernet, MTU: 1500, Up: true, Addrs: []netip.Addr{netip.MustParseAddr("192.16.64.10")}}},
		{"down despite up flag", psnet.InterfaceStat{Name: "eth1", MTU: 1500, Flags: []string{"up"}},
			NIC{Name: "eth1", Kind: Ethernet, MTU: 1500}},
		{"loopback unknown state follows flag", psnet.InterfaceStat{Name: "lo", MTU: 65536, Flags: []string{"up", "loopback"}, Addrs: addrs("::1/128", "127.0.0.1/8")},
			NIC{Name: "lo", Kind: Loopback, MTU: 65536, Up: true, Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}}},
		{"myrinet by name", psnet.InterfaceStat{Name: "myri0", MTU: 9000, Flags: []string{"up"}},
			NIC{Name: "myri0", Kind: Myrinet, MTU: 9000, Up: true, SpeedMbps: 10000}},
		{"tunnel is other, bad speed unknown, bad addr skipped", psnet.InterfaceStat{Name: "tun0", MTU: 1400, Addrs: addrs("bogus", "10.8.0.1/24")},
			NIC{Name: "tun0", Kind: Other, MTU: 1400, Addrs: []netip.Addr{netip.MustParseAddr("10.8.0.1")}}},
		{"ib lowerlayerdown is down", psnet.InterfaceStat{Name: "ib1", MTU: 2044, Flags: []string{"up"}},
			NIC{Name: "ib1", Kind: Infiniband, MTU: 2044}},
		{"no sysfs: guessed from flags and name", psnet.InterfaceStat{Name: "ib7", MTU: 2044, Flags: []string{"up"}},
			NIC{Name: "ib7", Kind: Infiniband, MTU: 2044, Up: true}},
		{"no sysfs: MAC means ethernet", psnet.InterfaceStat{Name: "en0", HardwareAddr: "02:fc:00:00:00:01", Flags: []string{"up"}},
			NIC{Name: "en0", Kind: Ethernet, Up: true}},
		{"no sysfs: loopback flag", psnet.InterfaceStat{Name: "lo0", Flags: []string{"up", "loopback"}},
			NIC{Name: "lo0", Kind: Loopback, Up: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nicFrom(tt.in, root)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("nicFrom\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestLocalHasLoopback(t *testing.T) {
	nics, err := Local()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(nics, func(n NIC) bool { return n.Kind == Loopback })
	if i < 0 {
		t.Fatalf("no loopback interface among %+v", nics)
	}
	lo := nics[i]
	if !lo.Up || !slices.Contains(lo.Addrs, netip.MustParseAddr("127.0.0.1")) {
		t.Errorf("loopback %+v: want up with 127.0.0.1", lo)
	}
	for _, n := range nics {
		if !n.Kind.Valid() || n.SpeedMbps < 0 {
			t.Errorf("NIC %+v: invalid kind or speed", n)
		}
		seen6 := false
		for _, a := range n.Addrs {
			if a.Is6() {
				seen6 = true
			} else if seen6 {
				t.Errorf("NIC %s: IPv4 after IPv6 in %v", n.Name, n.Addrs)
			}
		}
	}
}

func TestNICJSONRoundTrip(t *testing.T) {
	local, err := Local()
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string][]NIC{
		"local":   local,
		"table I": tableI()[0].NICs,
		"mixed":   {speed(nic("ib0", Infiniband, "10.1.0.1", "2001:db8::1"), 100000), down(nic("eth9", Other))},
	}
	for name, nics := range tests {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(nics)
			if err != nil {
				t.Fatal(err)
			}
			var back []NIC
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, nics) {
				t.Errorf("round trip\n got %+v\nwant %+v", back, nics)
			}
		})
	}
}

func TestKindJSONRejectsUnknown(t *testing.T) {
	var n NIC
	err := json.Unmarshal([]byte(`{"name":"x","kind":"token-ring"}`), &n)
	if err == nil {
		t.Fatalf("kind token-ring accepted: %+v", n)
	}
}

func TestKindRank(t *testing.T) {
	order := []Kind{Unix, Infiniband, Myrinet, Ethernet, Other, Loopback, Kind("x")}
	for i := 1; i < len(order); i++ {
		if order[i-1].Rank() <= order[i].Rank() {
			t.Errorf("%s.Rank() = %d not above %s.Rank() = %d", order[i-1], order[i-1].Rank(), order[i], order[i].Rank())
		}
	}
}
