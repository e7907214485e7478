package probe

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
)

// FuzzHtableFromJSON feeds node lists as a worker hello would carry them:
// decoding, validation and every route must never panic, and every route
// must be symmetric, one line, and use addresses of the nodes it names.
func FuzzHtableFromJSON(f *testing.F) {
	seed, _ := json.Marshal(tableI())
	f.Add(seed, uint8(0))
	f.Add(seed, uint8(1))
	f.Add(seed, uint8(2))
	f.Add([]byte(`[{"name":"x","host":"h","nics":[{"name":"e","kind":"ethernet","addrs":["2001:db8::1","10.0.0.1"],"up":true}]},`+
		`{"name":"y","host":"h","nics":[{"name":"lo","kind":"loopback","addrs":["127.0.0.1"],"up":true}]}]`), uint8(0))
	f.Add([]byte(`[{"name":"a","nics":[{"name":"i","kind":"infiniband","addrs":["fe80::1"],"up":true}]},{"name":"b"}]`), uint8(2))
	rules := []Locality{{}, {Rule: RulePrefix, PrefixBits: 16}, {Rule: RuleLabel}}
	f.Fuzz(func(t *testing.T, data []byte, rule uint8) {
		var nodes []Node
		if json.Unmarshal(data, &nodes) != nil || len(nodes) > 16 {
			return
		}
		h, err := NewHtable(nodes, rules[int(rule)%len(rules)])
		if err != nil {
			return
		}
		_ = h.String()
		for _, a := range h.Nodes() {
			for _, b := range h.Nodes() {
				checkPair(t, h, a, b)
			}
		}
	})
}

func checkPair(t *testing.T, h *Htable, a, b Node) {
	r, err := h.Route(a.Name, b.Name)
	if err != nil {
		if h.Candidates(a.Name, b.Name) != nil {
			t.Fatalf("%s ↔ %s: Route fails (%v) but Candidates is not empty", a.Name, b.Name, err)
		}
		return
	}
	if c := h.Candidates(a.Name, b.Name); len(c) == 0 || c[0] != r {
		t.Fatalf("%s ↔ %s: Route %+v is not Candidates[0] of %+v", a.Name, b.Name, r, c)
	}
	if strings.ContainsAny(r.Reason, "\r\n") || !strings.HasPrefix(r.Reason, a.Name+" ↔ "+b.Name+": ") {
		t.Fatalf("reason %q: not one line naming the pair", r.Reason)
	}
	if r.Network != Unix && (!owns(a, r.Network, r.AAddr) || !owns(b, r.Network, r.BAddr)) {
		t.Fatalf("route %+v uses an address the nodes do not have on that network", r)
	}
	rev, err := h.Route(b.Name, a.Name)
	if err != nil || rev.Network != r.Network || rev.AAddr != r.BAddr || rev.BAddr != r.AAddr {
		t.Fatalf("asymmetric: %+v vs %+v (%v)", r, rev, err)
	}
}

func owns(n Node, k Kind, addr string) bool {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	for _, nic := range n.NICs {
		for _, x := range nic.Addrs {
			if nic.Up && nic.Kind == k && x.Unmap() == a {
				return true
			}
		}
	}
	return false
}

// FuzzParseAddr checks the parser of kernel-reported interface addresses.
func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1/8", "::1/128", "fe80::1%eth0/64", "::ffff:10.0.0.1/96", "10.0.0.1", "", "/", "1.2.3.4/99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseAddr(s)
		if err == nil && (!a.IsValid() || a.Is4In6()) {
			t.Fatalf("parseAddr(%q) = %v: invalid or mapped", s, a)
		}
	})
}
