package exec

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/rmnp"
)

// This file is the program's side of link = "inprocess": the Go half of
// libgridhpc_inproc.so (cmd/libgridhpc-inproc) runs it in the program's
// process. It connects to the worker over the program's socket, becomes
// the node — an RMNP endpoint linked to the neighbours' programs, and the
// engine's Solve with the job's scheme and detector — and runs the
// program's loop as the Part: Sweep hands the turn to the program, whose
// next blocking call hands it back (a coroutine switch on the program's
// own thread, no process or thread hand-off).

// Requests of the program (gridhpc_inproc.h).
const (
	callReceive = 3
	callIterate = 5
	CallResult  = 6 // Request.Values holds the values
	CallAbort   = 7 // Request.Reason holds the reason
	callFinal   = 8
	callResult  = CallResult
	callAbort   = CallAbort
)

// Answers to the program: go on, stop, or GRID_EFAILED.
const (
	answerGo     = 0
	answerStop   = 1
	answerFailed = -9
)

// Request is the program's call that handed the turn back.
type Request struct {
	Call   int
	Rule   bool // callAbort: gridhpc.c caught a call that breaks the rules
	Sigma  float64
	Values []float64 // callResult
	Reason string    // callAbort
}

// Coroutine is the program's thread as libgridhpc_inproc.so sees it.
type Coroutine interface {
	// Resume hands the turn to the program with an answer and returns
	// its next request.
	Resume(answer int) Request
	// SetSubtask gives GRID_Init the encoded sub-task (before the first
	// Resume).
	SetSubtask(b []byte)
	// Memory returns the program's buffers once GRID_Init has set them:
	// per neighbour its send then its receive buffer, and one byte per
	// neighbour for sent and fresh.
	Memory() (win, sent, fresh []byte)
}

// readPoll is the guest endpoint's rmnp.Config.ReadPoll: how long a
// receive blocks the program's thread in poll(2) before it parks in the
// runtime's poller.
const readPoll = 20 * time.Millisecond

// Node is the node's task for the engine's Solve, in this package's terms:
// libgridhpc_inproc.so turns it into a solve.Subtask and gives
// ServeGuest the engine as a Solver (this package cannot import the
// engine, whose own packages' tests import it).
type Node struct {
	App                         string
	Rank, Ranks, Cores, MaxIter int
	Scheme, Detector, Name      string
	Neighbours                  []NodeLink
}

// NodeLink is one neighbour of the node: its rank, its program's peer id
// and the link's mode and network label.
type NodeLink struct {
	Rank    int
	Peer    rmnp.PeerID
	Mode    rmnp.Mode
	Network string
}

// Status is one of the engine's reports (engine.NodeStatus).
type Status struct {
	Iteration           int
	Sigma               float64
	Compute, Send, Wait time.Duration
}

// Solved is the engine's result (solve.SolveResult).
type Solved struct {
	Values              []float64
	Iterations          int
	Sigma               float64
	Converged           bool
	Compute, Send, Wait time.Duration
}

// Solver runs the node (solve.Solve), calling report at the pace the
// engine reports a node's status to its coordinator.
type Solver func(ctx context.Context, ep *rmnp.Endpoint, n Node, report func(Status)) (Solved, error)

// inprocApp is the application the program's engine runs: the exec task
// as the worker defined it, with the guest's part.
const inprocApp = "gridhpc-inprocess"

var registerOnce sync.Once

// ServeGuest runs the program's node: fd is its socket to the worker. It
// returns when the program's run is over, with the last answer for it.
func ServeGuest(fd int, co Coroutine, solve Solver) int {
	f := os.NewFile(uintptr(fd), "gridhpc")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gridhpc: the worker's socket: %v\n", err)
		return answerFailed
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// One P, which the engine's goroutine on the program's thread
		// holds while it waits in poll (readPoll): no other thread of the
		// runtime waits in its poller, which the same bytes would wake
		// too. The program's own threads (OpenMP) are not the runtime's.
		runtime.GOMAXPROCS(1)
	}
	g := &guest{conn: c, co: &heldCo{Coroutine: co}, solve: solve}
	if fd, err := strconv.Atoi(os.Getenv(shmEnv)); err == nil {
		if mem, err := mapCounter(fd); err == nil {
			g.iters = (*atomic.Uint64)(unsafe.Pointer(&mem[0]))
		}
	}
	defer c.Close()
	if err := g.run(); err != nil {
		g.fail(err)
		return answerFailed
	}
	return answerGo
}

// guest is the program's node.
type guest struct {
	conn  net.Conn
	co    *heldCo
	solve Solver
	cfg   guestConfig
	mu    sync.Mutex     // conn's writes
	iters *atomic.Uint64 // the program's GRID_Iterate calls, in the worker's window
	last  atomic.Pointer[guestProgress]
	ep    atomic.Pointer[rmnp.Endpoint] // for the traffic, once linked
}

// heldCo times the program's turns, for the worker's hang detection.
type heldCo struct {
	Coroutine
	since atomic.Int64 // unix ns the program took the turn, 0: the engine has it
}

func (h *heldCo) Resume(answer int) Request {
	h.since.Store(time.Now().UnixNano())
	r := h.Coroutine.Resume(answer)
	h.since.Store(0)
	return r
}

func (h *heldCo) held() time.Duration {
	if s := h.since.Load(); s != 0 {
		return time.Since(time.Unix(0, s))
	}
	return 0
}

// send writes one frame to the worker.
func (g *guest) send(kind uint8, payload []byte) error {
	var h [headerLen]byte
	header{kind: kind, len: uint64(len(payload))}.encode(h[:])
	g.mu.Lock()
	defer g.mu.Unlock()
	bufs := net.Buffers{h[:], payload}
	_, err := bufs.WriteTo(g.conn)
	return err
}

func (g *guest) sendJSON(kind uint8, v any) error {
	b, _ := json.Marshal(v)
	return g.send(kind, b)
}

// answer reads the worker's reply to a request.
func (g *guest) answer() ([]byte, error) {
	var hb [headerLen]byte
	if _, err := io.ReadFull(g.conn, hb[:]); err != nil {
		return nil, fmt.Errorf("gridhpc: the worker's answer: %w", err)
	}
	h := header{kind: hb[0], arg: int32(binary.LittleEndian.Uint32(hb[4:])), len: binary.LittleEndian.Uint64(hb[8:])}
	if h.kind != kindReply || h.len > 1<<24 {
		return nil, fmt.Errorf("gridhpc: the worker answered with kind %d, %d bytes", h.kind, h.len)
	}
	b := make([]byte, h.len)
	if _, err := io.ReadFull(g.conn, b); err != nil {
		return nil, fmt.Errorf("gridhpc: the worker's answer: %w", err)
	}
	if h.arg != statusOK {
		return nil, fmt.Errorf("gridhpc: the worker refused (%d)", h.arg)
	}
	return b, nil
}

// fail tells the worker why the node failed (it may be gone).
func (g *guest) fail(err error) {
	var aborted *programAbort
	if errors.As(err, &aborted) {
		flags := uint8(0)
		if aborted.rule {
			flags = 1
		}
		var h [headerLen]byte
		header{kind: kindAbort, flags: flags, len: uint64(len(aborted.reason))}.encode(h[:])
		g.mu.Lock()
		(&net.Buffers{h[:], []byte(aborted.reason)}).WriteTo(g.conn)
		g.mu.Unlock()
		return
	}
	lost := errors.Is(err, rmnp.ErrPeerDown) || errors.Is(err, rmnp.ErrPeerClosed) || errors.Is(err, rmnp.ErrUnknownPeer)
	g.sendJSON(kindFailed, guestFailure{Error: bare(err.Error()), Lost: lost})
}

// bare drops the engine's package prefix: the worker names the program.
func bare(s string) string {
	for _, p := range []string{"engine: ", "exec: "} {
		if len(s) > len(p) && s[:len(p)] == p {
			return s[len(p):]
		}
	}
	return s
}

// programAbort is the program's GRID_Abort or a call gridhpc.c refused.
type programAbort struct {
	rule   bool
	reason string
}

func (a *programAbort) Error() string { return a.reason }

// run says hello, takes the configuration, links and solves.
func (g *guest) run() error {
	var v [4]byte
	binary.LittleEndian.PutUint32(v[:], inprocVersion)
	if err := g.send(kindHello, v[:]); err != nil {
		return err
	}
	b, err := g.answer()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &g.cfg); err != nil {
		return fmt.Errorf("gridhpc: the worker's configuration: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ep, nbs, err := g.link(ctx)
	if err != nil {
		return err
	}
	defer ep.Close()
	g.ep.Store(ep)
	go g.beat(ctx)
	res, err := g.solve(ctx, ep, g.node(nbs), g.report)
	if err != nil {
		return err
	}
	return g.finish(res)
}

// link opens the program's endpoint, sends its address, takes the
// neighbours' and links to them: the lower rank of a pair dials.
func (g *guest) link(ctx context.Context) (*rmnp.Endpoint, []guestNeighbour, error) {
	cfg := rmnp.DefaultConfig()
	cfg.RunID, cfg.Secret, cfg.Self = g.cfg.RunID, g.cfg.Secret, peerOf(g.cfg.Rank)
	// The engine runs on the program's thread, locked to it (a callback
	// from C): its reads wait in a poll of that thread, which the bytes
	// wake, rather than in the runtime's poller, whose thread would have to
	// hand them over.
	cfg.ReadPoll = readPoll
	if g.cfg.Listen != "" {
		cfg.Listen = []string{g.cfg.Listen}
	}
	ep, err := rmnp.Listen(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("gridhpc: its endpoint: %w", err)
	}
	addr := ""
	if a := ep.Addrs(); len(a) > 0 {
		addr = a[0]
	}
	if err := g.send(kindAddr, []byte(addr)); err != nil {
		ep.Close()
		return nil, nil, err
	}
	b, err := g.answer()
	var nbs []guestNeighbour
	if err == nil {
		err = json.Unmarshal(b, &nbs)
	}
	if err != nil {
		ep.Close()
		return nil, nil, err
	}
	lctx, cancel := context.WithTimeout(ctx, g.cfg.Timeout)
	defer cancel()
	for _, nb := range nbs {
		mode := rmnp.Async
		if nb.Sync {
			mode = rmnp.Sync
		}
		if g.cfg.Rank < nb.Rank {
			err = ep.Connect(lctx, peerOf(nb.Rank), nb.Addr, rmnp.LinkOptions{Mode: mode, Network: nb.Network})
		} else {
			err = ep.WaitPeer(lctx, peerOf(nb.Rank))
		}
		if err != nil {
			ep.Close()
			return nil, nil, fmt.Errorf("link to rank %d's program at %s: %w", nb.Rank, nb.Addr, err)
		}
	}
	return ep, nbs, nil
}

// peerOf is the peer id of rank r's program.
func peerOf(r int) rmnp.PeerID { return rmnp.PeerID(r + 1) }

// node is the engine's task of the program's node.
func (g *guest) node(nbs []guestNeighbour) Node {
	registerOnce.Do(func() { gridapp.Register(inprocApp, guestApp{g}) })
	n := Node{App: inprocApp, Rank: g.cfg.Rank, Ranks: g.cfg.Ranks, Cores: g.cfg.Cores,
		Scheme: g.cfg.Scheme, Detector: g.cfg.Detector, MaxIter: g.cfg.MaxIter, Name: g.cfg.Node}
	for _, nb := range nbs {
		mode := rmnp.Async
		if nb.Sync {
			mode = rmnp.Sync
		}
		n.Neighbours = append(n.Neighbours, NodeLink{Rank: nb.Rank, Peer: peerOf(nb.Rank), Mode: mode, Network: nb.Network})
	}
	return n
}

// report keeps the engine's last report for the next beat, and sends it.
func (g *guest) report(s Status) {
	p := &guestProgress{Iteration: s.Iteration, Sigma: s.Sigma,
		Usage: gridapp.Usage{Compute: s.Compute, Send: s.Send, Wait: s.Wait, Traffic: g.traffic()}}
	g.last.Store(p)
	g.sendJSON(kindProgress, p)
}

// stopping tells the worker, before the program's GRID_Iterate returns 0,
// that it does: a program that leaves then has left before GRID_Result,
// not during an iteration (the worker cannot tell them apart otherwise).
func (g *guest) stopping() {
	p := guestProgress{}
	if l := g.last.Load(); l != nil {
		p = *l
	}
	p.Stopped = true
	g.sendJSON(kindProgress, p)
}

// traffic is the program's endpoint's, per network.
func (g *guest) traffic() []gridapp.NetCount {
	ep := g.ep.Load()
	if ep == nil {
		return nil
	}
	var t []gridapp.NetCount
	for _, n := range ep.Stats().Networks {
		t = append(t, gridapp.NetCount{Network: n.Network, Messages: n.MessagesSent + n.MessagesReceived,
			Bytes: n.BytesSent + n.BytesReceived, Skipped: n.Skipped + n.Replaced})
	}
	return t
}

// beat tells the worker every second that the node lives and how long the
// program has held the turn.
func (g *guest) beat(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		p := guestProgress{}
		if l := g.last.Load(); l != nil {
			p = *l
		}
		p.Held = g.co.held()
		g.sendJSON(kindProgress, p)
	}
}

// finish sends the outcome and the values, lets GRID_Result return and
// waits for GRID_Finalize.
func (g *guest) finish(res Solved) error {
	vals := res.Values
	if len(vals) > 0 {
		vals = vals[:len(vals)-1] // the part's σ, which the outcome carries
	}
	u := gridapp.Usage{Compute: res.Compute, Send: res.Send, Wait: res.Wait, Traffic: g.traffic()}
	if err := g.sendJSON(kindOutcome, guestOutcome{Iterations: res.Iterations, Sigma: res.Sigma, Converged: res.Converged, Usage: u}); err != nil {
		return err
	}
	var b []byte
	if len(vals) > 0 {
		b = unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), 8*len(vals))
	}
	if err := g.send(kindResult, b); err != nil {
		return err
	}
	if _, err := g.answer(); err != nil {
		return err
	}
	if r := g.co.Resume(answerGo); r.Call != callFinal {
		fmt.Fprintf(os.Stderr, "gridhpc: call %d after GRID_Result, want GRID_Finalize\n", r.Call)
	}
	return nil
}
