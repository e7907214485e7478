package worker

import (
	"fmt"
	"github.com/gridtui/gridtui/apps/gridapp"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
)

// A model of the control plane at 1 000, 10 000 and 100 000 nodes
// (docs/SCALE.md). It runs the real protocol code where it can: the
// hierarchy is Levels', the message sizes are encodeMsg's on the real
// message types, the cost of taking a status message is measured on
// decodeMsg and decodeBody, a coordinator's aggregation is coordState's,
// and failure detection is the liveness detector fed with simulated
// arrivals. What it cannot run (10 000 processes) it counts: messages and
// bytes per second and per role, connections, and the time of the waves
// of start-up and of the end of a run.
//
//	go test -run TestControlPlaneModel -v ./engine/   # prints the tables

// simParams are the model's assumptions (stated in docs/SCALE.md).
type simParams struct {
	connect   time.Duration // one TCP connect + RMNP handshake, dialer's wall time
	hop       time.Duration // one control message's latency across a link
	perMsg    time.Duration // CPU per message beyond decoding (syscalls, rmnp)
	linkBytes float64       // bytes per second a node's control NIC carries
}

var defaultSim = simParams{connect: 2 * time.Millisecond, hop: 500 * time.Microsecond,
	perMsg: 10 * time.Microsecond, linkBytes: 125e6}

// simGroups forms n workers into groups of jobs.MaxGroupSize as the
// planner does.
func simGroups(n int) []jobs.Group {
	var gs []jobs.Group
	for w := range n {
		name := fmt.Sprintf("c%d-%d", w/512, w%512+1)
		if w%jobs.MaxGroupSize == 0 {
			gs = append(gs, jobs.Group{Coordinator: name})
		}
		gs[len(gs)-1].Workers = append(gs[len(gs)-1].Workers, name)
	}
	return gs
}

// simStatus is a computing worker's telemetry row as it travels.
func simStatus(rank int) solve.NodeStatus {
	return solve.NodeStatus{Node: fmt.Sprintf("c%d-%d", rank/512, rank%512+1), Rank: rank, Group: rank / 32,
		State: solve.StateActive, Iteration: 123456, Sigma: 1.2345678e-7,
		Traffic: []solve.NetTraffic{{Network: "infiniband", Messages: 246912, Bytes: 1 << 33, Skipped: 1234},
			{Network: "ethernet", Messages: 12, Bytes: 4096}},
		Compute: 3 * time.Minute, Send: 20 * time.Second, Wait: 45 * time.Second, PeakRSS: 1 << 30}
}

// simMember is one worker's entry in an assignment: its task with two
// neighbours and their routes.
func simMember(rank int) Member {
	r := probe.Route{Network: probe.Infiniband, A: "c0-1", B: "c0-2", AAddr: "10.1.64.11", BAddr: "10.1.64.12"}
	nb := &NeighbourTask{Rank: rank + 1, Node: "c0-2", Peer: 12345, Mode: rmnp.Async, Dial: true,
		Routes: []probe.Route{r}, Addrs: []string{"tcp://10.1.64.12:40123"}}
	tree := solve.TreeView{Parent: rank - 1, Children: []int{rank + 1}, Heights: []int{99998 - rank}, Height: 99999 - rank, Depth: 99999}
	part := solve.PartTask{App: "obstacle", Params: map[string]string{"n": "100000", "eps": "1e-08"}, Rank: rank, Ranks: 100000,
		Part:  gridapp.PartSpec{Neighbours: []int{rank - 1, rank + 1}, Spec: []byte(`{"Lo":12345,"Hi":12346}`), Size: 1 << 30},
		Trees: [2]solve.TreeView{tree, tree}, Eps: 1e-8}
	t := WorkerTask{Run: 1, Node: "c0-1", Group: rank / 32, PartTask: part, Cores: 16,
		Scheme: jobs.Asynchronous, MaxIter: 1 << 30, Neighbours: []*NeighbourTask{nb, nb}}
	return Member{Node: "c0-1", Peer: 12345, Ctrl: []string{"tcp://10.0.64.11:40000"}, Task: t}
}

func msgLen(t MsgType, body any) int {
	m, err := EncodeMsg(t, body)
	if err != nil {
		panic("encode: " + err.Error())
	}
	return len(m)
}

// decodeCost measures the CPU time to take a status message of rows rows
// (decodeMsg and decodeBody, as the submitter and coordinators do).
func decodeCost(rows int) time.Duration {
	ss := make([]solve.NodeStatus, rows)
	for i := range ss {
		ss[i] = simStatus(i)
	}
	m, _ := EncodeMsg(MsgStatus, ss)
	k := max(1, 20000/rows)
	// CPU time, not wall time: the machine may be shared.
	t0 := cpuTime()
	for range k {
		typ, body, _ := DecodeMsg(m)
		var out []solve.NodeStatus
		_ = DecodeBody(typ, body, &out)
	}
	return (cpuTime() - t0) / time.Duration(k)
}

// cpuTime is the CPU time this process used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// roleLoad is what one node of a role handles per second.
type roleLoad struct {
	role           string
	nodes          int
	links          int     // control connections
	msgsIn, bytsIn float64 // per second
	cpu            float64 // cores busy taking messages
}

func (r roleLoad) String() string {
	return fmt.Sprintf("| %s | %d | %d | %.0f | %s | %.3f |", r.role, r.nodes, r.links, r.msgsIn, bytesPerSec(r.bytsIn), r.cpu)
}

func bytesPerSec(b float64) string {
	switch {
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB/s", b/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.1f kB/s", b/1e3)
	}
	return fmt.Sprintf("%.0f B/s", b)
}

// simTree is the hierarchy of n workers and the model's per-row costs.
type simTree struct {
	n      int
	levels [][]jobs.Group
	rowLen int // bytes of one status row in a batch
	cost   func(int) time.Duration
}

// telemetry is the steady state of a computing run: every worker's status
// changes at every tick and goes to its coordinator at 10 Hz; heartbeats go
// down every HeartbeatInterval. A coordinator sends up, at most 10 times a
// second, the rows that changed — every row at rowHz (10: today's
// coordinators; less: rows held back to that rate) — plus, when rowHz <
// 10, one summary row per group of workers at 10 Hz. Coordinators of
// coordinators forward what they receive.
func (s simTree) telemetry(p simParams, rowHz float64) []roleLoad {
	const tick = 10.0
	beat := float64(time.Second / HeartbeatInterval)
	one := float64(s.rowLen)
	out := []roleLoad{{role: "worker", nodes: s.n, links: 1, msgsIn: beat, bytsIn: beat * 20, cpu: beat * p.perMsg.Seconds()}}
	take := func(msgs, rows float64) float64 {
		perMsg := max(1, int(rows/max(msgs, 1)))
		return msgs * (p.perMsg + s.cost(perMsg)).Seconds()
	}
	// Rows per second one coordinator of the level below sends up.
	upRows := 32 * rowHz
	if rowHz < tick {
		upRows += tick
	}
	// A group coordinator takes its workers' statuses.
	out = append(out, roleLoad{role: "coordinator", nodes: len(s.levels[0]), links: 33,
		msgsIn: 32 * tick, bytsIn: 32 * tick * one, cpu: take(32*tick, 32*tick)})
	for k := 1; k < len(s.levels); k++ {
		msgs, rows := 32*tick, 32*upRows
		out = append(out, roleLoad{role: fmt.Sprintf("coordinator, level %d", k+1), nodes: len(s.levels[k]), links: 33,
			msgsIn: msgs, bytsIn: rows * one, cpu: take(msgs, rows)})
		upRows = rows
	}
	top := float64(len(s.levels[len(s.levels)-1]))
	msgs, rows := top*tick, top*upRows
	return append(out, roleLoad{role: "submitter", nodes: 1, links: int(top), msgsIn: msgs, bytsIn: rows * one, cpu: take(msgs, rows)})
}

// startup is the time from the first assignment to the last worker's task,
// and the largest assignment one coordinator receives: the submitter dials
// its coordinators assignWidth at a time, every coordinator dials its
// children forwardWidth at a time, level after level.
func (s simTree) startup(p simParams, memberLen int) (time.Duration, int) {
	wave := func(children, width int, msgBytes int) time.Duration {
		rounds := (children + width - 1) / width
		send := time.Duration(float64(children*msgBytes) / p.linkBytes * float64(time.Second))
		return time.Duration(rounds)*p.connect + send + p.hop
	}
	top := len(s.levels[len(s.levels)-1])
	// An assignment carries its subtree's members.
	sub := s.n / top
	d := wave(top, AssignWidth, sub*memberLen)
	largest := sub * memberLen
	for k := len(s.levels) - 1; k >= 0; k-- {
		per := s.n / max(1, len(s.levels[k])) / 32
		d += wave(31, ForwardWidth, max(1, per)*memberLen)
	}
	return d, largest
}

// ending is the time of an end of run (msgEnd down, msgEnded up) and the
// messages it takes.
func (s simTree) ending(p simParams) (time.Duration, int) {
	depth := len(s.levels) + 1 // submitter → … → workers
	msgs := 0
	for _, l := range s.levels {
		for _, g := range l {
			msgs += 2 * len(g.Workers)
		}
	}
	return time.Duration(2*depth) * p.hop, msgs
}

// phiSim feeds the real detector a peer's arrivals: every 100 ms plus a
// delay drawn from a load model, for the given time, and returns how many
// times it accused the live peer, and how long it takes to name the peer
// once it stops.
func phiSim(stall func(*rand.Rand) time.Duration, span time.Duration, seed uint64) (false int, detect time.Duration) {
	r := rand.New(rand.NewPCG(seed, 7))
	l := NewLiveness(ChildLimits)
	t0 := time.Unix(0, 0)
	l.Watch(1, "w")
	l.Peers[1].Model.Last = t0
	now, next, prev := t0, t0.Add(100*time.Millisecond+stall(r)), t0
	for now.Sub(t0) < span {
		now = now.Add(100 * time.Millisecond)
		for !next.After(now) {
			l.SeenAt(1, next)
			next = next.Add(100*time.Millisecond + stall(r))
		}
		if lost := l.Check(prev, now); len(lost) > 0 {
			false++
			l.Watch(1, "w")
			l.Peers[1].Model.Last = now
		}
		prev = now
	}
	stop := now
	for {
		now = now.Add(100 * time.Millisecond)
		if lost := l.Check(prev, now); len(lost) > 0 {
			return false, now.Sub(stop)
		}
		prev = now
	}
}

// TestControlPlaneModel runs the model at 1 000, 10 000 and 100 000
// workers and checks its invariants: no coordinator and not the submitter
// serves more than jobs.MaxGroupSize children, the submitter's rows per
// second grow with the workers only when coordinators forward rows, and
// the detector raises no false failure under the load model while naming a
// stopped peer within HeartbeatTimeout.
func TestControlPlaneModel(t *testing.T) {
	p := defaultSim
	costs := map[int]time.Duration{}
	cost := func(rows int) time.Duration {
		if c, ok := costs[rows]; ok {
			return c
		}
		// Measured for a few sizes, linear between them.
		for _, k := range []int{1, 32, 1024} {
			if _, ok := costs[k]; !ok {
				costs[k] = decodeCost(k)
			}
		}
		if rows <= 32 {
			return costs[1] + time.Duration(float64(costs[32]-costs[1])*float64(rows-1)/31)
		}
		return costs[32] + time.Duration(float64(costs[1024]-costs[32])*float64(rows-32)/992)
	}
	row := msgLen(MsgStatus, []solve.NodeStatus{simStatus(1), simStatus(2)}) - msgLen(MsgStatus, []solve.NodeStatus{simStatus(1)})
	memberLen := msgLen(MsgAssign, GroupAssign{Members: []Member{simMember(1), simMember(2)}}) - msgLen(MsgAssign, GroupAssign{Members: []Member{simMember(1)}})
	var b strings.Builder
	fmt.Fprintf(&b, "status row %d B, assignment member %d B; decode of a status message: 1 row %v, 32 rows %v, 1024 rows %v\n",
		row, memberLen, cost(1), cost(32), cost(1024))
	for _, n := range []int{1000, 10000, 100000} {
		tr := simTree{n: n, levels: Levels(simGroups(n)), rowLen: row, cost: cost}
		top := tr.levels[len(tr.levels)-1]
		if len(top) > jobs.MaxGroupSize && len(tr.levels) > 1 {
			t.Errorf("%d workers: the submitter serves %d coordinators", n, len(top))
		}
		start, largest := tr.startup(p, memberLen)
		end, endMsgs := tr.ending(p)
		fmt.Fprintf(&b, "\n%d workers: %s; start-up waves %v, largest assignment %.1f MB; end of run %v, %d messages\n",
			n, DescribeLevels(tr.levels), start.Round(time.Millisecond), float64(largest)/1e6, end, endMsgs)
		for _, hz := range []float64{10, 1} {
			name := "every row at 10 Hz (as built)"
			if hz < 10 {
				name = "rows at 1 Hz, a summary per group at 10 Hz"
			}
			fmt.Fprintf(&b, "%s:\n| role | nodes | control links | messages in /s | bytes in /s | cores to take them |\n|---|---|---|---|---|---|\n", name)
			for _, r := range tr.telemetry(p, hz) {
				fmt.Fprintln(&b, r)
			}
		}
		// The flat runtime of today: the submitter talks to every group.
		flat := simTree{n: n, levels: [][]jobs.Group{tr.levels[0]}, rowLen: row, cost: cost}
		sub := flat.telemetry(p, 10)
		s := sub[len(sub)-1]
		fmt.Fprintf(&b, "flat (every group's coordinator to the submitter): %d links, %.0f messages/s, %s, %.3f cores\n",
			s.links, s.msgsIn, bytesPerSec(s.bytsIn), s.cpu)
	}
	// Where each role saturates: one core busy taking messages, or its
	// control NIC full.
	for _, hz := range []float64{10, 1} {
		for _, role := range []string{"submitter", "top coordinator"} {
			sat := 0
			for n := 1024; n <= 1<<26 && sat == 0; n = n * 5 / 4 {
				// Only the number of groups matters here: coordinators
				// without their workers' names.
				gs := make([]jobs.Group, (n+31)/32)
				for i := range gs {
					gs[i].Coordinator = strconv.Itoa(i)
				}
				tr := simTree{n: n, levels: Levels(gs), rowLen: row, cost: cost}
				ls := tr.telemetry(p, hz)
				r := ls[len(ls)-1]
				if role != "submitter" {
					r = ls[len(ls)-2]
				}
				if r.cpu >= 1 || r.bytsIn >= p.linkBytes {
					sat = n
				}
			}
			fmt.Fprintf(&b, "rows at %.0f Hz: the %s saturates at about %d workers\n", hz, role, sat)
		}
	}
	// The detector under load: delays of 0–50 ms mostly, a stall of up to
	// 2.5 s one arrival in 50 (an oversubscribed machine).
	loaded := func(r *rand.Rand) time.Duration {
		if r.IntN(50) == 0 {
			return time.Duration(r.Int64N(int64(2500 * time.Millisecond)))
		}
		return time.Duration(r.Int64N(int64(50 * time.Millisecond)))
	}
	quiet := func(r *rand.Rand) time.Duration { return time.Duration(r.Int64N(int64(20 * time.Millisecond))) }
	// Overloaded: a stall of up to 8 s one arrival in 200.
	overloaded := func(r *rand.Rand) time.Duration {
		if r.IntN(200) == 0 {
			return time.Duration(r.Int64N(int64(8 * time.Second)))
		}
		return loaded(r)
	}
	for _, m := range []struct {
		name  string
		stall func(*rand.Rand) time.Duration
	}{{"quiet", quiet}, {"loaded", loaded}, {"overloaded", overloaded}} {
		falses, worst, total := 0, time.Duration(0), time.Duration(0)
		const peers = 32
		for i := range peers {
			f, d := phiSim(m.stall, 10*time.Minute, uint64(i))
			falses += f
			worst, total = max(worst, d), total+d
		}
		fmt.Fprintf(&b, "\ndetector, %s: %d false failures in %d peer-minutes; a stopped peer named after %v on average, %v at worst\n",
			m.name, falses, peers*10, (total / peers).Round(time.Millisecond), worst.Round(time.Millisecond))
		if worst > HeartbeatTimeout+200*time.Millisecond {
			t.Errorf("%s: a stopped peer took %v to be named", m.name, worst)
		}
		if m.name != "overloaded" && falses > 0 {
			t.Errorf("%s: %d false failures", m.name, falses)
		}
	}
	if math.IsNaN(float64(cost(32))) {
		t.Fatal("no cost")
	}
	t.Log("\n" + b.String())
}
