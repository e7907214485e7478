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
	if l.Rule == RuleLabel {
		return sameLabel(a, b)
	}
	ea, eb, ok := pickPair(a.usable(Ethernet), b.usable(Ethernet))
	if !ok {
		return false, noEthernet(a, b), nil
	}
	if l.Rule == RuleOctet && ea.addr.Is4() {
		x, y := ea.addr.As4()[2], eb.addr.As4()[2]
		return verdict(x == y, fmt.Sprintf("third octet %d", x), fmt.Sprintf("%d", y), "=")
	}
	bits := l.PrefixBits
	if ea.addr.Is6() {
		bits = l.PrefixBits6
		if l.Rule == RuleOctet {
			bits = DefaultPrefixBits6
		}
	}
	pa, pb := netip.PrefixFrom(ea.addr, bits).Masked(), netip.PrefixFrom(eb.addr, bits).Masked()
	if pa == pb {
		return true, fmt.Sprintf("same cluster (subnet %s)", pa), nil
	}
	return false, fmt.Sprintf("different clusters (subnet %s ≠ %s)", pa, pb), nil
}

func verdict(same bool, left, right, eq string) (bool, string, error) {
	if same {
		return true, fmt.Sprintf("same cluster (%s %s %s)", left, eq, right), nil
	}
	return false, fmt.Sprintf("different clusters (%s ≠ %s)", left, right), nil
}

func sameLabel(a, b Node) (bool, string, error) {
	switch {
	case a.Cluster == "":
		return false, fmt.Sprintf("different clusters (%s has no cluster label)", a.Name), nil
	case b.Cluster == "":
		return false, fmt.Sprintf("different clusters (%s has no cluster label)", b.Name), nil
	}
	return verdict(a.Cluster == b.Cluster, "label "+a.Cluster, b.Cluster, "=")
}

func noEthernet(a, b Node) string {
	switch {
	case len(a.usable(Ethernet)) == 0:
		return fmt.Sprintf("locality unknown, %s has no Ethernet address up", a.Name)
	case len(b.usable(Ethernet)) == 0:
		return fmt.Sprintf("locality unknown, %s has no Ethernet address up", b.Name)
	}
	return "locality unknown, no Ethernet address family in common"
}
