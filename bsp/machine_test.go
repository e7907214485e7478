package bsp

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestInnerProduct is BSPedupack's bspinprod: each process sums its share,
// puts it into every process, and every process adds them up.
func TestInnerProduct(t *testing.T) {
	const n = 1000
	serial := 0.0
	for i := range n {
		x := float64(i + 1)
		serial += x * x
	}
	for _, p := range []int{1, 2, 4, 8} {
		got := make([]float64, p)
		err := Run(ctx(t), p, func(ctx context.Context, m *Machine) error {
			partial := make([]float64, p)
			r := PushSlice(m, partial)
			if err := m.Sync(ctx); err != nil {
				return err
			}
			s := 0.0
			for i := m.Pid(); i < n; i += p {
				x := float64(i + 1)
				s += x * x
			}
			for q := range p {
				if err := PutSlice(m, q, []float64{s}, r, m.Pid()); err != nil {
					return err
				}
			}
			if err := m.Sync(ctx); err != nil {
				return err
			}
			for _, v := range partial {
				got[m.Pid()] += v
			}
			return nil
		})
		if err != nil {
			t.Fatalf("p=%d: %v", p, err)
		}
		for pid, v := range got {
			if v != serial {
				t.Errorf("p=%d process %d: %v, serial %v", p, pid, v, serial)
			}
		}
	}
}

// TestGetBeforePut: a get reads the value before the superstep's puts.
func TestGetBeforePut(t *testing.T) {
	err := Run(ctx(t), 2, func(ctx context.Context, m *Machine) error {
		x := []int64{int64(10 + m.Pid())}
		r := PushSlice(m, x)
		if err := m.Sync(ctx); err != nil {
			return err
		}
		other := 1 - m.Pid()
		got := make([]int64, 1)
		GetSlice(m, other, r, 0, got)
		PutSlice(m, other, []int64{99}, r, 0)
		if err := m.Sync(ctx); err != nil {
			return err
		}
		if got[0] != int64(10+other) || x[0] != 99 {
			return fmt.Errorf("process %d: got %d (want %d), x = %d (want 99)", m.Pid(), got[0], 10+other, x[0])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMessages: BSMP in order of source process then call order.
func TestMessages(t *testing.T) {
	err := Run(ctx(t), 4, func(ctx context.Context, m *Machine) error {
		m.SetTagSize(4)
		if err := m.Sync(ctx); err != nil {
			return err
		}
		for q := range m.NProcs() {
			m.Send(q, []byte{byte(m.Pid()), 0, 0, 0}, []byte(fmt.Sprint("from ", m.Pid())))
		}
		if err := m.Sync(ctx); err != nil {
			return err
		}
		if k, _ := m.QSize(); k != 4 {
			return fmt.Errorf("qsize %d", k)
		}
		for q := range 4 {
			msg, err := m.Move()
			if err != nil || msg.Tag[0] != byte(q) || string(msg.Payload) != fmt.Sprint("from ", q) {
				return fmt.Errorf("message %d: %v %v", q, msg, err)
			}
		}
		_, err := m.Move()
		if !errors.Is(err, ErrRule) {
			return fmt.Errorf("move on empty queue: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRules(t *testing.T) {
	cases := map[string]struct {
		spmd func(ctx context.Context, m *Machine) error
		call string
		pid  int
	}{
		"put to a registration of this superstep": {func(ctx context.Context, m *Machine) error {
			r := m.PushReg(make([]byte, 8))
			return m.Put(0, []byte{1}, r, 0)
		}, "bsp_put", -1},
		"unequal registrations": {func(ctx context.Context, m *Machine) error {
			if m.Pid() == 1 {
				m.PushReg(make([]byte, 8))
			}
			return m.Sync(ctx)
		}, "bsp_push_reg", -1},
		"put beyond the area": {func(ctx context.Context, m *Machine) error {
			r := m.PushReg(make([]byte, 8))
			if err := m.Sync(ctx); err != nil {
				return err
			}
			if m.Pid() == 1 {
				m.Put(0, make([]byte, 9), r, 0)
			}
			return m.Sync(ctx)
		}, "bsp_put", 1},
		"sync against end": {func(ctx context.Context, m *Machine) error {
			if m.Pid() == 0 {
				return m.Sync(ctx)
			}
			return nil
		}, "", -1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := Run(ctx(t), 2, c.spmd)
			var re *RuleError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a RuleError", err)
			}
			if c.call != "" && re.Call != c.call || c.pid >= 0 && re.Pid != c.pid {
				t.Errorf("got %v, want process %d in %s", re, c.pid, c.call)
			}
		})
	}
}
