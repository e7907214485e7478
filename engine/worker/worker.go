package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
)

// ErrParentLost is returned by ServeWorker when the node's coordinator or
// the submitter disappeared during a run.
var ErrParentLost = errors.New("engine: parent lost")

// Version is reported in worker hellos; package cli sets it.
var Version = "dev"

// node is one worker process: its two RMNP endpoints (control plane and
// data plane) and the run it takes part in, as a worker and maybe as the
// coordinator of a group.
type node struct {
	boot deploy.Boot
	log  *slog.Logger
	ctrl *rmnp.Endpoint
	self rmnp.PeerID
	live *Liveness

	dataAddrs []string // concrete data-plane addresses, rebound for every run
	sockDir   string   // temporary directory of the Unix sockets

	mu    sync.Mutex
	data  *rmnp.Endpoint
	ended []uint64 // the runs (attempts) ended here, newest last: a late task of one is dropped
	job   *jobState
	coord *coordState
	fatal chan error       // the run's parent is gone: the process must end
	acks  chan rmnp.PeerID // msgEnded from the group's members
	owner *ownerRule       // the host's owner policy (nil: none)

	copies *copyStore // checkpoints in memory, this node's and its buddies' (buddy.go)

	sendHook func() // tests: called as sendWhole hands a frame to rmnp
}

// ServeWorker is the `gridtui worker` process: it reads the Boot on stdin,
// probes the NICs, listens for RMNP (control and data endpoints), writes its
// Hello on stdout and serves runs until stdin reaches EOF (the console is
// gone), ctx ends, or its parent in a run disappears.
func ServeWorker(ctx context.Context, stdin io.Reader, stdout io.Writer, logw io.Writer) error {
	boot, err := deploy.ReadBoot(stdin)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelInfo})).With("node", boot.Node)
	if boot.LogFile != "" {
		// The file keeps the log on the host (`gridtui logs`); stderr still
		// gets it, whose tail the console puts in a failed worker's error.
		if f, err := os.OpenFile(boot.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			defer f.Close()
			log = slog.New(slog.NewTextHandler(io.MultiWriter(f, logw), nil)).With("node", boot.Node)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := &node{boot: boot, log: log, self: NodeID(boot.Node), live: NewHostLiveness(ChildLimits),
		fatal: make(chan error, 1), acks: make(chan rmnp.PeerID, 64), copies: newCopyStore()}
	nics, perr := probe.Local()
	if perr != nil {
		log.Warn("engine: probe local NICs", "err", perr)
	}
	if perr == nil {
		// A hint naming an interface this host lacks (fast = "ib9") is a
		// mistake in sites.toml: refuse to start rather than ignore it.
		if err := probe.CheckHints(Host(), nics, boot.Ethernet, boot.Fast); err != nil {
			return fmt.Errorf("engine: worker %s: %w", boot.Node, err)
		}
	}
	nics = probe.ApplyHints(nics, boot.Ethernet, boot.Fast)
	if err := n.listen(ctx, nics); err != nil {
		return err
	}
	defer n.close()
	listen := append([]string{}, n.dataAddrs...)
	for _, a := range n.ctrl.Addrs() {
		listen = append(listen, ctrlScheme+a)
	}
	cores := boot.Cores
	if cores == 0 {
		cores = runtime.NumCPU()
	}
	if n.owner, err = newOwnerRule(boot, cores, stdout, log.Info, n.fatal, func(text string) { n.logUp(ctx, text) }); err != nil {
		return err
	}
	n.owner.setAsk(n.askDrain)
	hello := deploy.Hello{Node: boot.Node, Host: Host(), PID: os.Getpid(), Version: Version,
		OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: cores, NICs: nics, Listen: listen, Load: hostLoad(),
		Memory: AvailableMemory()}
	if err := deploy.WriteHello(stdout, hello); err != nil {
		return fmt.Errorf("engine: worker %s: %w", boot.Node, err)
	}
	if n.owner != nil {
		go n.owner.run(ctx)
	}
	stdinGone := make(chan struct{})
	go func() { io.Copy(io.Discard, stdin); close(stdinGone) }()
	go n.recvLoop(ctx)
	go n.tickLoop(ctx)
	select {
	case <-stdinGone:
		log.Info("engine: stdin closed, worker exits")
		return nil
	case <-ctx.Done():
		return nil
	case err := <-n.fatal:
		log.Error("engine: worker exits", "err", err)
		return err
	}
}

// listen binds the data endpoint (the Boot's addresses, or one per IPv4
// address of an up, non-loopback NIC plus a Unix socket) and the control
// endpoint (the first TCP host of the data addresses, any port).
func (n *node) listen(ctx context.Context, nics []probe.NIC) error {
	addrs := n.boot.Listen
	if len(addrs) == 0 {
		dir, err := n.socketDir()
		if err != nil {
			return err
		}
		// Ethernet first: the control endpoint's first address must be
		// reachable from other sites (GRIDHPC: between clusters, Ethernet).
		ordered := slices.Clone(nics)
		slices.SortStableFunc(ordered, func(a, b probe.NIC) int {
			return boolRank(b.Kind == probe.Ethernet) - boolRank(a.Kind == probe.Ethernet)
		})
		for _, nic := range ordered {
			if !nic.Up || nic.Kind == probe.Loopback {
				continue
			}
			for _, a := range nic.Addrs {
				if a.Is4() {
					addrs = append(addrs, "tcp://"+netip.AddrPortFrom(a, 0).String())
				}
			}
		}
		addrs = append(addrs, "unix://"+filepath.Join(dir, "data.sock"))
	}
	data, err := n.listenData(ctx, addrs, 0)
	if err != nil {
		return err
	}
	n.data, n.dataAddrs = data, data.Addrs()
	var ctrlAddrs []string
	for _, a := range n.dataAddrs {
		if host, ok := strings.CutPrefix(a, "tcp://"); ok {
			if ap, err := netip.ParseAddrPort(host); err == nil {
				ctrlAddrs = append(ctrlAddrs, "tcp://"+netip.AddrPortFrom(ap.Addr(), 0).String())
			}
		}
	}
	if len(ctrlAddrs) == 0 {
		dir, err := n.socketDir()
		if err != nil {
			data.Close()
			return err
		}
		ctrlAddrs = []string{"unix://" + filepath.Join(dir, "ctrl.sock")}
	}
	cfg := n.config(ctrlAddrs)
	n.ctrl, err = rmnp.Listen(ctx, cfg)
	if err != nil {
		data.Close()
		return fmt.Errorf("engine: worker %s: control endpoint: %w", n.boot.Node, err)
	}
	n.live.HeardBy(n.ctrl)
	return nil
}

func (n *node) config(listen []string) rmnp.Config {
	cfg := rmnp.DefaultConfig()
	cfg.RunID, cfg.Secret, cfg.Self, cfg.Listen = n.boot.RunID, n.boot.Secret, n.self, listen
	cfg.Logger = n.log
	// A pre-flight retried under load gives a handshake up to this long
	// (startup.go); the accepting side must wait as long.
	cfg.DialTimeout = preflightTimeoutMax
	return cfg
}

// socketDir creates, once, the directory of the worker's Unix sockets:
// inside its working directory (which `gridtui deploy --clean` removes, so
// nothing survives a killed worker) when the path fits a socket address,
// else in the system's temporary directory.
func (n *node) socketDir() (string, error) {
	if n.sockDir != "" {
		return n.sockDir, nil
	}
	parent := os.TempDir()
	if wd, err := os.Getwd(); err == nil && len(wd) < 64 {
		parent = wd
	}
	dir, err := os.MkdirTemp(parent, "rmnp-"+sanitize(n.boot.Node)+"-")
	if err != nil {
		return "", fmt.Errorf("engine: worker %s: socket directory: %w", n.boot.Node, err)
	}
	n.sockDir = dir
	return dir, nil
}

// listenData binds a data endpoint on addrs for attempt run (0: none yet),
// removing stale Unix sockets.
func (n *node) listenData(ctx context.Context, addrs []string, run uint64) (*rmnp.Endpoint, error) {
	for _, a := range addrs {
		if p, ok := strings.CutPrefix(a, "unix://"); ok {
			os.Remove(p)
		}
	}
	cfg := n.config(addrs)
	cfg.RunID = AttemptRunID(n.boot.RunID, run)
	ep, err := rmnp.Listen(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("engine: worker %s: data endpoint on %v: %w", n.boot.Node, addrs, err)
	}
	return ep, nil
}

func (n *node) close() {
	n.endRun(0, "worker exits")
	n.mu.Lock()
	data := n.data
	n.data = nil
	n.mu.Unlock()
	if data != nil {
		data.Close()
	}
	n.ctrl.Close()
	if n.sockDir != "" {
		os.RemoveAll(n.sockDir)
	}
}

// recvLoop reads every control message and dispatches it.
func (n *node) recvLoop(ctx context.Context) {
	buf := make([]byte, recvBufferSize)
	for {
		src, kind, err := n.ctrl.Wait(ctx)
		if err != nil {
			return
		}
		m, err := ReceiveCtrl(ctx, n.ctrl, src, kind, &buf)
		if err != nil {
			if errors.Is(err, rmnp.ErrClosed) || ctx.Err() != nil {
				return
			}
			continue
		}
		n.live.Seen(src)
		if len(m) > 0 && MsgType(m[0]) == MsgCopy {
			// A buddy's copy is kept in the buffer it was received into
			// (no second copy, nor a second fresh buffer of its size); the
			// loop goes on with another (keepCopy).
			if err := n.keepCopy(src, m[1:], buf); err != nil {
				n.log.Warn("engine: control message dropped", "from", src, "err", err)
			}
			buf = n.copies.recvBuffer()
			continue
		}
		if err := n.dispatch(ctx, src, m); err != nil {
			n.log.Warn("engine: control message dropped", "from", src, "err", err)
		}
	}
}

// errDataOnControl reports a DATA message on a control endpoint, which
// carries CTRL only; it is received and dropped.
var errDataOnControl = fmt.Errorf("%w: DATA message on the control plane", ErrProtocol)

// ReceiveCtrl takes the next message of kind (as Wait reported it) from src
// into *buf, growing it as needed, and returns it (aliasing *buf). DATA,
// which no peer should send on the control plane, is taken and dropped, so
// that a misbehaving peer cannot wedge the receive loop.
func ReceiveCtrl(ctx context.Context, ep *rmnp.Endpoint, src rmnp.PeerID, kind rmnp.Flags, buf *[]byte) ([]byte, error) {
	flag := rmnp.CTRL
	if kind&rmnp.DATA != 0 {
		flag = rmnp.DATA
	}
	for {
		k, err := ep.Receive(ctx, src, *buf, flag)
		if errors.Is(err, rmnp.ErrShortBuffer) {
			*buf = make([]byte, max(k, 2*len(*buf)))
			continue
		}
		if err != nil {
			return nil, err
		}
		if flag == rmnp.DATA {
			return nil, errDataOnControl
		}
		return (*buf)[:k], nil
	}
}

// dispatch handles one control message from src.
func (n *node) dispatch(ctx context.Context, src rmnp.PeerID, m []byte) error {
	t, body, err := DecodeMsg(m)
	if err != nil {
		return err
	}
	switch t {
	case MsgHeartbeat:
		if len(body) == 1 && body[0] == runStarted {
			n.parentStarted(src)
		}
		return nil
	case MsgAssign:
		var a GroupAssign
		if err := DecodeBody(t, body, &a); err != nil {
			return err
		}
		return n.coordinate(ctx, src, a)
	case MsgTask:
		var wt WorkerTask
		if err := DecodeBody(t, body, &wt); err != nil {
			return err
		}
		return n.startTask(ctx, src, wt)
	case MsgAbort, MsgEnd:
		var a Abort
		if err := DecodeBody(t, body, &a); err != nil {
			return err
		}
		// m aliases the receive buffer: the goroutine gets its own copy.
		go n.leaveRun(ctx, src, slices.Clone(m), a)
		return nil
	case MsgEnded:
		select {
		case n.acks <- src:
		default:
		}
		return nil
	case MsgStatus, MsgResult, MsgValues, MsgFailed, MsgLog, MsgDrain:
		return n.fromChild(ctx, src, t, body, m)
	case MsgCopy, MsgCopyFetch, MsgCopyReply:
		return n.onCopy(ctx, src, t, body)
	}
	return fmt.Errorf("%w: unexpected %s", ErrProtocol, t)
}

// send sends a control message to peer; sending to itself delivers it to
// the coordinator role of this node. The end of ctx never cuts the frame
// (sendWhole): m must be a buffer the caller does not reuse.
func (n *node) send(ctx context.Context, peer rmnp.PeerID, m []byte) error {
	if peer == n.self {
		t, body, err := DecodeMsg(m)
		if err != nil {
			return err
		}
		return n.fromChild(ctx, peer, t, body, m)
	}
	return n.sendWhole(ctx, peer, m)
}

// tickLoop paces telemetry (at most 10 Hz), heartbeats and liveness checks.
func (n *node) tickLoop(ctx context.Context) {
	t := time.NewTicker(CheckInterval)
	defer t.Stop()
	var prev time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-n.ctrl.PeerDown():
			if ev.LinksLeft == 0 {
				n.linkDown(ctx, ev)
			}
		case now := <-t.C:
			n.tickJob(ctx, now)
			n.tickCoord(ctx, now)
			for _, p := range n.live.Check(prev, now) {
				n.logSilent(p)
				n.peerLost(ctx, p.ID, p.Silence())
			}
			prev = now
		}
	}
}

// logSilent logs what this node knows of a peer it names for its silence:
// when the peer's last message reached the control endpoint (taken or
// not) and whether the endpoint still has a link to it — what tells a
// peer that sent nothing from messages lost on the way.
func (n *node) logSilent(p LostPeer) {
	arrived := "never"
	if at := n.ctrl.HeardAt(p.ID); !at.IsZero() {
		arrived = time.Since(at).Round(time.Millisecond).String() + " ago"
	}
	n.log.Warn("engine: peer silent", "peer", p.Name, "silent", p.Silent.Round(time.Millisecond),
		"starting", p.Starting, "last_arrival", arrived, "linked", slices.Contains(n.ctrl.Peers(), p.ID))
}

// linkDown handles the loss of a control link. A parent that closed its
// link cleanly (GOAWAY) ended the run — its end-of-run message may still be
// on its way — so the node just leaves the run and stays available; any
// other loss is a failure.
func (n *node) linkDown(ctx context.Context, ev rmnp.PeerDownEvent) {
	if slices.Contains(n.ctrl.Peers(), ev.Peer) {
		// A link to the peer is up again by now: the submitter of a
		// recovery's next attempt (same peer id) dialled in before this
		// event of the attempt before was taken. Ending the run here would
		// end the new attempt.
		return
	}
	if errors.Is(ev.Err, rmnp.ErrPeerClosed) && n.isParent(ev.Peer) {
		n.endRun(0, "parent closed the link")
		return
	}
	n.peerLost(ctx, ev.Peer, fmt.Sprintf("connection lost: %v", ev.Err))
}

// parentStarted handles a heartbeat from src saying that the whole run has
// started: if src is this node's parent, its start-up is over (the adaptive
// detector judges it from now on), and a coordinator passes the word down.
func (n *node) parentStarted(src rmnp.PeerID) {
	if !n.isParent(src) {
		return
	}
	n.live.StartedPeer(src)
	n.mu.Lock()
	c := n.coord
	n.mu.Unlock()
	if c != nil && src == c.assign.Parent {
		c.parentStarted()
	}
}

// isParent reports whether id is the node's parent in the current run.
func (n *node) isParent(id rmnp.PeerID) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return (n.job != nil && n.job.parent == id) || (n.coord != nil && id == n.coord.assign.Parent)
}

// peerLost handles a parent or child that died or went silent.
func (n *node) peerLost(ctx context.Context, id rmnp.PeerID, cause string) {
	n.mu.Lock()
	job, coord := n.job, n.coord
	n.mu.Unlock()
	if coord != nil {
		if name, ok := coord.childName(id); ok {
			n.live.unwatch(id)
			n.reportFailure(ctx, name, cause)
			return
		}
	}
	if (job != nil && job.parent == id) || (coord != nil && id == coord.assign.Parent) {
		who := parentName(id)
		err := fmt.Errorf("%w: %s %s", ErrParentLost, who, cause)
		n.endRun(0, err.Error())
		// Stop computing at once, but exit a little later: whoever watches
		// the parent names it first, and this exit is not taken for a
		// failure of its own.
		go func() {
			select {
			case <-time.After(ParentExitDelay):
			case <-ctx.Done():
			}
			select {
			case n.fatal <- err:
			default:
			}
		}()
	}
}

// ParentExitDelay is how long a worker that lost its parent waits before it
// exits.
const ParentExitDelay = time.Second

// AttemptRunID is the RMNP run id of the data endpoints of one attempt of
// a run (run: its control-plane id, new at every recovery; 0: between
// attempts): the session's id with run in its last eight bytes. It fences
// the attempts: a neighbour still in the attempt before (its end on its
// way) refuses this attempt's handshake (rmnp.ErrOtherRun, which the
// pre-flight retries) instead of taking the link and sending its old
// halos and detector messages into it.
func AttemptRunID(session [16]byte, run uint64) [16]byte {
	id := session
	for i := range 8 {
		id[8+i] ^= byte(run >> (8 * i))
	}
	return id
}

// bindData binds a data endpoint for attempt run in place of the node's
// current one (an attempt's that ended).
func (n *node) bindData(run uint64) (*rmnp.Endpoint, error) {
	if n.data != nil {
		// Abort, not Close: what is still queued belongs to an attempt
		// that ended, and a neighbour cut off by the network would hold a
		// Close for CloseTimeout.
		n.data.Abort()
		n.data = nil
	}
	data, err := n.listenData(context.Background(), n.dataAddrs, run)
	if err != nil {
		return nil, err
	}
	n.data = data
	return data, nil
}

// endRun stops run on this node (worker and coordinator roles; run 0:
// whatever runs) and rebinds its data endpoint fenced (attempt 0: it
// refuses every handshake of an attempt) until the next task gives it that
// attempt's id (startTask), so that no message of this run can reach the
// next.
//
// Only run's roles end. A member whose job's end is still on its way can
// be made a coordinator in the next attempt: the assignment installs the
// new role, then the node's own task supersedes the old job (startTask),
// and that must not end the new role with it (the node would send its
// parent nothing and forward no task until it was judged lost).
func (n *node) endRun(run uint64, reason string) {
	n.mu.Lock()
	job, coord := n.job, n.coord
	if run != 0 && job != nil && job.task.Run != run {
		job = nil
	}
	if run != 0 && coord != nil && coord.assign.Run != run {
		coord = nil
	}
	if job == nil && coord == nil {
		n.mu.Unlock()
		return // a late end of an earlier run
	}
	if job != nil {
		n.job = nil
	}
	if coord != nil {
		n.coord = nil
	}
	for _, r := range []uint64{jobRun(job), coordRun(coord)} {
		if r != 0 && !slices.Contains(n.ended, r) {
			n.ended = append(n.ended[max(len(n.ended)-7, 0):], r)
		}
	}
	idle := n.job == nil && n.coord == nil
	n.mu.Unlock()
	if idle {
		// A role of a later attempt keeps its watches (its parent, its
		// members); the ended job's parent, if it is no peer of that
		// role, is then still watched, and naming it lost does nothing.
		n.live.reset()
	}
	if coord != nil {
		coord.stop()
	}
	if job == nil {
		return
	}
	job.cancel()
	<-job.done
	n.runLog(job.task.Run).Info("engine: run ended", "reason", reason)
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, err := n.bindData(0); err != nil {
		n.log.Error("engine: rebind data endpoint", "err", err)
	}
}

// EndAckTimeout bounds how long a coordinator waits for its members to
// acknowledge the end of a run.
const EndAckTimeout = 2 * time.Second

// leaveRun handles msgAbort and msgEnd: pass it down, leave the run, wait
// (bounded) for the members to do the same, and acknowledge to src.
func (n *node) leaveRun(ctx context.Context, src rmnp.PeerID, m []byte, a Abort) {
	n.mu.Lock()
	var children []rmnp.PeerID
	if c := n.coord; c != nil && c.assign.Run == a.Run {
		c.mu.Lock()
		for id, name := range c.children {
			if c.statuses[name].State != solve.StateFailed && !slices.Contains(a.Lost, name) { // a lost member never acknowledges
				children = append(children, id)
			}
		}
		c.mu.Unlock()
	}
	n.mu.Unlock()
	for _, id := range children {
		n.post(ctx, id, m)
	}
	n.endRun(a.Run, a.Reason)
	pending := map[rmnp.PeerID]bool{}
	for _, id := range children {
		pending[id] = true
	}
	timeout := time.After(EndAckTimeout)
	for len(pending) > 0 {
		select {
		case id := <-n.acks:
			delete(pending, id)
		case <-timeout:
			pending = nil
		case <-ctx.Done():
			return
		}
	}
	if ack, err := EncodeMsg(MsgEnded, Abort{Run: a.Run}); err == nil {
		n.post(ctx, src, ack)
	}
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator || r < ' ' {
			return '_'
		}
		return r
	}, s)
}

// Host is this machine's host name, or "localhost" when the kernel has none.
func Host() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "localhost"
}

// RunTag is how a run's id (the control plane's) reads on its workers' log
// lines, run=…, and in its record (jobs.RunRecord.WorkerRun): `gridtui
// logs` keeps a run's lines by it.
func RunTag(run uint64) string { return fmt.Sprintf("%016x", run) }

// runLog is the node's logger for the lines of one run.
func (n *node) runLog(run uint64) *slog.Logger { return n.log.With("run", RunTag(run)) }

// jobRun and coordRun are the run (attempt) of a job and of a
// coordinator's assignment (0: none).
func jobRun(j *jobState) uint64 {
	if j == nil {
		return 0
	}
	return j.task.Run
}

func coordRun(c *coordState) uint64 {
	if c == nil {
		return 0
	}
	return c.assign.Run
}
