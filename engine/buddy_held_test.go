package engine

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/rmnp"
)

// heldCopies is what a fakeHolder keeps: the header of its copy of each
// rank, which the test may change between asks.
type heldCopies struct {
	mu sync.Mutex
	m  map[int]checkpoint.Header
}

// of returns the header kept of rank.
func (k *heldCopies) of(rank int) (checkpoint.Header, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	h, ok := k.m[rank]
	return h, ok
}

// drop forgets the copy of rank.
func (k *heldCopies) drop(rank int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, rank)
}

// fakeHolder is a node that answers the submitter's asks (worker.AskNewest)
// with the header of the copy it keeps of each rank (none: why not).
func fakeHolder(t *testing.T, ctx context.Context, runID [16]byte, secret []byte, node string, keeps *heldCopies) []string {
	t.Helper()
	cfg := rmnp.DefaultConfig()
	cfg.RunID, cfg.Secret, cfg.Self = runID, secret, worker.NodeID(node)
	cfg.Listen = []string{"tcp://127.0.0.1:0"}
	z, err := rmnp.Listen(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { z.Close() })
	go func() {
		buf := make([]byte, 64<<10)
		for {
			src, kind, err := z.Wait(ctx)
			if err != nil {
				return
			}
			m, err := worker.ReceiveCtrl(ctx, z, src, kind, &buf)
			if err != nil {
				continue
			}
			typ, body, err := worker.DecodeMsg(m)
			var f struct {
				ID             uint64
				Run            string
				Rank           int
				Iteration      uint64
				Latest, Header bool
			}
			if err != nil || typ != worker.MsgCopyFetch || worker.DecodeBody(typ, body, &f) != nil {
				continue
			}
			a := binary.LittleEndian.AppendUint64([]byte{byte(worker.MsgCopyReply)}, f.ID)
			if h, ok := keeps.of(f.Rank); ok && h.Run == f.Run {
				enc, err := checkpoint.Append(nil, h, []byte("state"))
				if err != nil {
					return
				}
				a = append(append(a, 1), enc[:checkpoint.HeaderLen(h)]...)
			} else {
				a = append(append(a, 0), node+" holds none"...)
			}
			z.Send(ctx, src, a, rmnp.CTRL)
		}
	}()
	return z.Addrs()
}

// TestMemoryPointOneStepAsked: in an asynchronous task of one step, a lost
// part that had reported no copy yet restores from the copy its buddy
// keeps (the copy reached it before a status said so): its buddy is asked,
// as in a task of several steps, and the part is no fresh start (not in
// OrStart, its holders kept). A buddy that holds none leaves it a fresh
// start with no holders (its record, from the start, is true); a checkpoint
// of it on disk, when the run writes there, counts as one. Before, a task
// of one step asked nobody, and the part restarted from the start.
func TestMemoryPointOneStepAsked(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	runID, secret := [16]byte{7}, []byte("the test secret of one step")
	held := checkpoint.Header{Run: "key", Rank: 1, Ranks: 4, Iteration: 400}
	keeps := &heldCopies{m: map[int]checkpoint.Header{1: held}}
	s := &submission{spec: jobs.Spec{App: "poisson", Scheme: jobs.Asynchronous},
		plan:     &Plan{Ranks: []string{"a1", "a2", "b1", "b2"}},
		buddies:  []string{"b1", "b2", "a1", "a2"},
		ctrl:     map[string][]string{"b2": fakeHolder(t, ctx, runID, secret, "b2", keeps)},
		statuses: make([]solve.NodeStatus, 4),
		ckpt:     &solve.CheckpointPlan{Memory: true, Run: "key"},
		opt:      RunOptions{RunID: runID, Secret: secret},
		logf:     func(string, string, ...any) {}}
	for _, r := range []int{0, 2, 3} {
		s.statuses[r].Copies = []uint64{400, 200}
	}
	from, holders, err := memoryPoint(s, []string{"a2"}, false)
	if err != nil || !from.Latest || len(from.OrStart) != 0 || from.StepFrom != nil {
		t.Fatalf("buddy keeps a copy: %+v %v, want each part's newest, rank 1 from its buddy's copy", from, err)
	}
	if len(holders[1]) != 1 || holders[1][0].Node != "b2" {
		t.Fatalf("holders %v, want b2 for rank 1", holders)
	}
	keeps.drop(1)
	from, holders, err = memoryPoint(s, []string{"a2"}, false)
	if err != nil || !slices.Equal(from.OrStart, []int{1}) || len(holders[1]) != 0 {
		t.Fatalf("buddy keeps none: %+v, holders %v, %v: want rank 1 from the start, no holder", from, holders, err)
	}
	s.ckpt.Dir = t.TempDir()
	if _, err := (checkpoint.Dir{Path: s.ckpt.Dir, Keep: 4}).Save(held, []byte("state")); err != nil {
		t.Fatal(err)
	}
	from, _, err = memoryPoint(s, []string{"a2"}, false)
	if err != nil || len(from.OrStart) != 0 {
		t.Fatalf("on disk in %s: %+v %v, want rank 1 restored from it", filepath.Join(s.ckpt.Dir, "key"), from, err)
	}
}

// TestMemoryPointSyncAsked: a synchronous run lost a2, its group's
// coordinator: the statuses of its group (a1, a2) lag far behind (copies
// 400, 200), the other group's are fresh (3800). Every part holds 3800
// (its own node, a2's buddy b2 for it), so the rollback lands there: each
// part's holders are asked before the point is chosen. Before, the point
// came from the statuses alone: 3400, the newest multiple of the interval
// the lagging reach allowed. A holder that does not answer counts as its
// statuses say.
func TestMemoryPointSyncAsked(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	runID, secret := [16]byte{8}, []byte("the test secret of a sync rollback")
	head := func(r int, it uint64) checkpoint.Header {
		return checkpoint.Header{Run: "key", Rank: r, Ranks: 4, Iteration: it}
	}
	keeps := map[string]*heldCopies{
		"a1": {m: map[int]checkpoint.Header{0: head(0, 3800)}},
		"b1": {m: map[int]checkpoint.Header{2: head(2, 3800)}},
		"b2": {m: map[int]checkpoint.Header{3: head(3, 3800), 1: head(1, 3800)}},
	}
	ctrl := map[string][]string{}
	for node, k := range keeps {
		ctrl[node] = fakeHolder(t, ctx, runID, secret, node, k)
	}
	s := &submission{spec: jobs.Spec{App: "poisson", Scheme: jobs.Synchronous, Resilience: jobs.Resilience{CheckpointEvery: 200}},
		plan: &Plan{Ranks: []string{"a1", "a2", "b1", "b2"}, Task: gridapp.Task{Eps: 1e-9},
			Edges: [][2]int{{0, 1}, {1, 2}, {2, 3}}},
		buddies:  []string{"b1", "b2", "a1", "a2"},
		ctrl:     ctrl,
		statuses: make([]solve.NodeStatus, 4),
		ckpt:     &solve.CheckpointPlan{Memory: true, Run: "key"},
		opt:      RunOptions{RunID: runID, Secret: secret},
		logf:     func(string, string, ...any) {}}
	for r := range s.statuses {
		s.statuses[r] = solve.NodeStatus{Rank: r, Sigma: 1, Iteration: 3850, Copies: []uint64{3800, 3600}}
		if r < 2 {
			s.statuses[r].Iteration, s.statuses[r].Copies = 450, []uint64{400, 200}
		}
	}
	from, holders, err := memoryPoint(s, []string{"a2"}, true)
	if err != nil || from.Restore != 3800 {
		t.Fatalf("every part holds 3800: %+v %v, want the rollback there", from, err)
	}
	if len(holders[1]) != 1 || holders[1][0].Node != "b2" {
		t.Fatalf("holders %v, want b2 for rank 1", holders)
	}
	// b2 holds none of rank 1 now: it counts as its statuses say, and the
	// point is as before the asks (a survivor's holder that does not
	// answer is vouched for by its neighbours' progress).
	keeps["b2"].drop(1)
	keeps["a1"].drop(0)
	from, _, err = memoryPoint(s, []string{"a2"}, true)
	if err != nil || from.Restore != 3400 {
		t.Fatalf("b2 holds none of rank 1: %+v %v, want 3400 (by the statuses)", from, err)
	}
}

// TestAskEachSilent: the holders are asked at once under one deadline
// (worker.AskEach): one that links but never answers, and one that cannot
// be reached, fail their asks without delaying the one that answers, and
// the whole takes the deadline, not a deadline per holder.
func TestAskEachSilent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	runID, secret := [16]byte{9}, []byte("the test secret of silent holders")
	keeps := &heldCopies{m: map[int]checkpoint.Header{0: {Run: "key", Rank: 0, Ranks: 2, Iteration: 600}}}
	cfg := rmnp.DefaultConfig()
	cfg.RunID, cfg.Secret, cfg.Self = runID, secret, worker.NodeID("silent")
	cfg.Listen = []string{"tcp://127.0.0.1:0"}
	quiet, err := rmnp.Listen(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer quiet.Close()
	s := &submission{plan: &Plan{Ranks: []string{"a1", "a2"}},
		ckpt: &solve.CheckpointPlan{Memory: true, Run: "key"}, opt: RunOptions{RunID: runID, Secret: secret}}
	asks := []worker.NewestAsk{
		{Holder: solve.Holder{Node: "silent", Ctrl: quiet.Addrs()}, Rank: 1},
		{Holder: solve.Holder{Node: "gone", Ctrl: []string{"tcp://127.0.0.1:1"}}, Rank: 1},
		{Holder: solve.Holder{Node: "b1", Ctrl: fakeHolder(t, ctx, runID, secret, "b1", keeps)}, Rank: 0},
	}
	start := time.Now()
	heads, errs := s.askEach(asks)
	took := time.Since(start)
	if errs[2] != nil || heads[2].Iteration != 600 {
		t.Fatalf("b1's answer: %+v %v, want iteration 600", heads[2], errs[2])
	}
	if errs[0] == nil || errs[1] == nil {
		t.Fatalf("the silent and the unreachable holders answered: %v", errs)
	}
	if took > askTimeout+time.Second {
		t.Fatalf("the asks took %v, want at most about the one deadline %v", took, askTimeout)
	}
}
