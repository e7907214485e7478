package solve

import "fmt"

// MarshalText encodes a node state by name ("active"), so that JSON
// telemetry and reports (`gridtui run --json`) read as the console shows them.
func (s NodeState) MarshalText() ([]byte, error) {
	if int(s) >= len(stateNames) {
		return nil, fmt.Errorf("engine: node state %d out of range", uint8(s))
	}
	return []byte(stateNames[s]), nil
}

// UnmarshalText decodes a node state name.
func (s *NodeState) UnmarshalText(b []byte) error {
	for i, n := range stateNames {
		if n == string(b) {
			*s = NodeState(i)
			return nil
		}
	}
	return fmt.Errorf("%w: node state %q", ErrProtocol, b)
}
