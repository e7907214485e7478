package solve

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/internal/checkpoint"
)

// CheckpointPlan says how a worker checkpoints its part and whether it
// starts from a checkpoint (docs/FAILURES.md). The submitter sets it when
// the job's checkpoints are on; the application's part must implement
// gridapp.Checkpointer, else the worker takes none (and the run cannot
// recover from a loss, which the report says).
type CheckpointPlan struct {
	// Dir is the directory the checkpoints are written to, shared by every
	// node of the job ("": none on disk, checkpoint_dir unset).
	Dir string `json:",omitempty"`
	// Buddy is the node that keeps a copy of this part's checkpoints in
	// memory (nil: none); Holders are the nodes that may hold the copies a
	// restore needs, when this node has none in its own memory (the lost
	// part's buddy of the previous attempt). Both need the worker's
	// CopyStore (Subtask.Copies).
	Memory  bool     `json:",omitempty"` // in-memory copies (Subtask.Copies)
	Buddy   *Holder  `json:",omitempty"`
	Holders []Holder `json:",omitempty"`
	// Every is the interval in iterations (sweeps of this part); with
	// Auto, the base of the intervals the part chooses (pace).
	Every int
	Auto  bool `json:",omitempty"`
	// First is, with Auto, how long into the run the part takes its first
	// checkpoint (0: FirstCheckpointAfter).
	First time.Duration `json:",omitempty"`
	// Run keys the run's checkpoints: the same across its recoveries.
	Run string
	// Restore is the iteration to restore from (0: start afresh). Exact,
	// when Latest is false: a synchronous run rolls every part back to the
	// same iteration; else the part's newest usable checkpoint.
	Restore uint64
	Latest  bool
	// Step, with Latest in an asynchronous or hybrid task of several outer
	// steps, is the step every part restarts in (steps advanced past, as
	// checkpoint.Header.Step): a part whose newest checkpoint is of a later
	// step restores the one it took at that step's start, of iteration
	// StepFrom[rank] (0: the start of the run). Without StepFrom, each part
	// restores its newest.
	Step     int      `json:",omitempty"`
	StepFrom []uint64 `json:",omitempty"`
	// OrStart, with Latest, lists the ranks that had reported no
	// checkpoint when a loss was recovered (asynchronous and hybrid runs):
	// such a part restores its newest if it finds one (an asynchronous
	// survivor's state where it stopped, a copy the lagging statuses did
	// not name yet), else starts from the start of the run (iteration 0,
	// the application's initial values) rather than failing. To its
	// neighbours a part restarted so is a very late one.
	OrStart []int `json:",omitempty"`
	// Rollback, with Latest in a hybrid task of one step, is the
	// iteration each rank of a cluster that lost a part rolls back to,
	// by rank (0: the start of the run): the newest its cluster's parts,
	// linked synchronously, all hold. The engine gives such a rank an
	// exact Restore instead (Latest false); the ranks it does not name
	// restore their newest, a survivor its state where it stopped
	// (lastCheckpoint).
	Rollback map[int]uint64 `json:",omitempty"`
}

// checkpointer is a solver's checkpoint state: the plan, the part's
// Checkpointer, the identity of the task and the writer that puts the
// bytes on disk off the iteration's path.
type checkpointer struct {
	plan     CheckpointPlan
	part     gridapp.Checkpointer
	identity [32]byte
	step     int  // outer steps advanced past
	atEnd    bool // between the step's end checkpoint and the advance: Header.End
	writes   chan checkpointWrite
	done     chan error
	buf      bytes.Buffer
	free     chan []byte // buffers the writer is done with, for the next checkpoints (no CopyStore)
	size     int         // the last checkpoint's payload, to size the next one's buffer
	copies   CopyStore   // nil: no in-memory copies
	pace     pace        // the interval (plan.Every, or chosen under plan.Auto)
}

// KeepCheckpoints is how many checkpoints a part keeps: the attempt a loss
// stopped may write one or two more before its stop reaches it, and the
// rollback point must survive them.
const KeepCheckpoints = 4

// checkpointWrite is a checkpoint for the writer: room for h's header,
// then the part's state (checkpoint.Seal).
type checkpointWrite struct {
	h    checkpoint.Header
	data []byte
	kept chan error // told once it is kept, or why not (nil: nobody waits)
	warm int        // > 0: no checkpoint, prepare the next of this size
	room int        // data[:room] is free for the copy's framing (framer)
}

// framer is a CopyStore that frames its copy's message in the room left
// before the container (SaveFramed keeps buf[room:]), rather than copying
// the container into a message of its own.
type framer interface {
	CopyRoom() int
	SaveFramed(h checkpoint.Header, buf []byte, room int) error
}

// room is the room left before a checkpoint's container for its copy's
// framing (0: the CopyStore does not frame).
func (c *checkpointer) room() int {
	if f, ok := c.copies.(framer); ok {
		return f.CopyRoom()
	}
	return 0
}

// startCheckpoints prepares s's checkpoints when its plan asks for them and
// its part can; it restores the part first when the plan says so.
func (s *solver) startCheckpoints(identity [32]byte) error {
	p := s.t.Checkpoint
	if p == nil || p.Every <= 0 && p.Restore == 0 && !p.Latest {
		return nil
	}
	cp, ok := s.part.(gridapp.Checkpointer)
	if !ok {
		if p.Restore > 0 || p.Latest {
			return fmt.Errorf("%w %q: cannot restore: the application has no checkpoints", ErrApplication, s.app)
		}
		// Say so where the submitter looks after a loss (best effort).
		if p.Dir != "" {
			checkpoint.Dir{Path: p.Dir}.MarkNone(p.Run, s.app)
		}
		if s.t.Copies != nil {
			s.t.Copies.None(s.app)
		}
		return nil
	}
	c := &checkpointer{plan: *p, part: cp, identity: identity, copies: s.t.Copies}
	c.pace.init(p.Every, p.Auto, p.First)
	if p.Restore > 0 || p.Latest {
		if err := s.restore(c); err != nil {
			return err
		}
	}
	if p.Every > 0 {
		c.writes, c.done, c.free = make(chan checkpointWrite, 1), make(chan error, 1), make(chan []byte, 2)
		go c.writer()
	}
	s.ckpt = c
	return nil
}

// header is the header of this part's checkpoint of now.
func (s *solver) header(c *checkpointer) checkpoint.Header {
	return checkpoint.Header{Run: c.plan.Run, Identity: c.identity, Rank: s.t.Rank, Ranks: s.t.Ranks,
		Step: c.step, Iteration: uint64(s.iter), End: c.atEnd}
}

// restore reads the part's checkpoint of the plan's iteration (or its
// newest usable one) and restores the part, the sweep count and the step.
func (s *solver) restore(c *checkpointer) error {
	want := s.header(c)
	var h checkpoint.Header
	var payload []byte
	err := errors.New("no checkpoint store")
	if c.copies != nil {
		h, payload, err = s.restoreCopy(c, want)
	}
	if err != nil && c.plan.Dir != "" {
		h, payload, err = s.restoreDisk(c, want)
	}
	if err != nil && c.plan.Latest && slices.Contains(c.plan.OrStart, s.t.Rank) {
		// No checkpoint of this part yet: from the start of the run.
		s.res.CheckpointNotes = append(s.res.CheckpointNotes, "restarted from the start: no checkpoint of this part yet ("+Bare(err.Error())+")")
		return nil
	}
	if err != nil {
		return fmt.Errorf("engine: restore: %w", err)
	}
	h, payload, advance, err := s.restoreStep(c, want, h, payload)
	if err != nil {
		return fmt.Errorf("engine: restore: %w", err)
	}
	if payload == nil { // the step's start is the run's
		return nil
	}
	if err := c.part.Restore(bytes.NewReader(payload)); err != nil {
		return fmt.Errorf("%w %q: restore from iteration %d: %w", ErrApplication, s.app, h.Iteration, err)
	}
	s.iter, s.counted, c.step = int(h.Iteration), int(h.Iteration), h.Step
	if st, ok := s.part.(gridapp.Stepper); ok && advance {
		st.Advance() // the end of the step before: the plan's step starts here
		c.step++
	}
	s.res.Restored, s.res.RestoredStep = h.Iteration, c.step
	if r, ok := c.copies.(interface{ Restored(it uint64) }); ok {
		r.Restored(h.Iteration) // kept here and on this attempt's buddy
	}
	return nil
}

// restoreDisk reads the part's checkpoint from the plan's directory.
func (s *solver) restoreDisk(c *checkpointer, want checkpoint.Header) (checkpoint.Header, []byte, error) {
	return s.loadDisk(c, want, c.plan.Restore, c.plan.Latest)
}

// loadDisk reads the part's checkpoint of iteration it (latest: its
// newest) from the plan's directory.
func (s *solver) loadDisk(c *checkpointer, want checkpoint.Header, it uint64, latest bool) (checkpoint.Header, []byte, error) {
	d := checkpoint.Dir{Path: c.plan.Dir, Keep: KeepCheckpoints}
	h, payload, refused, err := d.Latest(want)
	if err == nil && !latest && h.Iteration != it {
		h, payload, err = d.Load(want, it)
	}
	for _, r := range refused {
		s.res.CheckpointNotes = append(s.res.CheckpointNotes, "refused "+Bare(r.Err.Error()))
	}
	return h, payload, err
}

// maybeCheckpoint takes the part's checkpoint when the interval says so:
// it serializes the part now (at the iteration boundary) and hands the
// bytes to the writer; the iteration waits only when the previous write
// has not finished. A checkpoint that fails (the application's error, a
// full disk) stops this part's checkpoints, never the run: the result says
// why, and a recovery uses the older ones or fails naming the part.
//
// A part whose σ is already below ε takes none: its step (or the run) may
// be ending, with the termination detector's tokens under way, and a
// synchronous rollback to such an iteration would restart the detection
// there and sweep past the undisturbed run (not bit for bit). A rollback
// goes to the newest iteration every part checkpointed, so to one at which
// no part had converged yet.
func (s *solver) maybeCheckpoint() {
	c := s.ckpt
	if c == nil || c.writes == nil || s.sigma < s.eps {
		return
	}
	if !c.pace.due(s.iter) {
		if c.pace.warmNow() {
			s.warmCheckpoint()
		}
		return
	}
	s.takeCheckpoint(nil)
}

// warmCheckpoint asks the writer to prepare the part's first checkpoint
// (prepare), which is near: it is dearer than the next ones, its buffers
// fresh memory whose page faults, taken at the iteration boundary, would
// hold up the part (and in a synchronous run every part) while it
// serializes. When the writer is busy it is left to the checkpoint.
func (s *solver) warmCheckpoint() {
	c := s.ckpt
	n := c.room() + checkpoint.HeaderLen(s.header(c)) + max(c.size, c.sizeHint()) + 4
	select {
	case c.writes <- checkpointWrite{warm: n}:
	default:
	}
}

// prepare makes a buffer of n bytes for the next checkpoint, its pages
// touched, and lets the CopyStore prepare its copy (Warm): all of it off
// the iteration's path.
func (c *checkpointer) prepare(n int) {
	var b []byte
	if c.copies != nil {
		b = c.copies.Buffer(n)
	}
	if cap(b) < n {
		b = make([]byte, 0, n)
	}
	touch(b[:n])
	select {
	case c.free <- b[:0]:
	default:
	}
	if w, ok := c.copies.(interface{ Warm() }); ok {
		w.Warm()
	}
}

// touch writes one byte of every page of b, so that the kernel maps them
// now (a page fault each) rather than when the checkpoint is written.
func touch(b []byte) {
	for i := 0; i < len(b); i += 4096 {
		b[i] = 0
	}
}

// takeCheckpoint serializes the part at iteration s.iter and hands the
// bytes to the writer, which tells kept (when not nil, with room for one)
// once it is kept, or why not. It says whether it did.
func (s *solver) takeCheckpoint(kept chan error) bool {
	c := s.ckpt
	stop := func(err error) {
		s.res.CheckpointNotes = append(s.res.CheckpointNotes, fmt.Sprintf("checkpoints stopped at iteration %d: %s", s.iter, Bare(err.Error())))
		s.stopCheckpoints()
	}
	select {
	case err := <-c.done:
		stop(err)
		return false
	default:
	}
	// Serialized straight into the buffer that keeps it (the CopyStore's,
	// else one the writer hands back), after room for the container's
	// header: no copy of the state, nor an allocation of its size once the
	// buffers are in use.
	h := s.header(c)
	room := c.room()
	hl := room + checkpoint.HeaderLen(h)
	n := hl + max(c.size, c.sizeHint()) + 4
	var b []byte
	select {
	case b = <-c.free: // the writer's, or one prepared
	default:
	}
	if cap(b) < n && c.copies != nil {
		b = c.copies.Buffer(n)
	}
	if cap(b) < n {
		b = make([]byte, 0, n)
	}
	buf := bytes.NewBuffer(b[:hl])
	start := time.Now()
	if err := c.part.Checkpoint(buf); err != nil {
		stop(fmt.Errorf("application %q: %w", s.app, err))
		return false
	}
	c.size = buf.Len() - hl
	if kept == nil {
		// A periodic checkpoint: the pace times it. A step's end (kept)
		// is taken whatever the pace, and its iterations around the vote
		// would read slow.
		c.pace.took(s.iter, start, time.Since(start))
	}
	c.writes <- checkpointWrite{h: h, data: buf.Bytes(), room: room, kept: kept}
	s.res.Checkpoints++
	return true
}

// sizeHint is the size of the part's state when the part says it
// (CheckpointSize), so that its first checkpoint is serialized into a
// buffer of the right size rather than one that grows.
func (c *checkpointer) sizeHint() int {
	if z, ok := c.part.(interface{ CheckpointSize() int }); ok {
		return max(z.CheckpointSize(), 0)
	}
	return 0
}

// writer keeps the checkpoints, one after the other: in memory (here and
// on the buddy) and on disk when the plan has a directory.
func (c *checkpointer) writer() {
	d := checkpoint.Dir{Path: c.plan.Dir, Keep: KeepCheckpoints}
	for w := range c.writes {
		if w.warm > 0 {
			c.prepare(w.warm)
			continue
		}
		start := time.Now()
		data := w.data[w.room:]
		enc, err := checkpoint.Seal(data, w.h)
		f, framed := c.copies.(framer)
		switch {
		case err != nil || c.copies == nil:
		case framed && w.room > 0 && cap(data) >= len(enc): // sealed in place
			err = f.SaveFramed(w.h, w.data[:w.room+len(enc)], w.room) // the store keeps enc
		default:
			err = c.copies.Save(w.h, enc) // the store keeps enc
		}
		if errors.Is(err, ErrNotCopied) && w.kept != nil {
			// A step's end: once more, copied (a first frame may still be
			// on its way, and its framing is not rewritten).
			err = c.copies.Save(w.h, enc)
		}
		if c.plan.Dir != "" && len(enc) > len(data) { // sealed
			if _, derr := d.SaveEncoded(w.h, enc); derr != nil {
				err = derr
			}
		}
		c.pace.written(time.Since(start))
		if w.kept != nil {
			w.kept <- err
		}
		if errors.Is(err, ErrNotCopied) {
			err = nil // kept here: the next checkpoints go on, and may reach the buddy
		}
		if err != nil {
			select {
			case c.done <- err:
			default:
			}
		}
		if c.copies == nil {
			select {
			case c.free <- enc[:0]:
			default:
			}
		}
	}
	close(c.done)
}

// stopCheckpoints waits for the last checkpoint to be written.
func (s *solver) stopCheckpoints() {
	if s.ckpt == nil || s.ckpt.writes == nil {
		return
	}
	close(s.ckpt.writes)
	for range s.ckpt.done {
	}
	s.ckpt.writes = nil
}
