//go:build !unix

package engine

import (
	"fmt"
	"os"
)

// killPid ends pid.
func killPid(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return fmt.Errorf("engine: kill worker %d: %w", pid, err)
	}
	defer p.Release()
	return p.Kill()
}
