package probe

import (
	"errors"
	"fmt"
	"net/netip"
)

// Locality rules, as an inventory names them.
const (
	// RuleOctet is GRIDHPC's test (Sec. III-B, Algorithm 1): two nodes share a
	// cluster when the third octet of their Ethernet addresses is equal. On
	// IPv6-only Ethernet, which has no third octet, it compares /64 subnets.
	RuleOctet = "octet"
	// RulePrefix groups nodes whose Ethernet addresses share a /PrefixBits
	// subnet (/PrefixBits6 for IPv6).
	RulePrefix = "prefix"
	// RuleLabel groups nodes by the cluster named in the inventory.
	RuleLabel = "label"
)

// Default subnet sizes of RulePrefix.
const (
	DefaultPrefixBits  = 24
	DefaultPrefixBits6 = 64
)

// ErrBadLocality is returned for an unknown rule or an impossible prefix size.
var ErrBadLocality = errors.New("bad locality rule")

// Locality is the rule that decides whether two nodes are in the same
// cluster. The zero value is RuleOctet, the paper's rule. A node is always
// local to itself and to every node on the same host, whatever the rule.
type Locality struct {
	// Rule is RuleOctet (default when empty), RulePrefix or RuleLabel.
	Rule string `json:"rule"`
	// PrefixBits is the IPv4 subnet size of RulePrefix (default 24).
	PrefixBits int `json:"prefix_bits,omitempty"`
	// PrefixBits6 is the IPv6 subnet size of RulePrefix (default 64).
	PrefixBits6 int `json:"prefix_bits6,omitempty"`
}

// Validate reports an unknown rule or a prefix size out of range.
func (l Locality) Validate() error {
	_, err := l.normalize()
	return err
}

// normalize fills defaults and checks the rule.
func (l Locality) normalize() (Locality, error) {
	if l.Rule == "" {
		l.Rule = RuleOctet
	}
	if l.PrefixBits == 0 {
		l.PrefixBits = DefaultPrefixBits
	}
	if l.PrefixBits6 == 0 {
		l.PrefixBits6 = DefaultPrefixBits6
	}
	switch {
	case l.Rule != RuleOctet && l.Rule != RulePrefix && l.Rule != RuleLabel:
		return l, fmt.Errorf("probe: locality rule %q: %w", l.Rule, ErrBadLocality)
	case l.PrefixBits < 1 || l.PrefixBits > 32:
		return l, fmt.Errorf("probe: locality prefix /%d: %w", l.PrefixBits, ErrBadLocality)
	case l.PrefixBits6 < 1 || l.PrefixBits6 > 128:
		return l, fmt.Errorf("probe: locality IPv6 prefix /%d: %w", l.PrefixBits6, ErrBadLocality)
	}
	return l, nil
}

// SameCluster reports whether a and b are in the same cluster under the rule,
// with a short phrase saying why ("same cluster (third octet 64 = 64)").
// Nodes whose locality cannot be decided (no Ethernet address, no label) are
// in different clusters: Ethernet is the network every pair can fall back to.
// Same-host detection is BestNetwork's job, not the rule's.
func (l Locality) SameCluster(a, b Node) (bool, string, error) {
	l, err := l.normalize()
	if err != nil {
		return false, "", err
	}
	va, vb := newView(&a), newView(&b)
	v := l.decide(&va, &vb)
	return v.same, v.String(), nil
}

// verdict is the outcome of a locality test and what it compared, kept
// unformatted so that deciding costs no allocation.
type verdict struct {
	same   bool
	how    byte // 'o' third octet, 'p' subnet, 'l' label, 'e' no Ethernet, 'f' no common family, 'u' unlabelled
	x, y   uint8
	pa, pb netip.Prefix
	sa, sb string
}

// decide applies a normalized rule to two views.
func (l Locality) decide(a, b *view) verdict {
	if l.Rule == RuleLabel {
		switch {
		case a.cluster == "":
			return verdict{how: 'u', sa: a.name}
		case b.cluster == "":
			return verdict{how: 'u', sa: b.name}
		}
		return verdict{same: a.cluster == b.cluster, how: 'l', sa: a.cluster, sb: b.cluster}
	}
	ea, eb := a.of(Ethernet), b.of(Ethernet)
	switch {
	case len(ea) == 0:
		return verdict{how: 'e', sa: a.name}
	case len(eb) == 0:
		return verdict{how: 'e', sa: b.name}
	}
	x, y, ok := pickPair(ea, eb)
	if !ok {
		return verdict{how: 'f'}
	}
	if l.Rule == RuleOctet && x.Is4() {
		// Algorithm 1 of GRIDHPC: same third octet → same cluster.
		ox, oy := x.As4()[2], y.As4()[2]
		return verdict{same: ox == oy, how: 'o', x: ox, y: oy}
	}
	bits := l.PrefixBits
	if x.Is6() {
		bits = l.PrefixBits6
		if l.Rule == RuleOctet { // IPv6 has no third octet: compare /64 subnets
			bits = DefaultPrefixBits6
		}
	}
	pa, pb := netip.PrefixFrom(x, bits).Masked(), netip.PrefixFrom(y, bits).Masked()
	return verdict{same: pa == pb, how: 'p', pa: pa, pb: pb}
}

// String is the phrase a route's reason quotes.
func (v verdict) String() string {
	switch v.how {
	case 'o':
		if v.same {
			return fmt.Sprintf("same cluster (third octet %d = %d)", v.x, v.y)
		}
		return fmt.Sprintf("different clusters (third octet %d ≠ %d)", v.x, v.y)
	case 'p':
		if v.same {
			return fmt.Sprintf("same cluster (subnet %s)", v.pa)
		}
		return fmt.Sprintf("different clusters (subnet %s ≠ %s)", v.pa, v.pb)
	case 'l':
		if v.same {
			return fmt.Sprintf("same cluster (label %s = %s)", v.sa, v.sb)
		}
		return fmt.Sprintf("different clusters (label %s ≠ %s)", v.sa, v.sb)
	case 'u':
		return fmt.Sprintf("different clusters (%s has no cluster label)", v.sa)
	case 'e':
		return fmt.Sprintf("locality unknown, %s has no Ethernet address up", v.sa)
	}
	return "locality unknown, no Ethernet address family in common"
}
