//go:build !linux

package owner

import "errors"

// ErrUnsupported is returned where the owner policy cannot observe the
// host: its sampler reads Linux's /proc and utmp.
var ErrUnsupported = errors.New("owner: the owner policy observes Linux hosts only")

// SelfGovernor: elsewhere than on Linux the host cannot be observed.
func SelfGovernor(p Policy, cores int, gate *Gate, log func(Decision, error)) (g *Governor, capErr error, err error) {
	return nil, nil, ErrUnsupported
}
