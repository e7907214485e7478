package worker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/rmnp"
)

// Double in-memory checkpointing (docs/FAILURES.md): every checkpoint of a
// part stays in its worker's memory and a copy goes, off the iteration's
// path, to the part's buddy (another node of the job, in another cluster
// when there is one) over the control endpoints. A node keeps the copies
// in its copyStore, which outlives the runs (a recovery is a new attempt
// on the same workers). A part restored after a loss reads its own memory
// first, then asks the plan's holders (msgCopyFetch); every copy is
// checked like a file (checksum, run, problem identity, rank) and a
// refused one is named with its node and the reason.

// memoryKeep is how many checkpoints of each part a node keeps: more than
// the disk's, so that the copies the submitter last heard of (in the
// statuses, which lag) are still held when a recovery asks for them.
const memoryKeep = 2 * solve.KeepCheckpoints

// copyReports is how many copies a part reports in its statuses (hold
// keeps at most heldNewest+heldLevels), and pinFor how long the copies it reported stay pinned in
// memory (here and on the buddy): longer than a status takes to reach the
// submitter, so that the iteration a recovery picks is still held.
const (
	copyReports = heldNewest + heldLevels
	pinFor      = 3 * time.Second
)

// copyTimeout bounds sending a copy to the buddy and fetching one.
const copyTimeout = 10 * time.Second

// copyStore is a node's memory of checkpoints and its pending fetches.
type copyStore struct {
	mem *checkpoint.Memory

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan []byte
}

func newCopyStore() *copyStore {
	mem := checkpoint.NewMemory(memoryKeep, rmnp.DefaultMaxFrame)
	// Every checkpoint of the last pinFor too (within the store's budget):
	// a synchronous rollback goes to the newest iteration the lost part's
	// statuses reported, which on a fast run can be many checkpoints
	// behind the survivors' newest.
	mem.Window = pinFor
	return &copyStore{mem: mem, pending: map[uint64]chan []byte{}}
}

// copyFetch asks a holder for a part's checkpoint; with Header, for its
// header alone (the container's first bytes: where a restore from it
// would start, AskNewest).
type copyFetch struct {
	ID        uint64
	Run       string
	Rank      int
	Iteration uint64
	Latest    bool
	Header    bool `json:",omitempty"`
}

// jobCopies is a part's solve.CopyStore on this node.
type jobCopies struct {
	n    *node
	plan solve.CheckpointPlan
	// ctx is the job's: its end stops waiting for a copy on its way to a
	// buddy that does not answer (a lost one), which would otherwise hold
	// the checkpoint writer, and so the end of the run, for copyTimeout.
	// It never cuts the copy's frame (sendWhole): that would cut the
	// control link, which the buddy may also need to its coordinator.
	ctx context.Context

	sendMu sync.Mutex
	msg    []byte // the last copy sent to the buddy, its buffer for the next

	mu       sync.Mutex
	held     []uint64     // iterations kept here and on the buddy, newest first
	loaded   []loadedCopy // what Load returned, until the part says which it restored
	reported []reported
	none     bool
	warned   bool
}

// loadedCopy is a checkpoint Load returned: the part may restore it, or
// another it loads next (the start of its step).
type loadedCopy struct {
	h   checkpoint.Header
	enc []byte
}

// reported is a list of copies a status gave out, and when.
type reported struct {
	at  time.Time
	its []uint64
}

// pinned returns the iterations reported within pinFor.
func (j *jobCopies) pinned() []uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []uint64{}
	for _, r := range j.reported {
		for _, it := range r.its {
			if !slices.Contains(out, it) {
				out = append(out, it)
			}
		}
	}
	return out
}

// Save keeps the checkpoint here and sends it to the buddy. A buddy that
// cannot be reached is logged once: the part keeps its local copies (a
// recovery on this node still finds them), but a loss of this node then
// cannot be recovered, which the statuses show (held stays behind). Such
// a copy, and one cut by the job's end, returns solve.ErrNotCopied: a
// step's end is sent once more, then noted (solve's stepCheckpoint).
func (j *jobCopies) Save(h checkpoint.Header, enc []byte) error {
	return j.save(h, enc, 0)
}

// SaveFramed is Save of the container buf[room:], whose message to the
// buddy is framed in buf[:room] (frameCopy): no copy of the checkpoint,
// nor a buffer of its size, for the message.
func (j *jobCopies) SaveFramed(h checkpoint.Header, buf []byte, room int) error {
	return j.save(h, buf, room)
}

// CopyRoom is the room SaveFramed wants before a container.
func (j *jobCopies) CopyRoom() int { return copyRoom }

// copyRoom is the room for a msgCopy's framing before its container: the
// type, the count and up to 64 pins (more fall back to a copy).
const copyRoom = 3 + 8*64

// save keeps buf[room:] and sends it, framed in buf[:room] when room is
// enough, else copied into the message's buffer.
func (j *jobCopies) save(h checkpoint.Header, buf []byte, room int) error {
	enc := buf[room:]
	pins := j.pinned()
	j.n.copies.mem.KeepIn(h, enc, buf, pins)
	if b := j.plan.Buddy; b != nil {
		ctx, cancel := context.WithTimeout(j.ctx, copyTimeout)
		j.sendMu.Lock()
		var err error
		if m := frameCopy(buf, room, pins); m != nil {
			// The store only reads enc: the framing before it is the message's.
			err = j.n.sendCopy(ctx, *b, m)
		} else {
			j.msg = appendCopy(j.msg[:0], pins, enc) // the message's buffer is reused: Send is done with it on return
			err = j.n.sendCopy(ctx, *b, j.msg)
			if errors.Is(err, errLeftSending) {
				j.msg = nil // still being sent (the job ended, or the buddy is slow): the next copy takes a new buffer
			}
		}
		j.sendMu.Unlock()
		cancel()
		if err != nil && j.ctx.Err() != nil {
			// The job ended: its copy, if started, is finished in the background.
			return fmt.Errorf("%w: %s, iteration %d: the job ended", solve.ErrNotCopied, b.Node, h.Iteration)
		}
		if err != nil {
			j.mu.Lock()
			warn := !j.warned
			j.warned = true
			j.mu.Unlock()
			if warn {
				j.n.log.Warn("engine: checkpoint copy not sent to the buddy", "buddy", b.Node, "iteration", h.Iteration, "err", err)
			}
			return fmt.Errorf("%w: %s, iteration %d: %w", solve.ErrNotCopied, b.Node, h.Iteration, err)
		}
	}
	j.hold(h.Iteration)
	return nil
}

// Warm prepares the copy of a checkpoint, which is near (solve: the
// first): it links to the buddy now, in the background, so that the
// link's handshake does not come with the copy. (The copy's message is
// framed in the checkpoint's buffer, SaveFramed: no buffer to prepare.)
func (j *jobCopies) Warm() {
	b := j.plan.Buddy
	if b == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(j.ctx, copyTimeout)
		defer cancel()
		j.sendMu.Lock() // Save waits for it: one link, one buffer
		defer j.sendMu.Unlock()
		linkHolder(ctx, j.n.ctrl, *b) // on an error, Save links again and says why
	}()
}

// hold records that iteration it is kept here and on the buddy. It keeps
// the newest few and, further back, the newest multiple of each of Every·4,
// Every·16, …: a synchronous recovery needs an iteration every rank holds,
// and the statuses the submitter last heard of lag by different amounts
// (a sparse tail makes them meet).
func (j *jobCopies) hold(it uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if slices.Contains(j.held, it) {
		return
	}
	j.held = append(j.held, it)
	slices.SortFunc(j.held, func(a, b uint64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	j.held = thin(j.held, uint64(max(1, j.plan.Every)))
}

// thin keeps the newest heldNewest iterations of held (newest first) and
// the newest multiple of every·4^k for each k.
func thin(held []uint64, every uint64) []uint64 {
	var out []uint64
	var seen []uint64
	for i, it := range held {
		keep := i < heldNewest
		for k, m := 1, every*4; k <= heldLevels; k, m = k+1, m*4 {
			if it%m == 0 && !slices.Contains(seen, m) {
				seen = append(seen, m)
				keep = true
			}
		}
		if keep {
			out = append(out, it)
		}
	}
	return out
}

// heldNewest and heldLevels shape the list of copies a part reports.
const (
	heldNewest = 4
	heldLevels = 6
)

// loadedNow remembers a checkpoint Load returned, for Restored (the last
// two: the part's newest, then the start of its step).
func (j *jobCopies) loadedNow(h checkpoint.Header, enc []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.loaded = append(j.loaded[max(len(j.loaded)-1, 0):], loadedCopy{h, enc})
}

// Restored replicates the checkpoint of iteration it, which the part was
// restored from (one Load returned), to this attempt's buddy, in the
// background: until its next checkpoint, the part survives another loss
// from this copy. Only that one: a newest checkpoint the part loaded and
// did not restore (it restarted at its step's start) is of a timeline it
// abandoned, which DropAfter forgets and nothing may keep again.
func (j *jobCopies) Restored(it uint64) {
	j.mu.Lock()
	var c *loadedCopy
	for i := range j.loaded {
		if j.loaded[i].h.Iteration == it {
			c = &j.loaded[i]
		}
	}
	j.loaded = nil
	j.mu.Unlock()
	if c == nil {
		return
	}
	j.hold(it)
	go j.Save(c.h, c.enc)
}

// sendCopy sends m to holder b on the node's control endpoint, linking to
// it first when needed. As sendWhole, m is still read after a return that
// wraps errLeftSending.
func (n *node) sendCopy(ctx context.Context, b solve.Holder, m []byte) error {
	id, err := linkHolder(ctx, n.ctrl, b)
	if err != nil {
		return err
	}
	return n.sendWhole(ctx, id, m)
}

// linkHolder links ep to holder b when it has no link to it yet.
func linkHolder(ctx context.Context, ep *rmnp.Endpoint, b solve.Holder) (rmnp.PeerID, error) {
	id := NodeID(b.Node)
	if !slices.Contains(ep.Peers(), id) {
		if _, err := ConnectCtrl(ctx, ep, id, b.Ctrl); err != nil {
			return id, fmt.Errorf("link to %s: %w", b.Node, err)
		}
	}
	return id, nil
}

// sendHolder sends m to holder b over ep as CTRL, linking ep to it first
// when needed.
func sendHolder(ctx context.Context, ep *rmnp.Endpoint, b solve.Holder, m []byte) error {
	id, err := linkHolder(ctx, ep, b)
	if err != nil {
		return err
	}
	return ep.Send(ctx, id, m, rmnp.CTRL)
}

// fetchFrom sends holder b the fetch f over ep and returns what it
// answers: the container (or its header), else an error with the reason
// the holder gave. wait returns the answer's body after its id (ok ‖ the
// container, or 0 ‖ why not): the node's control loop hands it over
// (fetchCopy), the submitter's ask reads its own endpoint (AskNewest).
func fetchFrom(ctx context.Context, ep *rmnp.Endpoint, b solve.Holder, f copyFetch, wait func(context.Context) ([]byte, error)) ([]byte, error) {
	m, err := EncodeMsg(MsgCopyFetch, f)
	if err != nil {
		return nil, err
	}
	if err := sendHolder(ctx, ep, b, m); err != nil {
		return nil, fmt.Errorf("copy on %s: %w", b.Node, err)
	}
	r, err := wait(ctx)
	switch {
	case err != nil:
		return nil, fmt.Errorf("copy on %s: no answer: %w", b.Node, err)
	case len(r) < 1 || r[0] != 1:
		return nil, fmt.Errorf("copy on %s: %s", b.Node, string(r[min(1, len(r)):]))
	}
	return r[1:], nil
}

// Load returns the part's checkpoint: from this node's memory, else from
// the holders.
func (j *jobCopies) Load(want checkpoint.Header, it uint64, latest bool) (checkpoint.Header, []byte, []string, error) {
	var refused []string
	max := int64(rmnp.DefaultMaxFrame)
	if enc := j.n.copies.mem.Encoded(want, it, latest); enc != nil {
		h, payload, err := checkpoint.Verify(enc, want, it, latest, max, "memory of "+j.n.boot.Node)
		if err == nil {
			j.loadedNow(h, enc)
			return h, payload, nil, nil
		}
		refused = append(refused, err.Error())
	}
	for _, b := range j.plan.Holders {
		if b.Node == j.n.boot.Node {
			continue
		}
		enc, err := j.n.fetchCopy(j.ctx, b, copyFetch{Run: want.Run, Rank: want.Rank, Iteration: it, Latest: latest})
		if err == nil {
			var h checkpoint.Header
			var payload []byte
			if h, payload, err = checkpoint.Verify(enc, want, it, latest, max, "copy on "+b.Node); err == nil {
				j.loadedNow(h, enc) // this node holds the part once it restores it (Restored)
				return h, payload, refused, nil
			}
		}
		refused = append(refused, err.Error())
	}
	what := "the newest checkpoint"
	if !latest {
		what = fmt.Sprintf("the checkpoint of iteration %d", it)
	}
	why := ""
	if len(refused) > 0 {
		why = ": " + strings.Join(refused, "; ")
	}
	return checkpoint.Header{}, nil, refused, fmt.Errorf("%w: %s of rank %d is in no memory (this node %s, holders %s)%s",
		checkpoint.ErrNone, what, want.Rank, j.n.boot.Node, holderNames(j.plan.Holders), why)
}

func holderNames(hs []solve.Holder) string {
	if len(hs) == 0 {
		return "none"
	}
	var s string
	for i, h := range hs {
		if i > 0 {
			s += ", "
		}
		s += h.Node
	}
	return s
}

// Buffer is a buffer for the next encoded checkpoint.
func (j *jobCopies) Buffer(n int) []byte { return j.n.copies.mem.Buffer(n) }

// DropAfter forgets the part's checkpoints past iteration it on this node
// (solve: it restarted from it; they are of the timeline it abandoned).
func (j *jobCopies) DropAfter(run string, rank int, it uint64) {
	j.n.copies.mem.DropAfter(run, rank, it)
	j.mu.Lock()
	j.held = slices.DeleteFunc(j.held, func(h uint64) bool { return h > it })
	j.mu.Unlock()
}

// Keep keeps a checkpoint on this node only.
func (j *jobCopies) Keep(h checkpoint.Header, enc []byte) {
	j.n.copies.mem.Keep(h, enc, j.pinned())
}

// None records that the application has no checkpoints.
func (j *jobCopies) None(string) {
	j.mu.Lock()
	j.none = true
	j.mu.Unlock()
}

// status adds what the statuses say about the part's copies, and pins
// them.
func (j *jobCopies) status(s *solve.NodeStatus) {
	now := time.Now()
	j.mu.Lock()
	defer j.mu.Unlock()
	s.Copies, s.NoCheckpoints = slices.Clone(j.held[:min(copyReports, len(j.held))]), j.none
	j.reported = slices.DeleteFunc(j.reported, func(r reported) bool { return now.Sub(r.at) > pinFor })
	if len(s.Copies) > 0 {
		j.reported = append(j.reported, reported{now, s.Copies})
	}
}

// encodeCopy frames a msgCopy: type ‖ pins (uint16 LE) ‖ pinned iterations
// (uint64 LE each) ‖ the checkpoint container.
func encodeCopy(pins []uint64, enc []byte) []byte { return appendCopy(nil, pins, enc) }

// appendCopy appends the msgCopy of encodeCopy to m.
func appendCopy(m []byte, pins []uint64, enc []byte) []byte {
	pins = pins[:min(len(pins), 1<<16-1)]
	m = slices.Grow(m, 3+8*len(pins)+len(enc))
	m = binary.LittleEndian.AppendUint16(append(m, byte(MsgCopy)), uint16(len(pins)))
	for _, it := range pins {
		m = binary.LittleEndian.AppendUint64(m, it)
	}
	return append(m, enc...)
}

// frameCopy writes the msgCopy of encodeCopy(pins, buf[room:]) in place:
// its framing in the last bytes of buf[:room], and returns it (nil when
// room is too small for the pins).
func frameCopy(buf []byte, room int, pins []uint64) []byte {
	head := 3 + 8*len(pins)
	if room < head || len(pins) > 1<<16-1 {
		return nil
	}
	m := buf[room-head:]
	m[0] = byte(MsgCopy)
	binary.LittleEndian.PutUint16(m[1:], uint16(len(pins)))
	for i, it := range pins {
		binary.LittleEndian.PutUint64(m[3+8*i:], it)
	}
	return m
}

// decodeCopy splits a msgCopy's body.
func decodeCopy(body []byte) (pins []uint64, enc []byte, err error) {
	if len(body) < 2 {
		return nil, nil, fmt.Errorf("%w: copy of %d bytes", ErrProtocol, len(body))
	}
	n := int(binary.LittleEndian.Uint16(body))
	if len(body) < 2+8*n {
		return nil, nil, fmt.Errorf("%w: copy of %d bytes with %d pins", ErrProtocol, len(body), n)
	}
	pins = make([]uint64, n)
	for i := range pins {
		pins[i] = binary.LittleEndian.Uint64(body[2+8*i:])
	}
	return pins, body[2+8*n:], nil
}

// fetchCopy asks holder b for a copy and waits for its answer.
func (n *node) fetchCopy(ctx context.Context, b solve.Holder, f copyFetch) ([]byte, error) {
	c := n.copies
	reply := make(chan []byte, 1)
	c.mu.Lock()
	c.next++
	f.ID = c.next
	c.pending[f.ID] = reply
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, f.ID)
		c.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(ctx, copyTimeout)
	defer cancel()
	return fetchFrom(ctx, n.ctrl, b, f, func(ctx context.Context) ([]byte, error) {
		select {
		case r := <-reply:
			return r, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("not within %v", copyTimeout)
		}
	})
}

// onCopy handles the three copy messages.
func (n *node) onCopy(ctx context.Context, src rmnp.PeerID, t MsgType, body []byte) error {
	switch t {
	case MsgCopy:
		// enc aliases the receive buffer: the store keeps its own bytes.
		b := slices.Clone(body)
		return n.keepCopy(src, b, b)
	case MsgCopyFetch:
		var f copyFetch
		if err := DecodeBody(t, body, &f); err != nil {
			return err
		}
		go n.answerFetch(ctx, src, f)
		return nil
	}
	if len(body) < 8 {
		return fmt.Errorf("%w: %s of %d bytes", ErrProtocol, t, len(body))
	}
	id := binary.LittleEndian.Uint64(body)
	n.copies.mu.Lock()
	reply := n.copies.pending[id]
	n.copies.mu.Unlock()
	if reply == nil {
		return errors.New("engine: copy reply to no fetch (late)")
	}
	select {
	case reply <- slices.Clone(body[8:]):
	default:
	}
	return nil
}

// keepCopy keeps a msgCopy's container (body, after the type), the bytes
// themselves: the store owns buf, the buffer body lies in, from then on,
// and the caller must not reuse it (recvLoop: recvBuffer).
func (n *node) keepCopy(src rmnp.PeerID, body, buf []byte) error {
	pins, enc, err := decodeCopy(body)
	if err != nil {
		return err
	}
	if _, err := n.copies.mem.PutIn(enc, buf, pins); err != nil {
		return fmt.Errorf("engine: checkpoint copy from peer %d refused: %w", src, err)
	}
	return nil
}

// recvBufferSize is the control loop's first receive buffer's size.
const recvBufferSize = 64 << 10

// recvBuffer is the control loop's next receive buffer after it handed
// its buffer to the store (keepCopy): one the store evicted when it has one,
// else a new one of the loop's initial size.
func (c *copyStore) recvBuffer() []byte {
	b := c.mem.Buffer(recvBufferSize)
	return b[:cap(b)]
}

// answerFetch sends src the copy it asked for, or why there is none.
func (n *node) answerFetch(ctx context.Context, src rmnp.PeerID, f copyFetch) {
	m := n.answer(f)
	sctx, cancel := context.WithTimeout(ctx, copyTimeout)
	defer cancel()
	if err := n.sendWhole(sctx, src, m); err != nil {
		n.log.Warn("engine: checkpoint copy not sent back", "peer", src, "err", err)
	}
}

// answer is the msgCopyReply to f: type ‖ id ‖ 1 and the copy (or its
// header alone, f.Header), or 0 and why there is none.
func (n *node) answer(f copyFetch) []byte {
	m := binary.LittleEndian.AppendUint64([]byte{byte(MsgCopyReply)}, f.ID)
	enc := n.copies.mem.Encoded(checkpoint.Header{Run: f.Run, Rank: f.Rank}, f.Iteration, f.Latest)
	var h checkpoint.Header
	var err error
	if enc != nil && f.Header {
		if h, err = checkpoint.ParseHeader(enc); err == nil {
			enc = enc[:checkpoint.HeaderLen(h)]
		}
	}
	if enc == nil || err != nil {
		m = append(m, 0)
		return fmt.Appendf(m, "%s holds no checkpoint of rank %d (iteration %d, newest %v); it holds %v",
			n.boot.Node, f.Rank, f.Iteration, f.Latest, n.copies.mem.Iterations(f.Run, f.Rank))
	}
	return append(append(m, 1), enc...)
}
