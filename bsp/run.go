package bsp

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// Run runs spmd on n processes of this Go program (goroutines over Local)
// and returns the first error; End is called after spmd returns.
func Run(ctx context.Context, n int, spmd func(ctx context.Context, m *Machine) error) error {
	l := NewLocal(n)
	g, ctx := errgroup.WithContext(ctx)
	for pid := range n {
		g.Go(func() error {
			m := New(l.Process(pid), pid, n)
			if err := spmd(ctx, m); err != nil {
				return err
			}
			return m.End(ctx)
		})
	}
	return g.Wait()
}
