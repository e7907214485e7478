//go:build unix

package engine

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// mapFile creates path with room for size bytes and maps it shared, as
// float64s: what is written there goes to the file, and the kernel may
// write it out and drop it from memory at any time.
func mapFile(path string, size uint64) ([]float64, func() error, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("engine: solution file: %w", err)
	}
	defer f.Close()
	if err := f.Truncate(int64(size)); err != nil {
		return nil, nil, fmt.Errorf("engine: solution file %s: %w", path, err)
	}
	if size == 0 {
		return nil, func() error { return nil }, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("engine: map solution file %s: %w", path, err)
	}
	flat := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), size/8)
	return flat, func() error { return syscall.Munmap(b) }, nil
}
