package probe

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"unicode"
)

// Node is one computing node of a job as the Htable sees it: its identity and
// its NICs, from a worker hello (real hosts) or from the inventory (local
// grid, where the NICs are given with their kinds set explicitly).
type Node struct {
	// Name is the node's name in the inventory ("alpha-1").
	Name string `json:"name"`
	// Host is the machine identity: nodes with the same Host are on the same
	// machine and talk over a Unix socket. On the local grid Host = Name.
	Host string `json:"host"`
	// Cluster is the inventory's cluster label (used by RuleLabel).
	Cluster string `json:"cluster,omitempty"`
	// NICs are the node's network interfaces.
	NICs []NIC `json:"nics"`
}

// Limits on a node description, which may come from a remote worker.
const (
	MaxNICs      = 64
	MaxNICAddrs  = 256
	maxNameBytes = 255
)

// ErrBadNode is wrapped by every node validation error.
var ErrBadNode = errors.New("bad node description")

// Validate checks a node description that may have come over the wire: a
// printable name, known NIC kinds (never "unix"), valid addresses, sane
// numbers and sizes.
func (n Node) Validate() error {
	if err := checkName("name", n.Name); err != nil {
		return fmt.Errorf("probe: node %q: %w", n.Name, err)
	}
	for _, f := range []struct{ what, v string }{{"host", n.Host}, {"cluster", n.Cluster}} {
		if err := checkOptional(f.what, f.v); err != nil {
			return fmt.Errorf("probe: node %s: %w", n.Name, err)
		}
	}
	if len(n.NICs) > MaxNICs {
		return fmt.Errorf("probe: node %s: %d NICs (max %d): %w", n.Name, len(n.NICs), MaxNICs, ErrBadNode)
	}
	for _, nic := range n.NICs {
		if err := nic.validate(); err != nil {
			return fmt.Errorf("probe: node %s: %w", n.Name, err)
		}
	}
	return nil
}

func (nic NIC) validate() error {
	if err := checkName("NIC name", nic.Name); err != nil {
		return err
	}
	switch {
	case !nic.Kind.Valid() || nic.Kind == Unix:
		return fmt.Errorf("NIC %s: kind %q: %w", nic.Name, nic.Kind, ErrBadNode)
	case nic.MTU < 0 || nic.SpeedMbps < 0:
		return fmt.Errorf("NIC %s: negative MTU or speed: %w", nic.Name, ErrBadNode)
	case len(nic.Addrs) > MaxNICAddrs:
		return fmt.Errorf("NIC %s: %d addresses (max %d): %w", nic.Name, len(nic.Addrs), MaxNICAddrs, ErrBadNode)
	}
	for _, a := range nic.Addrs {
		if !a.IsValid() {
			return fmt.Errorf("NIC %s: invalid address: %w", nic.Name, ErrBadNode)
		}
	}
	return nil
}

func checkName(what, s string) error {
	if s == "" {
		return fmt.Errorf("empty %s: %w", what, ErrBadNode)
	}
	return checkOptional(what, s)
}

// checkOptional rejects control characters and spaces so that a reason line
// naming the node stays one line, and overlong names.
func checkOptional(what, s string) error {
	if len(s) > maxNameBytes {
		return fmt.Errorf("%s longer than %d bytes: %w", what, maxNameBytes, ErrBadNode)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) || r == unicode.ReplacementChar }) {
		return fmt.Errorf("%s %q has spaces or control characters: %w", what, s, ErrBadNode)
	}
	return nil
}

func routableAddr(a netip.Addr) bool {
	return a.IsValid() && !a.IsUnspecified() && !a.IsMulticast() &&
		!a.IsLinkLocalUnicast() && !a.IsInterfaceLocalMulticast()
}
