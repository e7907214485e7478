//go:build darwin || freebsd

package engine

import "golang.org/x/sys/unix"

// diskFree is the space left to an unprivileged user on dir's file system
// (FreeBSD's count goes negative once root's reserve is in use).
func diskFree(dir string) (uint64, bool) {
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		return 0, false
	}
	return uint64(max(int64(fs.Bavail), 0)) * uint64(fs.Bsize), true
}
