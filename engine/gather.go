package engine

import (
	"fmt"
	"github.com/gridtui/gridtui/engine/worker"
	"os"
	"path/filepath"

	"github.com/gridtui/gridtui/jobs"
)

// gatherShare is the part of the console's available memory a solution may
// take when it is gathered in memory: assembling it and measuring its true
// residual hold two more arrays of its size.
const gatherShare = 3

// diskGather is a solution gathered to a file instead of memory: the parts'
// values are written into a shared mapping of the file as they arrive, so
// the kernel keeps them on disk rather than in the console's memory.
type diskGather struct {
	path  string
	bytes uint64
	unmap func() error
}

// gatherValues returns the buffers the parts' values are gathered into, in
// rank order: in memory when the solution fits limit (0: a gatherShare-th
// of the console's available memory), else in pieces of one file in dir
// (nil *diskGather for memory). It refuses, with the figures, a solution
// that fits neither the memory nor the disk.
func gatherValues(sizes []int, limit uint64, dir, name string) ([][]float64, *diskGather, error) {
	var total uint64
	for _, n := range sizes {
		total += 8 * uint64(max(n, 0))
	}
	avail := worker.AvailableMemory()
	if limit == 0 && avail > 0 {
		limit = avail / gatherShare
	}
	if limit == 0 || total <= limit {
		values := make([][]float64, len(sizes))
		for r, n := range sizes {
			values[r] = make([]float64, n)
		}
		return values, nil, nil
	}
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("engine: directory for the solution %s: %w", dir, err)
	}
	if free, ok := diskFree(dir); ok && free < total {
		{
			return nil, nil, fmt.Errorf("%w: the solution takes %s, more than the console's memory allows (%s available, a third of it for the solution) and than the disk holding %s has free (%s)",
				jobs.ErrMemory, jobs.Bytes(total), jobs.Bytes(avail), dir, jobs.Bytes(free))
		}
	}
	path := filepath.Join(dir, name+".f64")
	flat, unmap, err := mapFile(path, total)
	if err != nil {
		return nil, nil, err
	}
	values := make([][]float64, len(sizes))
	off := 0
	for r, n := range sizes {
		values[r] = flat[off : off+n : off+n]
		off += n
	}
	return values, &diskGather{path: path, bytes: total, unmap: unmap}, nil
}

// note is the report's line about a solution gathered to disk.
func (d *diskGather) note() string {
	return fmt.Sprintf("the solution (%s) was gathered to %s in rank order (float64 in this machine's byte order), not in memory: it is larger than the console may hold, so it was neither assembled nor checked",
		jobs.Bytes(d.bytes), d.path)
}
