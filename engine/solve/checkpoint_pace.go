package solve

import (
	"cmp"
	"sync/atomic"
	"time"
)

// CheckpointBudget is the share of a run's time the default interval
// (jobs.Resilience.Auto) lets checkpoints take, and MaxCheckpointInterval
// the longest time it lets pass between two, so that a loss costs at most
// that much work: when a checkpoint costs more than CheckpointBudget of
// that, the bound wins. FirstCheckpointAfter is about when a part takes
// its first: a run shorter than that takes none (a loss restarts it from
// the start, or in an asynchronous run the lost part alone), so that the
// first checkpoint's cost, the dearest (fresh buffers on both nodes, the
// buddy's first link, a collection), is paid only by a run long enough to
// make it a small share (docs/FAILURES.md, docs/bench/resilience.md).
const (
	CheckpointBudget      = 0.01
	MaxCheckpointInterval = 30 * time.Second
	FirstCheckpointAfter  = 5 * time.Second
)

// pace is when a part checkpoints. With a fixed interval (checkpoint_every
// set, or a Calculator's own boundaries) it is every multiple of every.
// Under Auto (the default) the part takes its first checkpoint about
// FirstCheckpointAfter into the run, at a multiple of base·2^m on which
// the ranks of a synchronous run agree (dueFirst). It times that first
// checkpoint — the serialization, which the iteration
// pays, and the writing beside it (memory, the buddy, the disk), which
// shares the processors (counted writeShare times) — and then keeps
// every·4^k, the least interval whose time keeps that cost within
// CheckpointBudget, at most MaxCheckpointInterval. Until the first write
// has been timed it takes no other. The interval is chosen once per
// attempt and never changes after: a synchronous rollback counts on every
// multiple of it (NodeStatus.CheckpointEvery).
type pace struct {
	base    int
	every   int // 0: not chosen yet (auto)
	since   int // the iteration from which every holds (after the first)
	first   int // the iteration of the first checkpoint (auto), 0: none yet
	at      time.Time
	ser     time.Duration
	writeNs atomic.Int64 // the first write's time, set by the writer

	// Auto, before the first checkpoint: the iterations timed from i0 at
	// t0, and the chosen step (base·2^m) whose next multiple is the first.
	i0        int
	t0        time.Time
	firstStep int
	after     time.Duration // FirstCheckpointAfter, or the plan's
	warm      int8          // 1: the first is near, prepare it (warmNow); 2: prepared
}

// warmAhead is how far into the wait for the first checkpoint (auto) the
// part prepares it (warmNow): its buffers faulted in, the buddy's link
// opened, off the iteration's path and about a second before it. A run
// that ends before that pays nothing for its checkpoints.
const warmAhead = 3 // quarters of after

// writeShare is how much a checkpoint costs the processors for each unit
// of its writer's own time: the writer sees the sealing, the store and the
// sends, not the buddy's receiving, copying and checking of the copy, the
// kernel's copies, the page faults of fresh buffers nor the collector's
// work after them. Measured end to end (docs/bench/resilience.md: one
// checkpoint of obstacle n = 64 on 8 nodes cost about five times its
// writer's time), rounded down.
const writeShare = 4

// init sets the plan's interval (auto: the base of the chosen one, the
// first taken after first, 0: FirstCheckpointAfter).
func (p *pace) init(every int, auto bool, first time.Duration) {
	p.base, p.after = max(every, 1), cmp.Or(max(first, 0), FirstCheckpointAfter)
	if !auto {
		p.every = p.base
	}
}

// due reports whether the part checkpoints at iteration it.
func (p *pace) due(it int) bool {
	switch {
	case it <= 0:
		return false
	case p.every > 0:
		return it%p.every == 0 && it > p.since
	case p.first == 0:
		return p.dueFirst(it)
	case it%p.base != 0:
		return false
	}
	w := time.Duration(p.writeNs.Load())
	if w <= 0 {
		return false // the first is still being written
	}
	// The pace of the iterations before the first checkpoint, undisturbed
	// by it (those since include its writing, and read slower).
	iters, elapsed := it-p.first, time.Since(p.at)
	if !p.t0.IsZero() && p.first > p.i0 {
		iters, elapsed = p.first-p.i0, p.at.Sub(p.t0)
	}
	p.every, p.since = p.base*autoLevel(p.base, iters, elapsed, p.ser+writeShare*w), it-1
	return it%p.every == 0
}

// dueFirst is due before the first checkpoint (auto). The part times
// base/2 iterations from the base/2-th (or from where a restored part
// starts), chooses a step of base·2^m iterations that takes about
// after/8 (firstLevel), and takes its first checkpoint at the first
// multiple of the step reached after since it began timing. The ranks
// of a synchronous run sweep in step (at any time at most their distance
// apart in iterations), so they pass the same multiples at the same time
// and take the same one, unless after runs out within those few
// iterations of one: then their first ones differ by a step, and a loss
// before their next common one restarts the run from the start.
func (p *pace) dueFirst(it int) bool {
	half := max(p.base/2, 1)
	switch {
	case p.firstStep > 0:
		if it%p.firstStep != 0 {
			return false
		}
		since := time.Since(p.t0)
		if p.warm == 0 && since >= p.after*warmAhead/4 {
			p.warm = 1
		}
		return since >= p.after
	case it < half:
		return false
	case p.t0.IsZero():
		p.i0, p.t0 = it, time.Now()
		return false
	case it-p.i0 < half:
		return false
	}
	p.firstStep = p.base * firstLevel(p.base, it-p.i0, time.Since(p.t0), p.after/8)
	return it%p.firstStep == 0 && time.Since(p.t0) >= p.after
}

// warmNow reports, once, that the first checkpoint (auto) is near: the
// part prepares it now (solver.warmCheckpoint).
func (p *pace) warmNow() bool {
	if p.warm != 1 {
		return false
	}
	p.warm = 2
	return true
}

// fixed is due for a part that checkpoints at its own boundaries (a
// Calculator): the plan's interval, never chosen.
func (p *pace) fixed(it int) bool {
	if p.every == 0 {
		p.every = p.base
	}
	return it%p.every == 0
}

// took records a checkpoint serialized at iteration it.
func (p *pace) took(it int, at time.Time, ser time.Duration) {
	if p.first == 0 {
		p.first, p.at, p.ser = it, at, ser
	}
}

// written records the writer's time for one checkpoint: the first counts.
func (p *pace) written(d time.Duration) { p.writeNs.CompareAndSwap(0, max(int64(d), 1)) }

// interval is the chosen interval (0: not yet).
func (p *pace) interval() (every, since int) { return p.every, p.since }

// firstLevel is the greatest multiple of base (a power of 2) whose time,
// at the pace of iters iterations in elapsed, is at most grain (1 when
// even base takes longer).
func firstLevel(base, iters int, elapsed, grain time.Duration) int {
	if iters <= 0 || elapsed <= 0 {
		return 1
	}
	per := float64(elapsed) / float64(iters)
	m := 1
	for float64(base*m*2)*per <= float64(grain) && m < 1<<30/max(base, 1) {
		m *= 2
	}
	return m
}

// autoLevel is the multiple of base (a power of 4) whose time, at the
// pace of iters iterations in elapsed, makes a checkpoint of cost at most
// CheckpointBudget of it, bounded by MaxCheckpointInterval.
func autoLevel(base, iters int, elapsed, cost time.Duration) int {
	if iters <= 0 || elapsed <= 0 {
		return 1
	}
	per := float64(elapsed) / float64(iters)
	want := min(float64(cost)/CheckpointBudget, float64(MaxCheckpointInterval))
	m := 1
	for float64(base*m)*per < want && m < 1<<30/max(base, 1) {
		m *= 4
	}
	for m > 1 && float64(base*m)*per > float64(MaxCheckpointInterval) {
		m /= 4
	}
	return m
}
