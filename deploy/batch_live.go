package deploy

import "sync"

// liveKey names the allocation of one run at one site.
type liveKey struct {
	run  [16]byte
	site string
}

// live lists the granted allocations that still hold workers, by run and
// site, so that a later StartWorkers of the same run starts its steps in
// them (joinLive).
var live = struct {
	sync.Mutex
	m map[liveKey]*allocation
}{m: map[liveKey]*allocation{}}

// register lists a granted allocation as its run's at its site.
func (a *allocation) register() {
	live.Lock()
	live.m[a.key] = a
	live.Unlock()
}

// unregister removes a from the list, if it is there.
func (a *allocation) unregister() {
	live.Lock()
	if live.m[a.key] == a {
		delete(live.m, a.key)
	}
	live.Unlock()
}

// joinLive returns the live allocation of key that holds node, counting
// one more worker of it, or nil when there is none (none granted, its last
// worker gone, or node outside it).
func joinLive(key liveKey, node string) *allocation {
	live.Lock()
	a := live.m[key]
	live.Unlock()
	if a == nil || !containsAll(a.nodes, []string{node}) {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	a.users++
	return a
}
