package probe

import (
	"errors"
	"testing"
)

func TestBestNetworkTableI(t *testing.T) {
	h, err := NewHtable(tableI(), Locality{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, a, b string
		want       Route
	}{
		{"A1-A2 infiniband", "A1", "A2", Route{A: "A1", B: "A2", Network: Infiniband, AAddr: "192.18.64.10", BAddr: "192.18.64.11",
			Reason: "A1 ↔ A2: same cluster (third octet 64 = 64) → infiniband 192.18.64.10 ↔ 192.18.64.11"}},
		{"A2-B1 ethernet", "A2", "B1", Route{A: "A2", B: "B1", Network: Ethernet, AAddr: "192.16.64.11", BAddr: "192.16.34.20",
			Reason: "A2 ↔ B1: different clusters (third octet 64 ≠ 34) → ethernet 192.16.64.11 ↔ 192.16.34.20"}},
		{"B1-B2 myrinet", "B1", "B2", Route{A: "B1", B: "B2", Network: Myrinet, AAddr: "192.18.34.20", BAddr: "192.18.34.21",
			Reason: "B1 ↔ B2: same cluster (third octet 34 = 34) → myrinet 192.18.34.20 ↔ 192.18.34.21"}},
		{"B1-A2 reversed", "B1", "A2", Route{A: "B1", B: "A2", Network: Ethernet, AAddr: "192.16.34.20", BAddr: "192.16.64.11",
			Reason: "B1 ↔ A2: different clusters (third octet 34 ≠ 64) → ethernet 192.16.34.20 ↔ 192.16.64.11"}},
		{"A1-A1 same node", "A1", "A1", Route{A: "A1", B: "A1", Network: Unix, AAddr: "unix:A1", BAddr: "unix:A1",
			Reason: "A1 ↔ A1: same host (A1) → unix socket"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h.Route(tt.a, tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Route(%s, %s)\n got %+v\nwant %+v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestCandidates(t *testing.T) {
	multi := node("m1", "", nic("eth0", Ethernet, "10.0.5.1"), speed(nic("eth1", Ethernet, "10.9.5.1"), 10000),
		nic("ib0", Infiniband, "10.1.5.1"), speed(nic("ib1", Infiniband, "10.2.5.1"), 100000))
	multi2 := node("m2", "", nic("eth0", Ethernet, "10.0.5.2"), speed(nic("eth1", Ethernet, "10.9.5.2"), 10000),
		speed(nic("ib0", Infiniband, "10.1.5.2"), 56000), nic("myri0", Myrinet, "10.3.5.2"))
	tests := []struct {
		name string
		a, b Node
		loc  Locality
		want []string // "kind a ↔ b", best first
	}{
		{"same cluster ib then ethernet", tableI()[0], tableI()[1], Locality{},
			[]string{"infiniband 192.18.64.10 ↔ 192.18.64.11", "ethernet 192.16.64.10 ↔ 192.16.64.11"}},
		{"different clusters ethernet only", tableI()[1], tableI()[2], Locality{},
			[]string{"ethernet 192.16.64.11 ↔ 192.16.34.20"}},
		{"same cluster, ib vs myrinet: ethernet", tableI()[0], Node{Name: "B9", Host: "B9", NICs: []NIC{
			nic("eth0", Ethernet, "192.16.64.99"), nic("myri0", Myrinet, "192.18.64.99")}}, Locality{},
			[]string{"ethernet 192.16.64.10 ↔ 192.16.64.99"}},
		{"several NICs: fastest link wins per side", multi, multi2, Locality{},
			[]string{"infiniband 10.2.5.1 ↔ 10.1.5.2", "ethernet 10.9.5.1 ↔ 10.9.5.2"}},
		{"same host: unix, loopback, then networks", Node{Name: "x1", Host: "h", NICs: []NIC{nic("lo", Loopback, "127.0.0.1"), nic("eth0", Ethernet, "10.0.0.1")}},
			Node{Name: "x2", Host: "h", NICs: []NIC{nic("lo", Loopback, "127.0.0.1"), nic("eth0", Ethernet, "10.0.0.1")}}, Locality{},
			[]string{"unix unix:x1 ↔ unix:x2", "loopback 127.0.0.1 ↔ 127.0.0.1", "ethernet 10.0.0.1 ↔ 10.0.0.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			routes, err := Candidates(tt.a, tt.b, tt.loc)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range routes {
				got = append(got, string(r.Network)+" "+r.AAddr+" ↔ "+r.BAddr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("candidate %d: got %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestBestNetworkEdgeCases(t *testing.T) {
	a1, a2 := tableI()[0], tableI()[1]
	tests := []struct {
		name       string
		a, b       Node
		loc        Locality
		wantKind   Kind
		wantA      string
		wantB      string
		wantReason string
		wantErr    error
	}{
		{name: "missing fast NIC on one side", a: a1, b: node("A3", "A", nic("eth0", Ethernet, "192.16.64.12")),
			wantKind: Ethernet, wantA: "192.16.64.10", wantB: "192.16.64.12",
			wantReason: "A1 ↔ A3: same cluster (third octet 64 = 64), no fast network in common → ethernet 192.16.64.10 ↔ 192.16.64.12"},
		{name: "down fast NIC", a: a1, b: node("A3", "A", nic("eth0", Ethernet, "192.16.64.12"), down(nic("ib0", Infiniband, "192.18.64.12"))),
			wantKind: Ethernet, wantA: "192.16.64.10", wantB: "192.16.64.12"},
		{name: "down ethernet with a second one up", a: a1, b: node("A3", "A", down(nic("eth0", Ethernet, "192.16.99.12")),
			nic("eth1", Ethernet, "192.16.64.12"), nic("ib0", Infiniband, "192.18.64.12")),
			wantKind: Infiniband, wantA: "192.18.64.10", wantB: "192.18.64.12"},
		{name: "several addresses: IPv4 first, link-local skipped", a: node("C1", "", nic("eth0", Ethernet, "fe80::1", "2001:db8::1", "10.0.7.1", "10.0.7.100")),
			b:        node("C2", "", nic("eth0", Ethernet, "2001:db8::2", "10.0.7.2")),
			wantKind: Ethernet, wantA: "10.0.7.1", wantB: "10.0.7.2",
			wantReason: "C1 ↔ C2: same cluster (third octet 7 = 7), no fast network in common → ethernet 10.0.7.1 ↔ 10.0.7.2"},
		{name: "IPv6-only: octet rule compares /64", a: node("D1", "", nic("eth0", Ethernet, "fe80::1", "2001:db8:1::10"), nic("ib0", Infiniband, "2001:db8:ff::10")),
			b:        node("D2", "", nic("eth0", Ethernet, "2001:db8:1::11"), nic("ib0", Infiniband, "2001:db8:ff::11")),
			wantKind: Infiniband, wantA: "2001:db8:ff::10", wantB: "2001:db8:ff::11",
			wantReason: "D1 ↔ D2: same cluster (subnet 2001:db8:1::/64) → infiniband 2001:db8:ff::10 ↔ 2001:db8:ff::11"},
		{name: "IPv6-only different /64", a: node("D1", "", nic("eth0", Ethernet, "2001:db8:1::10")),
			b:        node("D3", "", nic("eth0", Ethernet, "2001:db8:2::10")),
			wantKind: Ethernet, wantA: "2001:db8:1::10", wantB: "2001:db8:2::10",
			wantReason: "D1 ↔ D3: different clusters (subnet 2001:db8:1::/64 ≠ 2001:db8:2::/64) → ethernet 2001:db8:1::10 ↔ 2001:db8:2::10"},
		{name: "fast NIC families differ: ethernet", a: node("E1", "", nic("eth0", Ethernet, "10.0.8.1"), nic("ib0", Infiniband, "2001:db8::1")),
			b:        node("E2", "", nic("eth0", Ethernet, "10.0.8.2"), nic("ib0", Infiniband, "10.1.8.2")),
			wantKind: Ethernet, wantA: "10.0.8.1", wantB: "10.0.8.2"},
		{name: "no ethernet at all: no route", a: node("F1", "", nic("ib0", Infiniband, "10.1.0.1")),
			b: node("F2", "", nic("ib0", Infiniband, "10.1.0.2")), wantErr: ErrNoRoute},
		{name: "ethernet down on one side across clusters", a: a1, b: node("B9", "B", down(nic("eth0", Ethernet, "192.16.34.9"))),
			wantErr: ErrNoRoute},
		{name: "label rule keeps IB across octets", a: a1, b: node("A9", "A", nic("eth0", Ethernet, "192.16.65.9"), nic("ib0", Infiniband, "192.18.65.9")),
			loc: Locality{Rule: RuleLabel}, wantKind: Infiniband, wantA: "192.18.64.10", wantB: "192.18.65.9",
			wantReason: "A1 ↔ A9: same cluster (label A = A) → infiniband 192.18.64.10 ↔ 192.18.65.9"},
		{name: "prefix rule /16 groups octets", a: a1, b: node("A9", "", nic("eth0", Ethernet, "192.16.65.9"), nic("ib0", Infiniband, "192.18.65.9")),
			loc: Locality{Rule: RulePrefix, PrefixBits: 16}, wantKind: Infiniband, wantA: "192.18.64.10", wantB: "192.18.65.9",
			wantReason: "A1 ↔ A9: same cluster (subnet 192.16.0.0/16) → infiniband 192.18.64.10 ↔ 192.18.65.9"},
		{name: "prefix rule default /24 splits", a: a1, b: node("A9", "", nic("eth0", Ethernet, "192.16.65.9"), nic("ib0", Infiniband, "192.18.65.9")),
			loc: Locality{Rule: RulePrefix}, wantKind: Ethernet, wantA: "192.16.64.10", wantB: "192.16.65.9",
			wantReason: "A1 ↔ A9: different clusters (subnet 192.16.64.0/24 ≠ 192.16.65.0/24) → ethernet 192.16.64.10 ↔ 192.16.65.9"},
		{name: "octet rule is the paper's: other /16 same octet is local", a: a1, b: node("G1", "", nic("eth0", Ethernet, "10.3.64.1"), nic("ib0", Infiniband, "10.4.64.1")),
			wantKind: Infiniband, wantA: "192.18.64.10", wantB: "10.4.64.1"},
		{name: "same host beats locality", a: Node{Name: "h-1", Host: "box", NICs: a1.NICs}, b: Node{Name: "h-2", Host: "box"},
			wantKind: Unix, wantA: "unix:h-1", wantB: "unix:h-2", wantReason: "h-1 ↔ h-2: same host (box) → unix socket"},
		{name: "bad rule", a: a1, b: a2, loc: Locality{Rule: "rack"}, wantErr: ErrBadLocality},
		{name: "bad prefix", a: a1, b: a2, loc: Locality{Rule: RulePrefix, PrefixBits: 33}, wantErr: ErrBadLocality},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := BestNetwork(tt.a, tt.b, tt.loc)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Network != tt.wantKind || r.AAddr != tt.wantA || r.BAddr != tt.wantB {
				t.Errorf("got %s %s ↔ %s, want %s %s ↔ %s (%s)", r.Network, r.AAddr, r.BAddr, tt.wantKind, tt.wantA, tt.wantB, r.Reason)
			}
			if tt.wantReason != "" && r.Reason != tt.wantReason {
				t.Errorf("reason\n got %q\nwant %q", r.Reason, tt.wantReason)
			}
			rev, err := BestNetwork(tt.b, tt.a, tt.loc)
			if err != nil || rev.Network != r.Network || rev.AAddr != r.BAddr || rev.BAddr != r.AAddr {
				t.Errorf("not symmetric: %+v vs %+v (%v)", r, rev, err)
			}
		})
	}
}
