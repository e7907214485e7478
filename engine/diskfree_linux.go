package engine

import "syscall"

// diskFree is the space left to an unprivileged user on dir's file system.
func diskFree(dir string) (uint64, bool) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return 0, false
	}
	return fs.Bavail * uint64(fs.Bsize), true
}
