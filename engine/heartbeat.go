package engine

import (
	"sync"
	"time"

	"github.com/gridtui/gridtui/rmnp"
)

// Heartbeats on the control plane. Every node sends its parent a message
// (a status, or a heartbeat when it has nothing new) at least every
// HeartbeatInterval, and every coordinator and the submitter do the same
// towards their children. A peer silent for HeartbeatTimeout is declared
// lost: that catches a process that is stopped (SIGSTOP) or hung, and a
// network cut that TCP would only notice after minutes. A process that dies
// closes its sockets, and the PeerDown event of rmnp reports it at once.
//
// A worker gives its parent ParentTimeout, longer than HeartbeatTimeout, so
// that when a coordinator hangs the submitter names it before its workers
// give up on it and exit (which would otherwise look like their failure).
//
// A watcher that was itself not scheduled for a while (a loaded machine)
// could not have heard anyone: when its own tick comes more than stallGrace
// late, every watched peer is given a fresh start instead of being declared
// lost.
const (
	HeartbeatInterval = 250 * time.Millisecond
	HeartbeatTimeout  = 2200 * time.Millisecond
	ParentTimeout     = 4 * time.Second
	stallGrace        = 500 * time.Millisecond
)

// liveness tracks when each watched peer was last heard from.
type liveness struct {
	mu      sync.Mutex
	last    map[rmnp.PeerID]time.Time
	names   map[rmnp.PeerID]string
	limit   map[rmnp.PeerID]time.Duration
	timeout time.Duration
}

func newLiveness(timeout time.Duration) *liveness {
	return &liveness{last: map[rmnp.PeerID]time.Time{}, names: map[rmnp.PeerID]string{},
		limit: map[rmnp.PeerID]time.Duration{}, timeout: timeout}
}

// watch starts watching id (named name), as if just heard from.
func (l *liveness) watch(id rmnp.PeerID, name string) { l.watchFor(id, name, l.timeout) }

// watchFor watches id with its own timeout.
func (l *liveness) watchFor(id rmnp.PeerID, name string, timeout time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last[id] = time.Now()
	l.names[id] = name
	l.limit[id] = timeout
}

// unwatch stops watching id.
func (l *liveness) unwatch(id rmnp.PeerID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.last, id)
	delete(l.names, id)
	delete(l.limit, id)
}

// reset stops watching every peer.
func (l *liveness) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.last)
	clear(l.names)
	clear(l.limit)
}

// seen records that id was heard from now; unwatched peers are ignored.
func (l *liveness) seen(id rmnp.PeerID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.last[id]; ok {
		l.last[id] = time.Now()
	}
}

// excuse restarts every watched peer's clock at now (the watcher stalled).
func (l *liveness) excuse(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id := range l.last {
		l.last[id] = now
	}
}

// check returns the peers lost at now, unless the watcher's previous
// check, at prev, is so long ago that the watcher itself was stalled.
func (l *liveness) check(prev, now time.Time) []lostPeer {
	if !prev.IsZero() && now.Sub(prev) > stallGrace {
		l.excuse(now)
		return nil
	}
	return l.expired(now)
}

// lostPeer is a watched peer that went silent.
type lostPeer struct {
	ID     rmnp.PeerID
	Name   string
	Silent time.Duration
}

// expired returns the peers silent for longer than the timeout at now and
// stops watching them, so each is reported once.
func (l *liveness) expired(now time.Time) []lostPeer {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []lostPeer
	for id, t := range l.last {
		if d := now.Sub(t); d > l.limit[id] {
			out = append(out, lostPeer{ID: id, Name: l.names[id], Silent: d})
			delete(l.last, id)
			delete(l.names, id)
			delete(l.limit, id)
		}
	}
	return out
}

// name returns the watched peer's name and whether it is watched.
func (l *liveness) name(id rmnp.PeerID) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, ok := l.names[id]
	return n, ok
}
