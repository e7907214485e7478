package exec

import (
	"fmt"
	"os"
	"unsafe"
)

// shmEnv names the environment variable that tells gridhpc.c which file
// descriptor is the shared window.
const shmEnv = "GRIDHPC_SHM_FD"

// window is the memory the worker and its program share: for neighbour i,
// the values the program sends to it, then the values received from it,
// each halo bytes, in the order of the sub-task's neighbours. The engine
// sends straight from it and writes halos straight into it; a GRID_Send or
// GRID_Receive copies at most once (not at all from and into the buffers
// GRID_SendBuffer and GRID_ReceiveBuffer return), and the socket carries
// only the small frames that order the turns.
type window struct {
	file *os.File
	mem  []byte
}

// newWindow creates a window of size bytes (an anonymous memory file).
func newWindow(size int) (*window, error) {
	fd, err := memFile()
	if err != nil {
		return nil, fmt.Errorf("exec: shared window: %w", err)
	}
	w := &window{file: os.NewFile(uintptr(fd), "gridhpc-window")}
	if size == 0 {
		return w, nil
	}
	if err := w.file.Truncate(int64(size)); err != nil {
		w.file.Close()
		return nil, fmt.Errorf("exec: shared window of %d bytes: %w", size, err)
	}
	mem, err := mapShared(fd, size)
	if err != nil {
		w.file.Close()
		return nil, fmt.Errorf("exec: shared window of %d bytes: mmap: %w", size, err)
	}
	w.mem = mem
	return w, nil
}

// floats returns n float64 values of the window from byte off.
func (w *window) floats(off, n int) []float64 {
	if n == 0 {
		return []float64{}
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&w.mem[off])), n)
}

// close releases the window's memory and closes its file. The mapping
// itself stays (its addresses read as zeros): the engine received into and
// sent from slices of it, and nothing may fault on them even if a transfer
// outlived the part.
func (w *window) close() {
	if w.mem != nil {
		release(w.mem)
		w.mem = nil
	}
	w.file.Close()
}
