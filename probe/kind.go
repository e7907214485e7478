package probe

import (
	"errors"
	"fmt"
)

// Kind is the kind of network a NIC or a route belongs to.
type Kind string

// Kinds of network. Unix is the Unix-domain socket two processes on the same
// host use; it is never the kind of a NIC.
const (
	Ethernet   Kind = "ethernet"
	Infiniband Kind = "infiniband"
	Myrinet    Kind = "myrinet"
	Loopback   Kind = "loopback"
	Unix       Kind = "unix"
	Other      Kind = "other"
)

// ErrUnknownKind is returned when a kind name is not one of the known kinds.
var ErrUnknownKind = errors.New("unknown network kind")

// Rank orders kinds by preference, higher is better: unix > infiniband >
// myrinet > ethernet > other > loopback. GRIDHPC Sec. III-C picks the fast
// network (Infiniband or Myrinet) inside a cluster and Ethernet between
// clusters; the Unix socket beats any wire between processes of one host.
// An unknown kind ranks below every known one.
func (k Kind) Rank() int {
	switch k {
	case Unix:
		return 5
	case Infiniband:
		return 4
	case Myrinet:
		return 3
	case Ethernet:
		return 2
	case Other:
		return 1
	case Loopback:
		return 0
	}
	return -1
}

// Fast reports whether k is a fast cluster network (the second row of the
// Htable in GRIDHPC Table I).
func (k Kind) Fast() bool { return k == Infiniband || k == Myrinet }

// Valid reports whether k is one of the known kinds.
func (k Kind) Valid() bool { return k.Rank() >= 0 }

// ParseKind returns the kind named s, or an error wrapping ErrUnknownKind.
func ParseKind(s string) (Kind, error) {
	k := Kind(s)
	if !k.Valid() {
		return "", fmt.Errorf("probe: network kind %q: %w", s, ErrUnknownKind)
	}
	return k, nil
}

// UnmarshalText decodes a kind and rejects unknown names, so a NIC list that
// arrives in a worker hello cannot carry a kind the route choice ignores.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// routable lists, best first, the kinds a route between two different hosts
// may use. Loopback and other interfaces (tunnels, bridges of unknown role)
// never carry traffic between nodes.
var routable = []Kind{Infiniband, Myrinet, Ethernet}
