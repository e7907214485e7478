//go:build unix

package sweep

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockLog takes an exclusive lock on an open job log, so that a sweep runs
// in one process at a time: a --resume while it still runs is refused
// rather than running its instances twice. The lock goes with the file's
// close or the process's end (a crash leaves no stale lock).
func lockLog(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("%w: %s", ErrBusy, f.Name())
	}
	if err != nil {
		return fmt.Errorf("sweep: lock job log %s: %w", f.Name(), err)
	}
	return nil
}
