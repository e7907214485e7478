package exec

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// socketPair returns a connected pair of Unix stream sockets.
func socketPair() ([2]int, error) {
	return syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}

// childAttr makes the program die with its worker.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }

// memFile returns an anonymous memory file.
func memFile() (int, error) { return unix.MemfdCreate("gridhpc", unix.MFD_CLOEXEC) }

// release frees the pages behind a shared mapping of a memory file, keeping
// its addresses valid.
func release(mem []byte) { unix.Madvise(mem, unix.MADV_REMOVE) }

// readable reports whether a read from the socket fd would not block: it
// has data, reached its end or failed.
func readable(fd int) bool {
	var b [1]byte
	_, _, err := unix.Recvfrom(fd, b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
	return err != unix.EAGAIN && err != unix.EINTR
}

// executable reports whether the worker's user may execute the file.
func executable(path string, _ fs.FileInfo) error { return unix.Access(path, unix.X_OK) }

// yield lets another runnable thread of this CPU run first.
func yield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }

// mapCounter maps the first 8 bytes of the worker's window (fd).
func mapCounter(fd int) ([]byte, error) {
	return syscall.Mmap(fd, 0, 8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

// mapShared maps size bytes of the memory file fd, shared.
func mapShared(fd, size int) ([]byte, error) {
	return syscall.Mmap(fd, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}
