//go:build !unix

package bsp

import "errors"

// socketPair: BSPlib programs talk to their worker over a Unix socket pair,
// which this system does not give; workers run on Linux.
func socketPair() ([2]int, error) {
	return [2]int{}, errors.New("bsp: BSPlib programs run on Unix workers only (a socket pair is needed)")
}
