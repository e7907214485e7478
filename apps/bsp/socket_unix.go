//go:build unix && !linux

package bsp

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// socketPair returns a connected pair of Unix stream sockets, closed on
// exec. Not every Unix has SOCK_CLOEXEC (macOS has not), so the flag is set
// afterwards, under the fork lock so that no child started meanwhile
// inherits them.
func socketPair() ([2]int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return fds, err
	}
	unix.CloseOnExec(fds[0])
	unix.CloseOnExec(fds[1])
	return fds, nil
}
