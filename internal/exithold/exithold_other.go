//go:build !linux

package exithold

import (
	"errors"
	"syscall"
)

// Hold is one traced thread of a process (none here).
type Hold struct{}

// New cannot hold a process here.
func New(pid int) (*Hold, error) {
	return nil, errors.New("exithold: not on this system: " + syscall.EPERM.Error())
}

// Release does nothing.
func (h *Hold) Release() {}
