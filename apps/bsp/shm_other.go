//go:build !linux

package bsp

import (
	"errors"

	"github.com/gridtui/gridtui/bsp"
)

// shared: elsewhere the processes meet only through their workers.
type shared struct {
	path  string
	token []byte
}

func createShared(int) (*shared, error) {
	return nil, errors.New("bsp: no shared file on this system")
}
func openShared(string, []byte, int) *shared { return nil }
func (s *shared) stats(int) bsp.Stats        { return bsp.Stats{} }
func (s *shared) waiting(int) bool           { return false }
func (s *shared) unlink()                    {}
func (s *shared) close()                     {}
