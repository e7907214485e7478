package probe

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestNewHtableValidation(t *testing.T) {
	good := tableI()
	tests := []struct {
		name  string
		nodes []Node
		loc   Locality
		want  error
	}{
		{"table I", good, Locality{}, nil},
		{"empty", nil, Locality{}, nil},
		{"duplicate name", []Node{good[0], good[0]}, Locality{}, ErrBadNode},
		{"empty name", []Node{{Host: "h"}}, Locality{}, ErrBadNode},
		{"name with newline", []Node{{Name: "a\nb"}}, Locality{}, ErrBadNode},
		{"host with space", []Node{{Name: "a", Host: "h 1"}}, Locality{}, ErrBadNode},
		{"unix NIC", []Node{node("a", "", nic("s", Unix))}, Locality{}, ErrBadNode},
		{"empty kind", []Node{node("a", "", NIC{Name: "eth0"})}, Locality{}, ErrBadNode},
		{"zero address", []Node{node("a", "", NIC{Name: "eth0", Kind: Ethernet, Addrs: []netip.Addr{{}}})}, Locality{}, ErrBadNode},
		{"negative speed", []Node{node("a", "", speed(nic("eth0", Ethernet), -5))}, Locality{}, ErrBadNode},
		{"too many NICs", []Node{node("a", "", make([]NIC, MaxNICs+1)...)}, Locality{}, ErrBadNode},
		{"label rule needs labels", []Node{node("a", "", nic("eth0", Ethernet, "10.0.0.1"))}, Locality{Rule: RuleLabel}, ErrBadNode},
		{"bad rule", good, Locality{Rule: "site"}, ErrBadLocality},
		{"bad IPv6 prefix", good, Locality{Rule: RulePrefix, PrefixBits6: 129}, ErrBadLocality},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewHtable(tt.nodes, tt.loc)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestHtableRows(t *testing.T) {
	nodes := tableI()
	nodes = append(nodes, node("C1", "C", nic("eth0", Ethernet, "2001:db8::1", "10.0.0.1"), down(nic("ib0", Infiniband, "10.1.0.1"))))
	h, err := NewHtable(nodes, Locality{})
	if err != nil {
		t.Fatal(err)
	}
	rows := h.Rows()
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	tests := []struct {
		node, eth, fast string
	}{
		{"A1", "[192.16.64.10]", "[{infiniband 192.18.64.10}]"},
		{"B2", "[192.16.34.21]", "[{myrinet 192.18.34.21}]"},
		{"C1", "[10.0.0.1 2001:db8::1]", "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			var r Row
			for _, x := range rows {
				if x.Node == tt.node {
					r = x
				}
			}
			eth := fmtSlice(r.Ethernet)
			fast := "["
			for i, f := range r.Fast {
				if i > 0 {
					fast += " "
				}
				fast += "{" + string(f.Kind) + " " + f.Addr.String() + "}"
			}
			fast += "]"
			if eth != tt.eth || fast != tt.fast {
				t.Errorf("row %s: ethernet %s fast %s, want %s %s", tt.node, eth, fast, tt.eth, tt.fast)
			}
		})
	}
}

func fmtSlice(as []netip.Addr) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

func TestHtableIsolatedFromCaller(t *testing.T) {
	nodes := tableI()
	h, err := NewHtable(nodes, Locality{})
	if err != nil {
		t.Fatal(err)
	}
	nodes[0].NICs[1].Addrs[0] = netip.MustParseAddr("10.9.9.9")
	nodes[0].NICs[1].Up = false
	got := h.Nodes()
	got[1].NICs[1].Kind = Other
	r, err := h.Route("A1", "A2")
	if err != nil || r.Network != Infiniband || r.AAddr != "192.18.64.10" {
		t.Errorf("Htable changed by caller's slices: %+v %v", r, err)
	}
}

func TestHtableUnknownNode(t *testing.T) {
	h, err := NewHtable(tableI(), Locality{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Route("A1", "Z9"); !errors.Is(err, ErrUnknownNode) || !strings.Contains(err.Error(), "Z9") {
		t.Errorf("Route to unknown node: %v", err)
	}
	if c := h.Candidates("Z9", "A1"); c != nil {
		t.Errorf("Candidates with unknown node = %v, want nil", c)
	}
	if c := h.Candidates("A2", "B1"); len(c) != 1 || c[0].Network != Ethernet {
		t.Errorf("Candidates(A2, B1) = %v, want one ethernet route", c)
	}
}

func TestHtableLocalGrid(t *testing.T) {
	// The embedded local grid: each node is its own simulated host with an
	// Ethernet address 127.16.<c>.x and a fast one 127.18.<c>.x, kinds given.
	var nodes []Node
	for _, c := range []struct {
		name  string
		octet string
	}{{"alpha", "64"}, {"beta", "34"}} {
		for i := 1; i <= 2; i++ {
			host := c.name + "-" + string(rune('0'+i))
			nodes = append(nodes, node(host, c.name,
				nic("eth", Ethernet, "127.16."+c.octet+"."+string(rune('0'+i))),
				nic("ib", Infiniband, "127.18."+c.octet+"."+string(rune('0'+i)))))
		}
	}
	for _, loc := range []Locality{{}, {Rule: RuleLabel}, {Rule: RulePrefix}} {
		h, err := NewHtable(nodes, loc)
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct{ a, b, want string }{
			{"alpha-1", "alpha-2", "infiniband 127.18.64.1 ↔ 127.18.64.2"},
			{"alpha-2", "beta-1", "ethernet 127.16.64.2 ↔ 127.16.34.1"},
			{"beta-1", "beta-2", "infiniband 127.18.34.1 ↔ 127.18.34.2"},
		}
		for _, tt := range tests {
			r, err := h.Route(tt.a, tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(r.Network) + " " + r.AAddr + " ↔ " + r.BAddr; got != tt.want {
				t.Errorf("rule %q %s ↔ %s: got %s, want %s", loc.Rule, tt.a, tt.b, got, tt.want)
			}
		}
	}
}
