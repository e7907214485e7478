package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
)

// TestCheckNodeMemory checks the up-front refusal of parts that do not fit
// their hosts: the nodes of one host share its memory, and the error gives
// the figures.
func TestCheckNodeMemory(t *testing.T) {
	const gib = 1 << 30
	worker := func(node, host string, avail uint64) *deploy.Worker {
		return &deploy.Worker{Host: inventory.Host{Name: node}, Hello: deploy.Hello{Node: node, Host: host, Memory: avail}}
	}
	plan := func(sizes ...int) *Plan {
		p := &Plan{}
		for i, n := range sizes {
			p.Ranks = append(p.Ranks, []string{"alpha-1", "alpha-2", "beta-1"}[i])
			p.Task.Parts = append(p.Task.Parts, gridapp.PartSpec{Size: n})
		}
		return p
	}
	tests := map[string]struct {
		plan    *Plan
		workers []*deploy.Worker
		want    []string // nil: accepted
	}{
		"fits": {plan(1<<20, 1<<20), []*deploy.Worker{worker("alpha-1", "a", gib), worker("alpha-2", "b", gib)}, nil},
		"one node too big": {plan(1<<28, 1<<20), []*deploy.Worker{worker("alpha-1", "a", 4*gib), worker("alpha-2", "b", 4*gib)},
			[]string{"host a has 4.0 GiB available", "node there (alpha-1) needs 8.0 GiB"}},
		"shared host": {plan(1<<26, 1<<26, 1<<26), []*deploy.Worker{worker("alpha-1", "h", 5*gib), worker("alpha-2", "h", 5*gib), worker("beta-1", "h", 5*gib)},
			[]string{"host h has 5.0 GiB available", "3 nodes there (alpha-1, alpha-2, beta-1) need 6.0 GiB"}},
		"each host alone fits": {plan(1<<26, 1<<26, 1<<26), []*deploy.Worker{worker("alpha-1", "a", 3*gib), worker("alpha-2", "b", 3*gib), worker("beta-1", "c", 3*gib)}, nil},
		"unknown memory":       {plan(1<<30, 1<<30), []*deploy.Worker{worker("alpha-1", "a", 0), worker("alpha-2", "b", 0)}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := checkNodeMemory(tc.plan, tc.workers)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, jobs.ErrMemory) {
				t.Fatalf("error %v, want one wrapping jobs.ErrMemory", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestRunRefusesNodeMemory runs a job whose slabs cannot fit the local
// host's memory (n = 1024 on two workers of one host: 16 GiB each, more
// than a test machine has left): it is refused once the hellos are in,
// with the figures, before the console or a worker allocates the problem,
// and no worker is left running.
func TestRunRefusesNodeMemory(t *testing.T) {
	avail := worker.AvailableMemory()
	if avail == 0 || avail > 30<<30 {
		t.Skipf("needs a host with less than 30 GiB available (has %s)", jobs.Bytes(avail))
	}
	spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": "1024", "eps": "1e-3"}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Any: 2}, Cores: 1, WallTime: time.Minute}
	var pids []int
	opt := RunOptions{Inventory: loadInventory(t, ""), NoRecord: true, StoreDir: t.TempDir(),
		OnWorkers: func(ws []*deploy.Worker) {
			for _, w := range ws {
				pids = append(pids, w.Hello.PID)
				if w.Hello.Memory == 0 {
					t.Errorf("worker %s reported no memory in its hello", w.Host.Name)
				}
			}
		}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Run(ctx, spec, opt)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if !errors.Is(err, jobs.ErrMemory) {
		t.Fatalf("run error %v, want one wrapping jobs.ErrMemory", err)
	}
	for _, w := range []string{"available", "2 nodes there", "need 32.0 GiB", "16.0 GiB each"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<30 {
		t.Errorf("the console allocated %s before refusing", jobs.Bytes(grew))
	}
	assertGone(t, pids)
}

// TestMemoryNote checks the figures added to a worker killed by SIGKILL,
// and that the kernel's word for an out-of-memory kill is kept.
func TestMemoryNote(t *testing.T) {
	plan := &Plan{Ranks: []string{"alpha-1"}, Task: gridapp.Task{Parts: []gridapp.PartSpec{{Size: 1 << 27}}}}
	s := &submission{plan: plan, workers: map[string]*deploy.Worker{
		"alpha-1": {Host: inventory.Host{Name: "alpha-1"}, Hello: deploy.Hello{Memory: 2 << 30}}}}
	tests := map[string]struct {
		err  error
		want string
	}{
		"kill -9":    {fmt.Errorf("%w: %w", deploy.ErrKilled, errors.New("signal: killed")), " (possibly out of memory: the node's part needs about 4.0 GiB, its host had 2.0 GiB available when the worker started)"},
		"oom killer": {fmt.Errorf("%w, %w", deploy.ErrKilled, deploy.ErrOutOfMemory), " (out of memory: the node's part needs about 4.0 GiB, its host had 2.0 GiB available when the worker started)"},
		"exit 1":     {errors.New("exit status 1"), ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := s.memoryNote("alpha-1", tc.err); got != tc.want {
				t.Errorf("note %q, want %q", got, tc.want)
			}
		})
	}
}
