package probe

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrHintedNICMissing is returned by CheckHints when an inventory hint names
// an interface the host does not have.
var ErrHintedNICMissing = errors.New("hinted interface not found")

// ErrHintConflict is returned by CheckHints when the Ethernet and the fast
// hint name the same interface: ApplyHints would ignore the fast hint.
var ErrHintConflict = errors.New("the same interface is hinted as ethernet and fast")

// ApplyHints returns a copy of nics with the inventory hints applied: the
// interface named ethernet becomes the host's Ethernet NIC and the one named
// fast its fast NIC (Infiniband, unless it was detected as Myrinet or its
// name starts with "myri"). A hint names the only interface of its role, so
// other interfaces detected as that role become Other: a docker0 bridge must
// not stand in for eth0 in the third-octet test. An empty hint, or one that
// names no interface, changes nothing (CheckHints reports the latter).
func ApplyHints(nics []NIC, ethernet, fast string) []NIC {
	out := slices.Clone(nics)
	if has(out, ethernet) {
		for i := range out {
			switch {
			case out[i].Name == ethernet:
				out[i].Kind = Ethernet
			case out[i].Kind == Ethernet:
				out[i].Kind = Other
			}
		}
	}
	if has(out, fast) && fast != ethernet {
		for i := range out {
			switch {
			case out[i].Name == fast:
				out[i].Kind = fastKind(out[i])
			case out[i].Kind.Fast():
				out[i].Kind = Other
			}
		}
	}
	return out
}

// CheckHints returns an error naming every hinted interface missing from
// nics, wrapping ErrHintedNICMissing, or one wrapping ErrHintConflict when
// both hints name the same interface; host names the machine in the message.
func CheckHints(host string, nics []NIC, ethernet, fast string) error {
	if ethernet != "" && ethernet == fast {
		return fmt.Errorf("probe: host %s: %s: %w", host, fast, ErrHintConflict)
	}
	var missing []string
	for _, h := range []string{ethernet, fast} {
		if h != "" && !has(nics, h) {
			missing = append(missing, h)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("probe: host %s: %s: %w", host, strings.Join(missing, ", "), ErrHintedNICMissing)
}

func fastKind(n NIC) Kind {
	if n.Kind == Myrinet || strings.HasPrefix(n.Name, "myri") {
		return Myrinet
	}
	return Infiniband
}

func has(nics []NIC, name string) bool {
	if name == "" {
		return false
	}
	return slices.ContainsFunc(nics, func(n NIC) bool { return n.Name == name })
}
