//go:build !linux && !darwin && !freebsd

package engine

// diskFree is unknown here.
func diskFree(dir string) (uint64, bool) { return 0, false }
