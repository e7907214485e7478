//go:build !linux

package exec

import (
	"errors"
	"io/fs"
	"syscall"
)

var errNotLinux = errors.New("exec: programs run on Linux workers only")

func socketPair() ([2]int, error)     { return [2]int{}, errNotLinux }
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
func memFile() (int, error)           { return 0, errNotLinux }

func release([]byte) {}

func readable(int) bool { return true }

func executable(_ string, fi fs.FileInfo) error {
	if fi.Mode()&0o111 == 0 {
		return fs.ErrPermission
	}
	return nil
}

func yield()                             {}
func mapCounter(int) ([]byte, error)     { return nil, errNotLinux }
func mapShared(int, int) ([]byte, error) { return nil, errNotLinux }
