//go:build !linux

package deploy

// lowerPriority leaves the worker's priority as it is here.
func lowerPriority(pgid int) {}

// setGroupNice leaves the group's priority as it is here.
func setGroupNice(pgid, by int) {}
