//go:build linux

package bsp

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/gridtui/gridtui/bsp"
)

// The shared file of the processes of a run on one host (bsplib/bsp.c has
// the same layout): a header (the creator's random token), then shmProc
// bytes per process. The first cache line of a process is the barrier's
// (its arrival, per parity its class and put bytes), the second its
// figures for its worker.
const (
	shmHead    = 64
	shmProc    = 256
	offFast    = 64  // supersteps ended in the shared file
	offWaiting = 72  // 1 while the program waits there for the others
	offWaitNS  = 80  // nanoseconds it waited there, summed
	offOut     = 88  // bytes it put in those supersteps
	offIn      = 96  // bytes put into it
	offHMax    = 104 // the largest h-relation of those supersteps
	tokenLen   = 16
)

// shared is a worker's view of the shared file.
type shared struct {
	path    string
	token   []byte
	mem     []byte
	creator bool
}

// shmDir is where the shared file goes: /dev/shm when there is one.
func shmDir() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		return "/dev/shm"
	}
	return os.TempDir()
}

// createShared creates the shared file for ranks processes.
func createShared(ranks int) (*shared, error) {
	token := make([]byte, tokenLen)
	rand.Read(token)
	f, err := os.CreateTemp(shmDir(), "gridtui-bsp-")
	if err != nil {
		return nil, fmt.Errorf("bsp: shared file: %w", err)
	}
	defer f.Close()
	size := shmHead + ranks*shmProc
	if err := f.Truncate(int64(size)); err == nil {
		_, err = f.WriteAt(token, 0)
	}
	s := &shared{path: f.Name(), token: token, creator: true}
	if err == nil {
		s.mem, err = syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, fmt.Errorf("bsp: shared file %s: %w", f.Name(), err)
	}
	return s, nil
}

// openShared opens the file another worker created: nil when it is not
// there or not the same (another host).
func openShared(path string, token []byte, ranks int) *shared {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	size := shmHead + ranks*shmProc
	mem, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Size() < int64(size) || !bytes.Equal(mem[:tokenLen], token) {
		syscall.Munmap(mem)
		return nil
	}
	return &shared{path: path, token: token, mem: mem}
}

func (s *shared) load(pid, off int) uint64 {
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(&s.mem[shmHead+pid*shmProc+off])))
}

// stats are the figures of the supersteps process pid ended in the
// shared file, summed (Supersteps counts them).
func (s *shared) stats(pid int) bsp.Stats {
	return bsp.Stats{
		Supersteps: int(s.load(pid, offFast)),
		Wait:       time.Duration(s.load(pid, offWaitNS)),
		BytesOut:   int64(s.load(pid, offOut)),
		BytesIn:    int64(s.load(pid, offIn)),
		HMax:       int64(s.load(pid, offHMax)),
	}
}

// waiting says whether process pid waits in the shared file's barrier.
func (s *shared) waiting(pid int) bool { return s.load(pid, offWaiting) != 0 }

// unlink removes the file (the programs keep their mappings).
func (s *shared) unlink() {
	if s.creator {
		os.Remove(s.path)
	}
}

// close unmaps the file; the creator removes it and the put buffers the
// programs left (bsp.c names them PATH.PID.PARITY).
func (s *shared) close() {
	if s.mem != nil {
		syscall.Munmap(s.mem)
		s.mem = nil
	}
	if s.creator {
		os.Remove(s.path)
		left, _ := filepath.Glob(s.path + ".*")
		for _, f := range left {
			os.Remove(f)
		}
	}
}
