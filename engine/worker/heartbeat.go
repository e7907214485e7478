package worker

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/gridtui/gridtui/rmnp"
)

// Heartbeats on the control plane. Every node sends its parent a message
// (a status, or a heartbeat when it has nothing new) at least every
// HeartbeatInterval (downInterval while it starts), and every coordinator
// and the submitter send their children a heartbeat every downInterval.
// They travel on the control endpoint, whose
// connections, reader goroutines and receive loop are not the data plane's:
// a backlog of halos never queues in front of them, and the receive loops
// that note their arrival never block on a send (coordinators forward up
// through a queue of their own).
//
// A process that dies closes its sockets, and the PeerDown event of rmnp
// reports it at once. A process that is stopped (SIGSTOP) or hung, or a
// network cut that TCP would only notice after minutes, is caught by an
// adaptive detector: the φ-accrual detector of Hayashibara et al. (as Akka
// and Cassandra use it) over the inter-arrival times of each watched peer's
// messages. φ is the suspicion that the current silence is not the usual
// jitter: −log10 of the probability, under a normal law fitted to the last
// arrivals, that a message comes this late, counting only the part of the
// silence beyond the longest pause the peer took recently (Akka's
// acceptable heartbeat pause, learnt). A loaded machine or a saturated link
// stretches the arrivals, the fit and the pause grow with them, and the
// detector waits longer before it accuses; on a quiet one it accuses as
// soon as the floor allows.
//
// The bound: a watched peer is declared lost when its silence exceeds
// SuspectAfter and φ exceeds PhiThreshold, or in any case when its
// silence exceeds HeartbeatTimeout. A hung peer is therefore named after at
// most HeartbeatTimeout of silence plus one check (100 ms), never before
// SuspectAfter. A peer judged this way is judged from a wider prior
// (intervals of one and four HeartbeatIntervals) until its own arrivals
// outweigh it, and by the bound alone until its first message.
//
// Start-up is judged apart. A peer that has not completed its start-up —
// a worker not yet linked to its neighbours, a coordinator some node of
// whose subtree is still starting, a parent before the whole run has
// started — is lost only after StartupTimeout of silence (twice that when
// the watcher's host is crowded), in wall time
// and whatever the watcher's own stalls: when a thousand processes start
// on a few cores, a live one can go unscheduled for longer than
// HeartbeatTimeout, and its silence then proves nothing. The watcher is
// told when the peer's start-up is over (startedPeer): by the statuses of
// its subtree (a child), or by a flag on its heartbeats (a parent: the
// submitter sets it once every node of the run has started, and each
// coordinator passes it down once its parent did).
//
// A silence ends when a message of the peer reaches the watcher's control
// endpoint (rmnp's HeardAt), not only when the watcher's receive loop takes
// it: a watcher that runs behind (a coordinator on a crowded host, with 31
// members' messages queued) would otherwise measure silences that grow with
// its own backlog.
//
// A worker gives its parent ParentTimeout, longer than HeartbeatTimeout, so
// that when a coordinator hangs the submitter names it before its workers
// give up on it and exit (which would otherwise look like their failure).
//
// A watcher that was itself not scheduled for a while (a loaded machine)
// could not have heard anyone: when its own tick comes more than stallGrace
// late and no peer at all was heard meanwhile, every watched peer is given
// a fresh start instead of being declared lost — up to excuseLimit × its timeout of wall-clock silence, after which
// it is lost however starved the watcher is (30 s for a worker or a
// coordinator, 36 s for a parent). A tick merely late (by lateCheck) says the watcher's machine is
// overloaded: for the next overloadMemory only the bound accuses, since the
// watcher's own receive path may be what is slow.
//
// A host oversubscribed beyond any real grid's use — its 1-minute load
// average above crowdFactor times its CPUs, as when a thousand one-core
// workers share two cores — leaves a live process unscheduled for longer
// than HeartbeatTimeout while its watcher, at a higher priority, keeps its
// ticks: neither φ nor the late-tick rule can tell. A watcher on such a
// host judges by the hard bound alone (excuseLimit × the timeout: 30 s, 36
// s for a parent); on a single-host grid its peers share its load.
const (
	HeartbeatInterval = 250 * time.Millisecond
	// DownInterval paces the heartbeats a parent sends its children, and
	// a starting worker's heartbeats up: a parent and a starting peer are
	// judged by fixed bounds (ParentTimeout, StartupTimeout), not by φ,
	// so a second is plenty, and a coordinator of 32 spends a quarter of
	// the messages on them (on a crowded host, its share of the CPU is
	// what it has to keep up with its children).
	DownInterval     = time.Second
	SuspectAfter     = 5 * time.Second
	HeartbeatTimeout = 10 * time.Second
	ParentTimeout    = 12 * time.Second
	StartupTimeout   = 30 * time.Second
	// crowdedStartup is StartupTimeout for a watcher whose host is
	// crowded: there a starting member, 14 nicer than the console among
	// thousands of runnable threads, was seen to take its task, link and
	// say so only after StartupTimeout had passed, while alive.
	crowdedStartup = 2 * StartupTimeout
	PhiThreshold   = 8.0
	stallGrace     = 500 * time.Millisecond
	// CheckInterval is how often nodes and the submitter check their
	// peers; a check lateCheck late marks the watcher overloaded for
	// overloadMemory.
	CheckInterval  = 100 * time.Millisecond
	lateCheck      = 150 * time.Millisecond
	overloadMemory = time.Minute
	// ExcuseLimit bounds the excuses: a peer silent for that many times its
	// timeout, in wall time, is lost even if the watcher kept stalling.
	ExcuseLimit = 3
	// crowdFactor is the load average per CPU above which a host is
	// crowded (judged by the hard bound alone); the load is read at most
	// every crowdRefresh.
	crowdFactor  = 64
	crowdRefresh = 2 * time.Second
)

// Parameters of the arrival model.
const (
	// arrivalHistory is how many inter-arrival times the fit remembers:
	// about a minute of a computing peer's telemetry (10 Hz), two of its
	// heartbeats (4 Hz), so that the stalls of a loaded machine are still
	// in the fit when the next one comes.
	arrivalHistory = 512
	// minDeviation keeps φ finite and sane when arrivals are very regular
	// (a standard deviation near 0 would make any delay infinitely
	// suspicious).
	minDeviation = 100 * time.Millisecond
)

// arrivals is the φ-accrual model of one peer: a ring of its last
// inter-arrival times with their running sums, plus a prior.
type arrivals struct {
	Last      time.Time               // the silence's start: an arrival, or the watcher's excuse
	heardAt   time.Time               // the last arrival (or the start of the watch), never excused
	ring      [arrivalHistory]float64 // seconds
	n, next   int
	sum, sum2 float64 // of the ring and the prior
}

// prior is two pseudo-intervals, HeartbeatInterval and four times that,
// that stay in the fit: a wider law at first, so that the first silences of
// a peer (its start-up, on a machine that may be loaded) are judged
// leniently until its real arrivals outweigh the prior.
var prior = [...]float64{HeartbeatInterval.Seconds(), 4 * HeartbeatInterval.Seconds()}

func newArrivals(now time.Time) *arrivals {
	a := &arrivals{Last: now, heardAt: now}
	for _, x := range prior {
		a.sum += x
		a.sum2 += x * x
	}
	return a
}

func (a *arrivals) add(x float64) {
	if a.n == arrivalHistory {
		old := a.ring[a.next]
		a.sum -= old
		a.sum2 -= old * old
	} else {
		a.n++
	}
	a.ring[a.next] = x
	a.next = (a.next + 1) % arrivalHistory
	a.sum += x
	a.sum2 += x * x
}

// heard records an arrival at now.
func (a *arrivals) heard(now time.Time) {
	if d := now.Sub(a.Last); d > 0 {
		a.add(d.Seconds())
	}
	a.Last, a.heardAt = now, now
}

// longest is the longest real interval in the history (0 if none): the
// pause the peer has shown it can take and still be alive.
func (a *arrivals) longest() float64 {
	m := 0.0
	for _, x := range a.ring[:a.n] {
		m = max(m, x)
	}
	return m
}

// phi is the suspicion level at now: −log10 of the probability that the
// next arrival comes later than now, under the normal law fitted to the
// history and the prior (with the logistic approximation of its tail that
// Akka uses), for the part of the silence beyond the longest pause of the
// history. Stalls are heavy-tailed (a loaded machine runs a process, then
// not at all for seconds): the normal law alone, fitted to many prompt
// arrivals, would find the next stall incredible; the longest pause seen
// is what Akka's acceptable heartbeat pause is, learnt instead of set.
func (a *arrivals) phi(now time.Time) float64 {
	k := float64(a.n + len(prior))
	mean := a.sum / k
	v := a.sum2/k - mean*mean
	sd := math.Max(math.Sqrt(math.Max(v, 0)), minDeviation.Seconds())
	y := (now.Sub(a.Last).Seconds() - a.longest() - mean) / sd
	e := math.Exp(-y * (1.5976 + 0.070566*y*y))
	if y > 0 {
		return -math.Log10(e / (1 + e))
	}
	return -math.Log10(1 - 1/(1+e))
}

// watchLimits are the silences between which a peer may be declared lost.
type watchLimits struct {
	suspect time.Duration // never lost before this silence
	timeout time.Duration // always lost after it
}

// Liveness is the failure detector of a node (or of the submitter): the
// arrival model of each watched peer.
type Liveness struct {
	mu     sync.Mutex
	Peers  map[rmnp.PeerID]*watched
	limits watchLimits
	// overloaded is until when the watcher holds its own machine for
	// overloaded (a check came late, though not stalled): its receive path
	// is as starved as its ticks, and its peers' silences prove less.
	overloaded time.Time
	// anyHeard is the last arrival from any watched peer: a watcher that
	// heard someone during its own late check was not deaf.
	anyHeard time.Time
	// crowded reports whether the watcher's host is crowded at now (nil:
	// never, as in tests of the detector's arithmetic).
	crowded func(now time.Time) bool
	// arrived, when set, returns when the peer's last message reached this
	// process (read off its link), taken or not (rmnp's HeardAt): a peer
	// whose message waits in the watcher's queue is not silent, however far
	// behind the watcher's receive loop runs.
	arrived func(rmnp.PeerID) time.Time
}

type watched struct {
	name     string
	limits   watchLimits
	Model    *arrivals
	starting bool // judged by StartupTimeout only, until startedPeer
}

func NewLiveness(l watchLimits) *Liveness {
	return &Liveness{Peers: map[rmnp.PeerID]*watched{}, limits: l}
}

// NewHostLiveness is the detector of a process: newLiveness, knowing when
// its host is crowded.
func NewHostLiveness(l watchLimits) *Liveness {
	live := NewLiveness(l)
	live.crowded = HostCrowded
	return live
}

// HeardBy makes the detector count the messages that reached ep but wait
// to be taken (rmnp's HeardAt) as signs of life.
func (l *Liveness) HeardBy(ep *rmnp.Endpoint) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.arrived = ep.HeardAt
}

// crowd caches whether this host is crowded.
var crowd struct {
	sync.Mutex
	at      time.Time
	crowded bool
}

// HostCrowded reports whether this host's 1-minute load average exceeds
// crowdFactor times its CPUs, reading it at most every crowdRefresh.
func HostCrowded(now time.Time) bool {
	crowd.Lock()
	defer crowd.Unlock()
	if !crowd.at.IsZero() && now.Sub(crowd.at) < crowdRefresh {
		return crowd.crowded
	}
	crowd.at = now
	if avg := hostLoad(); avg != nil {
		crowd.crowded = *avg > crowdFactor*float64(runtime.NumCPU())
	}
	return crowd.crowded
}

// childLimits are the limits of a node's children (and the submitter's
// coordinators); parentLimits those of a worker's parent.
var (
	ChildLimits  = watchLimits{suspect: SuspectAfter, timeout: HeartbeatTimeout}
	parentLimits = watchLimits{suspect: ParentTimeout, timeout: ParentTimeout}
)

// Watch starts watching id (named name), as if just heard from.
func (l *Liveness) Watch(id rmnp.PeerID, name string) { l.WatchFor(id, name, l.limits) }

// WatchFor watches id with its own limits.
func (l *Liveness) WatchFor(id rmnp.PeerID, name string, lim watchLimits) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Peers[id] = &watched{name: name, limits: lim, Model: newArrivals(time.Now())}
}

// WatchStarting watches id, which is starting: it is judged by
// StartupTimeout alone until startedPeer(id), then with lim.
func (l *Liveness) WatchStarting(id rmnp.PeerID, name string, lim watchLimits) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Peers[id] = &watched{name: name, limits: lim, Model: newArrivals(time.Now()), starting: true}
}

// StartedPeer records that id completed its start-up: from now on the
// adaptive detector and its limits judge it. It reports whether id was
// watched and starting.
func (l *Liveness) StartedPeer(id rmnp.PeerID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.Peers[id]
	if !ok || !w.starting {
		return false
	}
	w.starting = false
	return true
}

// unwatch stops watching id.
func (l *Liveness) unwatch(id rmnp.PeerID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.Peers, id)
}

// reset stops watching every peer.
func (l *Liveness) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.Peers)
}

// Seen records that id was heard from now; unwatched peers are ignored.
func (l *Liveness) Seen(id rmnp.PeerID) { l.SeenAt(id, time.Now()) }

func (l *Liveness) SeenAt(id rmnp.PeerID, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w, ok := l.Peers[id]; ok {
		w.Model.heard(now)
		l.anyHeard = now
	}
}

// excuse restarts every watched peer's silence at now (the watcher
// stalled), without counting the stall as an interval.
func (l *Liveness) excuse(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.Peers {
		w.Model.Last = now
	}
}

// Check returns the peers lost at now. A check late since the previous one,
// at prev, marks the watcher overloaded; one so late that the watcher was
// stalled, and heard nobody meanwhile, excuses every peer.
func (l *Liveness) Check(prev, now time.Time) []LostPeer {
	if prev.IsZero() || now.Sub(prev) <= CheckInterval+lateCheck {
		return l.expired(now)
	}
	l.mu.Lock()
	l.overloaded = now.Add(overloadMemory)
	deaf := now.Sub(prev) > stallGrace && !l.anyHeard.After(prev)
	l.mu.Unlock()
	if deaf {
		l.excuse(now)
	}
	return l.expired(now) // after an excuse, only its own bound can accuse
}

// LostPeer is a watched peer that went silent.
type LostPeer struct {
	ID     rmnp.PeerID
	Name   string
	Silent time.Duration
	Phi    float64
	// Starting says the peer had not completed its start-up (judged by
	// StartupTimeout alone).
	Starting bool
}

// SilentCause begins the cause a peer lost to silence is reported with.
const SilentCause = "no heartbeat for "

// Silence is the cause a lost peer is reported with.
func (p LostPeer) Silence() string {
	if p.Starting {
		return fmt.Sprintf(SilentCause+"%.1fs during its start-up (hung, stopped or cut off)", p.Silent.Seconds())
	}
	return fmt.Sprintf(SilentCause+"%.1fs, φ %.1f (hung, stopped or cut off)", p.Silent.Seconds(), min(p.Phi, 99))
}

// expired returns the peers lost at now and stops watching them, so each
// is reported once. A peer is never named while a message of its that
// arrived within the bound it is judged by waits to be taken: a watcher
// whose receive loop runs behind (a crowded host) measures silences that
// grow with its backlog, not with the peer's.
func (l *Liveness) expired(now time.Time) []LostPeer {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []LostPeer
	crowded := l.crowded != nil && l.crowded(now)
	for id, w := range l.Peers {
		if p, lost := l.judge(id, w, now, crowded); lost {
			out = append(out, p)
			delete(l.Peers, id)
		}
	}
	return out
}

// judge decides whether the watched peer id is lost at now. Called with
// l.mu held.
func (l *Liveness) judge(id rmnp.PeerID, w *watched, now time.Time, crowded bool) (LostPeer, bool) {
	if w.starting {
		// Start-up: the hard bound, in wall time, no excuse, no φ.
		bound := StartupTimeout
		if crowded {
			bound = crowdedStartup
		}
		if wall := now.Sub(w.Model.heardAt); wall > bound && !l.queued(id, w, now, bound) {
			return LostPeer{ID: id, Name: w.name, Silent: wall, Starting: true}, true
		}
		return LostPeer{}, false
	}
	// However often the watcher stalls and excuses, a peer silent for
	// excuseLimit times its bound is lost.
	if wall := now.Sub(w.Model.heardAt); wall > ExcuseLimit*w.limits.timeout {
		if l.queued(id, w, now, ExcuseLimit*w.limits.timeout) {
			return LostPeer{}, false
		}
		return LostPeer{ID: id, Name: w.name, Silent: wall, Phi: w.Model.phi(now)}, true
	}
	if crowded {
		return LostPeer{}, false // a crowded host: the hard bound alone
	}
	silent := now.Sub(w.Model.Last)
	if silent <= w.limits.suspect {
		return LostPeer{}, false
	}
	// A peer not heard from yet: only the bound applies until its
	// first message.
	// On an overloaded watcher only the bound applies: φ's fit cannot
	// tell the peer's stall from the watcher's own.
	phi := w.Model.phi(now)
	suspect := phi >= PhiThreshold && w.Model.n > 0 && !now.Before(l.overloaded)
	if !suspect && silent <= w.limits.timeout {
		return LostPeer{}, false
	}
	bound := w.limits.timeout
	if suspect && silent <= w.limits.timeout {
		bound = w.limits.suspect
	}
	if l.queued(id, w, now, bound) {
		return LostPeer{}, false
	}
	return LostPeer{ID: id, Name: w.name, Silent: silent, Phi: phi}, true
}

// queued reports whether a message of id's that the watcher has not taken
// yet reached this process within bound of now.
func (l *Liveness) queued(id rmnp.PeerID, w *watched, now time.Time, bound time.Duration) bool {
	if l.arrived == nil {
		return false
	}
	at := l.arrived(id)
	return at.After(w.Model.heardAt) && now.Sub(at) <= bound
}

// name returns the watched peer's name and whether it is watched.
func (l *Liveness) name(id rmnp.PeerID) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.Peers[id]
	if !ok {
		return "", false
	}
	return w.name, true
}
