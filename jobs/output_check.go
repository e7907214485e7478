package jobs

import (
	"fmt"
	"os"
)

// Check makes sure the job's output directory can take its files, before
// any worker starts: it creates the directory (as writing would) and a
// file in it, removed at once. A job that writes nothing passes. The error
// wraps ErrOutput and names the directory: a file in its place, a
// directory without write permission.
func (o Output) Check() error {
	if !o.VTI && !o.Raw {
		return nil
	}
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%w: output directory %s is a file", ErrOutput, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: output directory %s: %w", ErrOutput, dir, err)
	}
	f, err := os.CreateTemp(dir, ".gridtui-write-check-*")
	if err != nil {
		return fmt.Errorf("%w: output directory %s is not writable: %w", ErrOutput, dir, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}
