//go:build !linux

package deploy

import "time"

// killWatchInterval is unused where the kernel's pending signals cannot be
// read.
const killWatchInterval = 400 * time.Millisecond

// watchKill waits for stop: here a killed worker is seen when its process
// has exited.
func watchKill(pid int, interval time.Duration, stop <-chan struct{}, killed func()) { <-stop }
