package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/rmnp"
)

// The link between a program and its neighbours' (the job's link
// parameter).
const (
	linkWindow    = "window"    // the worker is the node; the program takes turns with it (part.go)
	linkInprocess = "inprocess" // the program is the node (libgridhpc_inproc.so: this file, guest.go)
)

// linkEnv tells gridhpc.c the link; libEnv where libgridhpc_inproc.so is.
const (
	linkEnv = "GRIDHPC_LINK"
	libEnv  = "GRIDHPC_INPROCESS_LIB"
)

// keyLabel derives the in-process endpoints' run id and secret from the
// run's (rmnp.Endpoint.DeriveKey).
const keyLabel = "gridhpc inprocess"

// guestConfig is the worker's answer to the hello of a program in
// link = "inprocess": what its library needs to be the node.
type guestConfig struct {
	Program  string // as the job names it, for errors
	Node     string
	Subtask  []byte // subtaskMsg, encoded, for GRID_Init
	Rank     int
	Ranks    int
	Items    int
	Unit     int
	Ring     bool
	Eps      float64
	MaxIter  int
	Cores    int
	Scheme   string
	Detector string
	Listen   string // "" (no neighbours) or where its endpoint listens
	RunID    [16]byte
	Secret   []byte
	Timeout  time.Duration
}

// guestNeighbour is one neighbour's program, as the worker learned it from
// the neighbour's worker.
type guestNeighbour struct {
	Rank    int
	Addr    string
	Sync    bool
	Network string // the label of the workers' link, for the traffic
}

// guestProgress is the library's telemetry: the engine's last report, and
// how long the program has held the turn (0: the engine has it).
type guestProgress struct {
	Iteration int
	Sigma     float64
	Held      time.Duration
	Usage     gridapp.Usage
	// Stopped: the program's GRID_Iterate is returning 0 (sent just
	// before it does), so that a program that leaves then, without
	// GRID_Result, is said to have left before GRID_Result.
	Stopped bool `json:",omitempty"`
}

// guestFailure is why the program's node failed the run. Lost: its link
// to a neighbour went down (that neighbour's failure, reported later).
type guestFailure struct {
	Error string
	Lost  bool
}

// guestOutcome ends the program's run; its values follow.
type guestOutcome struct {
	Iterations int
	Sigma      float64
	Converged  bool
	Usage      gridapp.Usage
}

// inprocPart is a worker's share in link = "inprocess": the program runs
// the node itself (its own RMNP endpoint, linked to its neighbours'
// programs, the scheme and the detector, in libgridhpc_inproc.so), and the
// worker keeps the rest: it hands the program its sub-task and its
// neighbours' addresses, relays its telemetry, watches it (crash, exit,
// hang) and sends its result up. The worker's own links carry only the
// addresses (Calculate).
type inprocPart struct {
	p       *program
	win     *window // 8 bytes: the program's GRID_Iterate calls, for errors
	cfg     guestConfig
	timeout time.Duration
	dir     string // the programs' Unix sockets, on a local grid
	result  []float64
	hdr     [headerLen]byte
	stopped bool // the program's GRID_Iterate returned 0 (guestProgress.Stopped)
}

func newInprocPart(p *program, win *window, sub subtaskMsg, v gridapp.Values, timeout time.Duration) *inprocPart {
	return &inprocPart{p: p, win: win, timeout: timeout, result: make([]float64, sub.size+1), cfg: guestConfig{
		Program: p.name, Subtask: sub.encode(), Rank: sub.rank, Ranks: sub.ranks, Items: v.Int("items"), Unit: sub.unit,
		Ring: v.String("graph") == "ring", Eps: sub.eps, MaxIter: v.Int("max_iter"), Cores: sub.cores, Timeout: timeout}}
}

// Sweep, Outgoing and Halo are not called: the part is a Calculator.
func (pt *inprocPart) Sweep() float64         { return math.NaN() }
func (pt *inprocPart) Outgoing(int) []float64 { return []float64{} }
func (pt *inprocPart) Halo(int) []float64     { return []float64{} }

// Result returns the program's values and its last σ.
func (pt *inprocPart) Result() []float64 { return pt.result }

// Close ends the program if it still runs (it has exited already after a
// result: take waited for it).
func (pt *inprocPart) Close() {
	pt.p.kill()
	pt.win.close()
	if pt.dir != "" {
		os.RemoveAll(pt.dir)
	}
}

// Calculate hands the program its sub-task, trades its address with the
// neighbours' workers, and follows it until its result or its failure.
func (pt *inprocPart) Calculate(ctx context.Context, c gridapp.Comm) (gridapp.Outcome, error) {
	o, err := pt.calculate(ctx, c)
	if err != nil && ctx.Err() == nil && !errors.Is(err, rmnp.ErrPeerDown) {
		// As a Part's failure: the engine names the node and the
		// application, as for the window link's.
		panic(gridapp.Failure{Err: err})
	}
	return o, err
}

func (pt *inprocPart) calculate(ctx context.Context, c gridapp.Comm) (gridapp.Outcome, error) {
	host, ok := c.(gridapp.Host)
	if !ok {
		return gridapp.Outcome{}, errors.New("exec: link = \"inprocess\" needs gridtui's engine")
	}
	stop := context.AfterFunc(ctx, func() { pt.p.conn.SetReadDeadline(time.Now()) })
	defer stop()
	if err := pt.hello(host, len(pt.neighbours())); err != nil {
		return gridapp.Outcome{}, err
	}
	addr, err := pt.readJSON(kindAddr, "while it linked")
	if err != nil {
		return gridapp.Outcome{}, err
	}
	nbs, err := pt.trade(ctx, c, host, string(addr))
	if err != nil {
		return gridapp.Outcome{}, err
	}
	b, _ := json.Marshal(nbs)
	if err := pt.reply(statusOK, b); err != nil {
		return gridapp.Outcome{}, err
	}
	return pt.follow(ctx, c, host)
}

func (pt *inprocPart) neighbours() []int { return neighbours(pt.cfg.Rank, pt.cfg.Ranks, pt.cfg.Ring) }

// hello reads the library's hello and answers with the configuration.
func (pt *inprocPart) hello(host gridapp.Host, nb int) error {
	if err := pt.p.readHello(pt.hdr[:], pt.timeout, inprocVersion,
		`link = "inprocess" wants this gridtui's gridhpc.c and libgridhpc_inproc.so: rebuild it with them`); err != nil {
		return err
	}
	cfg := &pt.cfg
	cfg.Scheme, cfg.Detector = host.Scheme(), host.Detector()
	cfg.RunID, cfg.Secret = host.Key(keyLabel)
	if nb > 0 {
		_, local, err := host.Link(0)
		if err != nil {
			return err
		}
		if cfg.Listen, err = pt.listenAddr(local); err != nil {
			return err
		}
	}
	b, _ := json.Marshal(cfg)
	return pt.reply(statusOK, b)
}

// listenAddr is where the program listens: on the address of the
// worker's link to its first neighbour, a free port (TCP), or a socket in
// a directory of the worker's (Unix).
func (pt *inprocPart) listenAddr(local string) (string, error) {
	if a, ok := strings.CutPrefix(local, "tcp://"); ok {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			return "", fmt.Errorf("exec: the worker's link address %q: %w", local, err)
		}
		return "tcp://" + net.JoinHostPort(host, "0"), nil
	}
	dir, err := os.MkdirTemp("", "gridhpc-")
	if err != nil {
		return "", fmt.Errorf("exec: a directory for the program's socket: %w", err)
	}
	pt.dir = dir
	return "unix://" + filepath.Join(dir, "p.sock"), nil
}

// trade sends the program's address to every neighbour's worker and
// receives theirs (CTRL on the workers' links).
func (pt *inprocPart) trade(ctx context.Context, c gridapp.Comm, host gridapp.Host, addr string) ([]guestNeighbour, error) {
	ranks := pt.neighbours()
	for i := range ranks {
		if err := c.Send(ctx, i, stringFloats(addr), gridapp.CTRL); err != nil {
			return nil, err
		}
	}
	nbs := make([]guestNeighbour, len(ranks))
	buf := make([]float64, 64)
	for i, q := range ranks {
		n, err := c.Receive(ctx, i, buf, gridapp.CTRL)
		if err != nil {
			return nil, err
		}
		network, _, _ := host.Link(i)
		nbs[i] = guestNeighbour{Rank: q, Addr: floatsString(buf[:n]), Sync: c.Mode(i) == gridapp.Sync, Network: network}
	}
	return nbs, nil
}

// stringFloats packs s into float64 words (its length first), as CTRL
// messages carry them; floatsString unpacks.
func stringFloats(s string) []float64 {
	v := make([]float64, 1+(len(s)+7)/8)
	v[0] = float64(len(s))
	copy(floatBytes(v[1:]), s)
	return v
}

func floatsString(v []float64) string {
	if len(v) == 0 || !(v[0] >= 0 && v[0] <= float64(8*(len(v)-1))) {
		return ""
	}
	return string(floatBytes(v[1:])[:int(v[0])])
}

// floatBytes views v's bytes.
func floatBytes(v []float64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))
}

// follow relays the program's telemetry until its outcome or failure.
func (pt *inprocPart) follow(ctx context.Context, c gridapp.Comm, host gridapp.Host) (gridapp.Outcome, error) {
	p := pt.p
	for {
		// The library reports at least every second; a program whose
		// whole process stopped misses those.
		p.conn.SetReadDeadline(time.Now().Add(pt.timeout + 5*time.Second))
		h, err := readHeader(p.in, pt.hdr[:])
		if err != nil {
			if ctx.Err() != nil {
				return gridapp.Outcome{}, ctx.Err()
			}
			if pt.stopped {
				return gridapp.Outcome{}, pt.readErr(err, "before GRID_Result (after GRID_Iterate returned 0, it must hand over its values)")
			}
			return gridapp.Outcome{}, pt.readErr(err, fmt.Sprintf("during iteration %d", pt.iterations()+1))
		}
		b, err := pt.payload(h)
		if err != nil {
			return gridapp.Outcome{}, err
		}
		switch h.kind {
		case kindProgress:
			var g guestProgress
			if err := json.Unmarshal(b, &g); err != nil {
				return gridapp.Outcome{}, p.fail("progress %q: %v", b, err)
			}
			host.Usage(g.Usage)
			c.Progress(g.Iteration, g.Sigma)
			pt.stopped = pt.stopped || g.Stopped
			if g.Held > pt.timeout {
				return gridapp.Outcome{}, p.fail("no call for %v during iteration %d (hung? the job's timeout parameter bounds it)", pt.timeout, pt.iterations()+1)
			}
		case kindFailed:
			var f guestFailure
			json.Unmarshal(b, &f)
			if f.Lost {
				return gridapp.Outcome{}, fmt.Errorf("%w: %w", rmnp.ErrPeerDown, p.fail("%s", f.Error))
			}
			return gridapp.Outcome{}, p.fail("%s", f.Error)
		case kindOutcome:
			var o guestOutcome
			if err := json.Unmarshal(b, &o); err != nil {
				return gridapp.Outcome{}, p.fail("outcome %q: %v", b, err)
			}
			host.Usage(o.Usage)
			return pt.take(ctx, c, gridapp.Outcome{Iterations: o.Iterations, Sigma: o.Sigma, Converged: o.Converged})
		default:
			return gridapp.Outcome{}, p.fail("sent %s to an in-process worker", kindName(h.kind))
		}
	}
}

// iterations returns the program's GRID_Iterate calls so far, which its
// library counts in the window (also after a crash).
func (pt *inprocPart) iterations() int {
	if len(pt.win.mem) < 8 {
		return 0
	}
	return int((*atomic.Uint64)(unsafe.Pointer(&pt.win.mem[0])).Load())
}

// take reads the program's values after its outcome and acknowledges
// them once every neighbour's program is done too (farewell).
func (pt *inprocPart) take(ctx context.Context, c gridapp.Comm, o gridapp.Outcome) (gridapp.Outcome, error) {
	p := pt.p
	n := len(pt.result) - 1
	h, err := readHeader(p.in, pt.hdr[:])
	if err != nil {
		return o, pt.readErr(err, "before GRID_Result (after its outcome, it must hand over its values)")
	}
	if h.kind != kindResult || h.len != uint64(8*n) {
		return o, p.fail("%s of %d bytes after its outcome, want GRID_Result of %d", kindName(h.kind), h.len, 8*n)
	}
	if n > 0 {
		if _, err := io.ReadFull(p.in, unsafe.Slice((*byte)(unsafe.Pointer(&pt.result[0])), 8*n)); err != nil {
			return o, pt.readErr(err, "in GRID_Result")
		}
	}
	pt.result[n] = o.Sigma
	if err := pt.farewell(ctx, c); err != nil {
		return o, err
	}
	if err := pt.reply(statusOK, nil); err != nil {
		return o, err
	}
	// As the window link's: the program ends on its own, and well.
	select {
	case <-p.done:
		if p.err != nil {
			return o, p.gone("after GRID_Result")
		}
	case <-time.After(pt.timeout):
		return o, p.fail("did not exit within %v of GRID_Result", pt.timeout)
	}
	return o, nil
}

// farewell tells every neighbour's worker that this node's program is
// done and waits until each has said the same: the program's endpoint
// closes when it exits, and a neighbour whose run goes on (the
// asynchronous detectors end the nodes one after another) may still
// wait for a message on its way, and must not see the link go down
// first. (A worker's endpoint outlives its runs; a program's does not.)
func (pt *inprocPart) farewell(ctx context.Context, c gridapp.Comm) error {
	ranks := pt.neighbours()
	bye := []float64{farewellMark}
	for i := range ranks {
		if err := c.Send(ctx, i, bye, gridapp.CTRL); err != nil {
			return err
		}
	}
	buf := make([]float64, 1)
	for i, q := range ranks {
		n, err := c.Receive(ctx, i, buf, gridapp.CTRL)
		if err != nil {
			return err
		}
		if n != 1 || buf[0] != farewellMark {
			return fmt.Errorf("exec: rank %d's worker sent %d values, want its farewell", q, n)
		}
	}
	return nil
}

// farewellMark is the one value of a worker's farewell.
const farewellMark = 16.0625

// readJSON reads a frame of kind want and returns its payload.
func (pt *inprocPart) readJSON(want uint8, while string) ([]byte, error) {
	p := pt.p
	p.conn.SetReadDeadline(time.Now().Add(pt.timeout))
	h, err := readHeader(p.in, pt.hdr[:])
	if err != nil {
		return nil, pt.readErr(err, while)
	}
	b, err := pt.payload(h)
	if err != nil {
		return nil, err
	}
	if h.kind == kindFailed {
		var f guestFailure
		json.Unmarshal(b, &f)
		return nil, p.fail("%s", f.Error)
	}
	if h.kind != want {
		return nil, p.fail("sent %s %s, want %s", kindName(h.kind), while, kindName(want))
	}
	return b, nil
}

// payload reads a frame's payload (at most 1 MiB but for results).
func (pt *inprocPart) payload(h header) ([]byte, error) {
	if h.kind == kindResult {
		return nil, pt.p.fail("sent its values without its outcome")
	}
	if h.len > 1<<20 {
		return nil, pt.p.fail("sent %s of %d bytes", kindName(h.kind), h.len)
	}
	b := make([]byte, h.len)
	if _, err := io.ReadFull(pt.p.in, b); err != nil {
		return nil, pt.readErr(err, "in "+kindName(h.kind))
	}
	if h.kind == kindAbort {
		if h.flags == 1 {
			return nil, pt.p.fail("%s", b)
		}
		return nil, pt.p.fail("GRID_Abort: %s", b)
	}
	return b, nil
}

func (pt *inprocPart) readErr(err error, while string) error {
	return pt.p.readErr(err, pt.timeout, while)
}

func (pt *inprocPart) reply(status int32, payload []byte) error {
	return replyTo(pt.p, status, payload)
}
