package exec

import (
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
