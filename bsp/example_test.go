package bsp_test

import (
	"context"
	"fmt"

	"github.com/gridtui/gridtui/bsp"
)

// ExampleRun is the parallel prefix sum of 1 … 8 on 4 processes: each
// process sums its block, sends its total to the processes after it with
// bsp_put, and adds the totals before it to its block's prefix sums.
func ExampleRun() {
	const n, p = 8, 4
	sums := make([][]int64, p)
	err := bsp.Run(context.Background(), p, func(ctx context.Context, m *bsp.Machine) error {
		totals := make([]int64, p)
		r := bsp.PushSlice(m, totals)
		if err := m.Sync(ctx); err != nil {
			return err
		}
		s := m.Pid()
		block := make([]int64, 0, n/p)
		acc := int64(0)
		for i := s * n / p; i < (s+1)*n/p; i++ {
			acc += int64(i + 1)
			block = append(block, acc)
		}
		for q := s + 1; q < p; q++ {
			if err := bsp.PutSlice(m, q, []int64{acc}, r, s); err != nil {
				return err
			}
		}
		if err := m.Sync(ctx); err != nil {
			return err
		}
		before := int64(0)
		for _, t := range totals[:s] {
			before += t
		}
		for i := range block {
			block[i] += before
		}
		sums[s] = block
		return nil
	})
	fmt.Println(sums, err)
	// Output: [[1 3] [6 10] [15 21] [28 36]] <nil>
}
