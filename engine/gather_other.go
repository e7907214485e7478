//go:build !unix

package engine

import "fmt"

// mapFile is not available here: a solution too large for memory is refused.
func mapFile(path string, size uint64) ([]float64, func() error, error) {
	return nil, nil, fmt.Errorf("engine: gathering a solution of %d bytes to %s needs a Unix system", size, path)
}
