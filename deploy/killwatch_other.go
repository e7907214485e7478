//go:build !linux

package deploy

// watchKill waits for stop: here a killed worker is seen when its process
// has exited.
func watchKill(pid int, stop <-chan struct{}, killed func()) { <-stop }
