package worker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shirou/gopsutil/v4/load"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
)

// secondaryDelay holds back the report of a worker whose neighbour link
// died, so that the failure is attributed to the node that caused it.
const secondaryDelay = 1500 * time.Millisecond

// jobState is the worker role of a node during a run.
type jobState struct {
	task   WorkerTask
	parent rmnp.PeerID
	cancel context.CancelFunc
	done   chan struct{}

	copies *jobCopies // nil: no in-memory checkpoints

	mu       sync.Mutex
	latest   solve.NodeStatus
	dirty    bool
	lastSent time.Time
}

// startTask is "receive sub-task" (GRIDHPC Sec. V-B): the node becomes a
// worker of the run and starts computing in the background.
func (n *node) startTask(ctx context.Context, parent rmnp.PeerID, t WorkerTask) error {
	if t.Node != n.boot.Node {
		return fmt.Errorf("%w: task for %s sent to %s", ErrProtocol, t.Node, n.boot.Node)
	}
	n.mu.Lock()
	if slices.Contains(n.ended, t.Run) {
		// A task of an attempt that ended here, late: a frame left to
		// finish in the background (sendWhole) may arrive after the next
		// attempt's task, which it must not supersede.
		n.mu.Unlock()
		n.log.Info("engine: a task of an ended run dropped", "run", t.Run)
		return nil
	}
	if n.job != nil && n.job.task.Run != t.Run {
		// A new run while the end of the previous one is still on its way.
		old := n.job.task.Run
		n.mu.Unlock()
		n.endRun(old, "superseded by a new run")
		n.mu.Lock()
	}
	if n.job != nil {
		n.mu.Unlock()
		return fmt.Errorf("engine: worker %s: already running rank %d", n.boot.Node, n.job.task.Rank)
	}
	jctx, cancel := context.WithCancel(ctx)
	job := &jobState{task: t, parent: parent, cancel: cancel, done: make(chan struct{}),
		latest: solve.NodeStatus{Node: t.Node, Rank: t.Rank, Group: t.Group, State: solve.StateStarting, Run: t.Run}, dirty: true}
	n.job = job
	data, berr := n.data, error(nil)
	if data == nil { // its rebind after the attempt before failed: try again
		data, berr = n.bindData(0)
	}
	if data != nil {
		// The fenced endpoint (endRun) takes this attempt's id: the
		// neighbours of this attempt are let in, those of the one before
		// still refused. No rebind: a handshake under way is not cut.
		data.SetRunID(AttemptRunID(n.boot.RunID, t.Run))
	}
	n.mu.Unlock()
	if parent != n.self {
		n.live.WatchStarting(parent, "coordinator", parentLimits)
	}
	go func() {
		defer close(job.done)
		if berr != nil {
			data = nil
		}
		n.runTask(jctx, data, job, berr)
	}()
	return nil
}

// runTask links the worker to its neighbours, runs Solve and sends the
// result (or the failure) up.
func (n *node) runTask(ctx context.Context, data *rmnp.Endpoint, job *jobState, berr error) {
	t := job.task
	fail := func(err error) {
		if solve.NeighbourLost(err) {
			// A lost neighbour link is a consequence: give the node that
			// actually failed time to be named first (the run is then
			// aborted and this report is never sent).
			select {
			case <-ctx.Done():
			case <-time.After(secondaryDelay):
			}
		}
		if ctx.Err() != nil {
			return // the run was stopped from above; nothing to report
		}
		// The cause is printed after the node's name ("engine: run failed:
		// node alpha-2: rank 1: …"): without the package prefix.
		cause := solve.Bare(err.Error())
		job.setFailed(cause)
		m, _ := EncodeMsg(MsgFailed, Failure{Node: t.Node, Cause: cause, Run: t.Run})
		// Bounded: a parent that stopped must not hold this goroutine (and
		// endRun, which waits for it) forever.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), postTimeout)
		defer cancel()
		n.send(sctx, job.parent, m)
	}
	if data == nil {
		fail(fmt.Errorf("no data endpoint: %w", berr))
		return
	}
	lctx, cancel := context.WithTimeout(ctx, linkBudget)
	dialled, nets, handshakes, err := n.link(lctx, ctx, data, t)
	cancel()
	if err != nil {
		fail(err)
		return
	}
	sub := solve.Subtask{PartTask: t.PartTask, Cores: t.Cores,
		Scheme: t.Scheme, Detector: t.Detector, MaxIter: t.MaxIter, Node: t.Node, Cluster: n.boot.Cluster,
		Checkpoint: t.Checkpoint, Log: logLines{n.log.With("rank", t.Rank)}}
	if p := t.Checkpoint; p != nil && p.Memory {
		job.copies = &jobCopies{n: n, plan: *p, ctx: ctx}
		sub.Copies = job.copies
	}
	for _, nb := range t.Neighbours {
		sub.Neighbours = append(sub.Neighbours, solve.Neighbour{Rank: nb.Rank, Peer: nb.Peer, Mode: nb.Mode, Network: nets[nb.Rank]})
	}
	n.runLog(t.Run).Info("engine: task started", "rank", t.Rank, "ranks", t.Ranks, "scheme", t.Scheme, "neighbours", len(sub.Neighbours))
	held0, holds0 := n.owner.total()
	res, err := solve.Solve(ctx, data, sub, func(s solve.NodeStatus) {
		job.update(s, data)
		// Solve reports from its computing goroutine, after a sweep: the
		// owner policy holds the part there.
		n.owner.pass(ctx, job)
	})
	if err != nil {
		// The detector's state at the end (in the error of a stopped run)
		// stays in the node's log: a run that never terminated is
		// diagnosed from these lines (gridtui logs).
		n.runLog(t.Run).Info("engine: task ended", "rank", t.Rank, "err", err)
		fail(err)
		return
	}
	hdr := ResultHeader{Run: t.Run, Node: t.Node, Rank: t.Rank, Iterations: res.Iterations, Sigma: res.Sigma,
		Converged: res.Converged, Compute: res.Compute, Send: res.Send, Wait: res.Wait,
		Count: len(res.Values), Traffic: AddTraffic(traffic(data), res.Traffic), Route: firstReason(dialled), Dialled: dialled, PeakRSS: peakRSS(),
		Sweeps: res.Sweeps, Links: linkTraces(data, handshakes, t.Neighbours...)}
	held, holds := n.owner.total()
	hdr.OwnerHeld, hdr.OwnerHolds = held-held0, holds-holds0
	job.finish(hdr)
	if err := n.sendResult(ctx, job.parent, hdr, res.Values); err != nil {
		fail(err)
	}
}

// link connects the data endpoint to the neighbours this rank dials (the
// lower rank of each pair dials, over the first candidate route that
// answers: pre-flight with fallback) and waits for the others to do the
// same. It returns the dialled routes (for the report) and every
// neighbour's network label by rank.
//
// A pre-flight attempt that times out may have completed the handshake on
// the accepting side only: that side then holds a link the dialer
// abandoned, and would send its halos into it. So the dialer confirms its
// choice with a first CTRL message on the chosen link (linkedPrefix and
// the network), and the accepting side computes only once it has that
// message and no other link to that neighbour is up.
//
// The dials are bounded by dctx (the start-up's budget), the waits by
// linkTimeout under ctx.
func (n *node) link(dctx, ctx context.Context, data *rmnp.Endpoint, t WorkerTask) (dialled []probe.Route, nets map[int]string,
	handshakes map[rmnp.PeerID]time.Duration, err error) {
	nets, handshakes = map[int]string{}, map[rmnp.PeerID]time.Duration{}
	for _, up := range t.Neighbours {
		if up == nil || !up.Dial {
			continue
		}
		r, took, err := n.dial(dctx, data, up)
		if err != nil {
			return dialled, nil, nil, err
		}
		dialled = append(dialled, r)
		nets[up.Rank] = linkLabel(r)
		handshakes[up.Peer] = took
	}
	for _, low := range t.Neighbours {
		if low == nil || low.Dial {
			continue
		}
		wctx, cancel := context.WithTimeout(ctx, linkTimeout)
		net, err := awaitLinked(wctx, data, low.Peer)
		cancel()
		if err != nil {
			return dialled, nil, nil, solve.WrapErr(err, "neighbour %s never connected", low.Node)
		}
		if net == "" {
			net = firstNetwork(low)
		}
		nets[low.Rank] = net
	}
	return dialled, nets, handshakes, nil
}

// linkLabel is the rmnp network label of a link over route r: its network,
// or "gateway" for a route through the sites' gateways.
func linkLabel(r probe.Route) string {
	if r.Via != "" {
		return gatewayNetwork
	}
	return string(r.Network)
}

// gatewayNetwork labels the links through gateways in traffic counters.
const gatewayNetwork = "gateway"

func firstReason(rs []probe.Route) string {
	if len(rs) == 0 {
		return ""
	}
	return rs[0].Reason
}

// dial links to neighbour up over the first of its routes that answers and
// confirms the choice on the chosen link. It also returns how long the
// chosen route's connection and handshake took (two round trips: the
// predictor's latency figure).
func (n *node) dial(ctx context.Context, data *rmnp.Endpoint, up *NeighbourTask) (probe.Route, time.Duration, error) {
	if len(up.Routes) == 0 || len(up.Routes) != len(up.Addrs) {
		return probe.Route{}, 0, fmt.Errorf("%w: %d routes and %d addresses to %s", ErrProtocol, len(up.Routes), len(up.Addrs), up.Node)
	}
	var took time.Duration
	dial := func(ctx context.Context, r probe.Route) error {
		for i := range up.Routes {
			if up.Routes[i] == r {
				return fencedDial(ctx, func() error {
					start := time.Now()
					err := data.Connect(ctx, up.Peer, up.Addrs[i], rmnp.LinkOptions{Mode: up.Mode, Network: linkLabel(r)})
					took = time.Since(start)
					return err
				})
			}
		}
		return errors.New("unknown route")
	}
	r, warns, rounds, err := preflightRetry(ctx, up.Routes, dial)
	for _, w := range warns {
		n.logUp(ctx, w)
	}
	if err != nil {
		if rounds > 1 {
			return r, 0, solve.WrapErr(err, "link to %s (pre-flight tried %d times within the %v start-up budget)", up.Node, rounds, linkBudget)
		}
		return r, 0, solve.WrapErr(err, "link to %s", up.Node)
	}
	if rounds > 1 {
		n.log.Info("engine: pre-flight retried", "neighbour", up.Node, "rounds", rounds, "network", r.Network)
	}
	if err := data.Send(ctx, up.Peer, []byte(linkedPrefix+linkLabel(r)), rmnp.CTRL); err != nil {
		return r, 0, solve.WrapErr(err, "link to %s: confirm the %s route", up.Node, r.Network)
	}
	return r, took, nil
}

// fenceWait bounds how long a neighbour's route that answers, but not yet
// in this attempt, is dialled again before the pre-flight falls back to
// the next one; rebindWait is as long for a route refused outright: a
// neighbour's endpoint is rebound in an instant, and a network that
// refuses must not hold the pre-flight.
const (
	fenceWait  = 5 * time.Second
	rebindWait = time.Second
)

// fencedDial runs connect until it succeeds or fails otherwise than on a
// neighbour between attempts: its data endpoint of another attempt
// (rmnp.ErrOtherRun, AttemptRunID) or, for the instant it is rebound,
// none or a closing one (rebinding). The route works: the pre-flight must not fall back
// to a worse network for that.
func fencedDial(ctx context.Context, connect func() error) error {
	start := time.Now()
	pause := dialRetryFirst
	for {
		err := connect()
		waited := time.Since(start)
		switch {
		case errors.Is(err, rmnp.ErrOtherRun) && waited < fenceWait:
		case rebinding(err) && waited < rebindWait:
		default:
			return err
		}
		var wait time.Duration
		wait, pause = backoff(pause)
		if !sleepCtx(ctx, wait) {
			return err
		}
	}
}

// rebinding reports a dial that met a neighbour's data endpoint as it was
// rebound: none listening, or the old one closing the handshake.
func rebinding(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)
}

// linkedPrefix starts the first message the dialer of a pair sends on the
// link its pre-flight chose (CTRL, on the data endpoint); the network's
// name follows.
const linkedPrefix = "gridtui linked over "

// staleLinkPoll is how often awaitLinked looks whether the links its lower
// neighbour abandoned are gone.
const staleLinkPoll = 10 * time.Millisecond

// awaitLinked waits until the lower neighbour peer has confirmed its link
// and every other link to it is down, and returns the confirmed network.
// The confirmation may come after a link the dialer abandoned went down:
// Receive then reports the peer down, and the wait goes on for the next.
func awaitLinked(ctx context.Context, ep *rmnp.Endpoint, peer rmnp.PeerID) (string, error) {
	buf := make([]byte, 128)
	var k int
	for {
		if err := ep.WaitPeer(ctx, peer); err != nil {
			return "", err
		}
		var err error
		k, err = ep.Receive(ctx, peer, buf, rmnp.CTRL)
		if err == nil {
			break
		}
		if !errors.Is(err, rmnp.ErrPeerDown) {
			return "", err
		}
	}
	network, ok := strings.CutPrefix(string(buf[:k]), linkedPrefix)
	if !ok {
		return "", fmt.Errorf("%w: peer %d's first message is not its link confirmation", ErrProtocol, peer)
	}
	// A stale link's closing precedes its removal from the peer (which Send
	// consults) by a few instructions: once all are down, look once more.
	for settled := false; ; {
		up, down := 0, 0
		for _, l := range ep.Stats().Links {
			if l.Peer == peer && l.Network != network {
				if l.Up {
					up++
				} else {
					down++
				}
			}
		}
		if up == 0 && (down == 0 || settled) {
			break
		}
		settled = up == 0
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("abandoned link to peer %d still up: %w", peer, ctx.Err())
		case <-time.After(staleLinkPoll):
		}
	}
	return network, nil
}

func firstNetwork(nb *NeighbourTask) string {
	if len(nb.Routes) > 0 {
		return string(nb.Routes[0].Network)
	}
	return ""
}

// logUp sends a log line to the parent (and so to the console).
func (n *node) logUp(ctx context.Context, text string) {
	n.mu.Lock()
	job := n.job
	n.mu.Unlock()
	if job == nil {
		return
	}
	m, err := EncodeMsg(MsgLog, solve.LogEvent{At: time.Now(), Node: n.boot.Node, Text: text})
	if err == nil {
		n.send(ctx, job.parent, m)
	}
}

// sendResult is "send results": the header, then the values in chunks.
func (n *node) sendResult(ctx context.Context, parent rmnp.PeerID, hdr ResultHeader, v []float64) error {
	m, err := EncodeMsg(MsgResult, hdr)
	if err != nil {
		return err
	}
	if err := n.send(ctx, parent, m); err != nil {
		return solve.WrapErr(err, "send result header")
	}
	for off := 0; off < len(v); off += valuesChunk {
		end := min(off+valuesChunk, len(v))
		if err := n.send(ctx, parent, encodeValues(hdr.Run, hdr.Rank, off, v[off:end])); err != nil {
			return solve.WrapErr(err, "send result values")
		}
	}
	return nil
}

// update records the latest sample from Solve (called at most every ~100 ms).
func (j *jobState) update(s solve.NodeStatus, data *rmnp.Endpoint) {
	s.Node, s.Rank, s.Group, s.Run = j.task.Node, j.task.Rank, j.task.Group, j.task.Run
	s.Traffic = AddTraffic(traffic(data), s.Traffic)
	s.PeakRSS, s.Load = peakRSS(), hostLoad()
	if j.copies != nil {
		j.copies.status(&s)
	}
	j.mu.Lock()
	if j.latest.State != solve.StateTerminated && j.latest.State != solve.StateFailed {
		j.latest, j.dirty = s, true
	}
	j.mu.Unlock()
}

func (j *jobState) finish(h ResultHeader) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.latest.State, j.latest.Iteration, j.latest.Sigma = solve.StateTerminated, h.Iterations, h.Sigma
	j.latest.Compute, j.latest.Send, j.latest.Wait, j.latest.Traffic = h.Compute, h.Send, h.Wait, h.Traffic
	j.latest.PeakRSS, j.dirty = h.PeakRSS, true
}

func (j *jobState) setFailed(cause string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.latest.State, j.latest.Err, j.dirty = solve.StateFailed, cause, true
	j.latest.PeakRSS = peakRSS()
}

// crowdedStatusEvery paces a worker's statuses on a crowded host
// (heartbeat.go), instead of at most 10 Hz.
const crowdedStatusEvery = time.Second

// beatEvery is how often a worker in state st sends a heartbeat when it
// has nothing else to send: while starting, it is judged by StartupTimeout
// alone, and downInterval spares its coordinator's CPU.
func beatEvery(st solve.NodeState) time.Duration {
	if st == solve.StateStarting {
		return DownInterval
	}
	return HeartbeatInterval
}

// tickJob sends the worker's status to its parent when it changed (at most
// 10 Hz), or a heartbeat when it did not for HeartbeatInterval.
func (n *node) tickJob(ctx context.Context, now time.Time) {
	n.mu.Lock()
	job := n.job
	n.mu.Unlock()
	if job == nil {
		return
	}
	// On a crowded host a coordinator's share of the CPU cannot take 32
	// statuses at 10 Hz: a worker that is not its own coordinator sends
	// its status at most every crowdedStatusEvery there.
	every := time.Duration(0)
	if job.parent != n.self && n.live.crowded != nil && n.live.crowded(now) {
		every = crowdedStatusEvery
	}
	job.mu.Lock()
	var m []byte
	switch {
	case job.dirty && now.Sub(job.lastSent) >= every:
		m, _ = EncodeMsg(MsgStatus, []solve.NodeStatus{job.latest})
		job.dirty = false
	case job.dirty:
	case now.Sub(job.lastSent) >= beatEvery(job.latest.State) && job.parent != n.self:
		m = []byte{byte(MsgHeartbeat)}
	}
	if m != nil {
		job.lastSent = now
	}
	job.mu.Unlock()
	if m != nil {
		n.post(ctx, job.parent, m)
	}
}

// AddTraffic adds more's counters to those of the same network in t, and
// appends the others.
func AddTraffic(t, more []solve.NetTraffic) []solve.NetTraffic {
next:
	for _, m := range more {
		for i := range t {
			if t[i].Network == m.Network {
				t[i].Messages += m.Messages
				t[i].Bytes += m.Bytes
				t[i].Skipped += m.Skipped
				continue next
			}
		}
		t = append(t, m)
	}
	return t
}

// traffic converts the data endpoint's per-network counters.
func traffic(ep *rmnp.Endpoint) []solve.NetTraffic {
	if ep == nil {
		return nil
	}
	return trafficOf(ep)
}

// peakRSS reads the process's peak resident set (VmHWM) on Linux; 0 elsewhere.
func peakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// hostLoad is the host's 1-minute load average, or nil when it cannot be
// read (only Linux and the BSDs have one to read cheaply).
func hostLoad() *float64 {
	avg, err := load.Avg()
	if err != nil {
		return nil
	}
	return &avg.Load1
}

// linkTraces is the node's traffic per neighbour (the links of its trace),
// from the data endpoint's per-link counters, with the handshake time of
// each link this node dialled.
func linkTraces(ep *rmnp.Endpoint, handshakes map[rmnp.PeerID]time.Duration, nbs ...*NeighbourTask) []jobs.LinkTrace {
	rank := map[rmnp.PeerID]int{}
	for _, nb := range nbs {
		if nb != nil {
			rank[nb.Peer] = nb.Rank
		}
	}
	var out []jobs.LinkTrace
	for _, l := range ep.Stats().Links {
		r, ok := rank[l.Peer]
		if !ok {
			continue
		}
		out = append(out, jobs.LinkTrace{Peer: r, Network: l.Network, Async: l.Mode == rmnp.Async,
			Sent: l.MessagesSent, Received: l.MessagesReceived, BytesSent: l.BytesSent,
			BytesReceived: l.BytesReceived, Skipped: l.Skipped + l.Replaced, HandshakeMicros: uint64(handshakes[l.Peer].Microseconds())})
	}
	return out
}

// trafficOf sums the data endpoint's counters per network, sent and received.
func trafficOf(ep *rmnp.Endpoint) []solve.NetTraffic {
	st := ep.Stats()
	out := make([]solve.NetTraffic, 0, len(st.Networks))
	for _, ns := range st.Networks {
		out = append(out, solve.NetTraffic{Network: ns.Network,
			Messages: ns.MessagesSent + ns.MessagesReceived,
			Bytes:    ns.BytesSent + ns.BytesReceived,
			Skipped:  ns.Skipped + ns.Replaced})
	}
	return out
}

// logLines is an io.Writer of whole lines into the node's log, one record
// per line (the application's, e.g. its program's output: `gridtui logs`).
type logLines struct{ log *slog.Logger }

func (l logLines) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		l.log.Info("application output", "line", line)
	}
	return len(b), nil
}
