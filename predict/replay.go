package predict

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/gridtui/gridtui/jobs"
)

// maxReplay bounds the sweeps replayed per node: past it the run is in its
// steady state and the replay's rates are extrapolated to the iteration
// count, so a 1024-node prediction stays well under a second.
const maxReplay = 1000

// Job is what a prediction is for: the scheme, the cores per node and the
// neighbour graph of the decomposition.
type Job struct {
	Scheme jobs.Scheme `json:"scheme"`
	Cores  int         `json:"cores"` // per node; < 1 counts as 1
	// Graph lists each rank's neighbours, as the application's Define
	// laid them out; nil: a chain (slabs: rank r's neighbours r ± 1).
	Graph [][]int `json:"-"`
}

// Chain is the neighbour graph of n slabs in a row.
func Chain(n int) [][]int {
	g := make([][]int, n)
	for i := range g {
		if i > 0 {
			g[i] = append(g[i], i-1)
		}
		if i < n-1 {
			g[i] = append(g[i], i+1)
		}
	}
	return g
}

// edge is one directed link of the replay.
type edge struct {
	to       int
	async    bool
	transfer float64 // seconds on the wire for one iteration's traffic
	latency  float64
	busy     float64 // the previous message is in flight until then
	// wire is the link between two clusters this edge shares with the
	// other neighbour pairs across them (nil inside a cluster): its
	// messages go through it one after another.
	wire    *wire
	updates int // messages delivered (asynchronous links)
}

// wire is a link between two clusters: the intervals it is busy, in order.
type wire struct{ busy [][2]float64 }

// reserve books the wire for d seconds from the first time at or after t
// it is free that long, and returns the end.
func (w *wire) reserve(t, d float64) float64 {
	at := 0
	for ; at < len(w.busy); at++ {
		b := w.busy[at]
		if t+d <= b[0] {
			break
		}
		t = max(t, b[1])
	}
	w.busy = slices.Insert(w.busy, at, [2]float64{t, t + d})
	return t + d
}

// prune forgets the intervals that end before t: no message is sent
// before it any more.
func (w *wire) prune(t float64) {
	i := 0
	for i < len(w.busy) && w.busy[i][1] < t {
		i++
	}
	w.busy = w.busy[i:]
}

// replay is the discrete-event state of a run: per node, the time it is
// ready for its next sweep and its mean sweep time; per link, the arrival
// of the last halo.
type replay struct {
	sweep  []float64 // mean sweep time per node
	points []int     // grid points per node
	cores  int       // per node
	cont   float64   // the sharing of the host's cores (1: none)
	spread []float64
	out    [][]*edge
	in     [][]int // for node i, the sync neighbours whose halo it waits for
	ready  []float64
	idle   []float64
	rng    *rand.Rand
}

// newReplay lays the job out on the platform: ranks fill the clusters in
// order, a link inside a cluster uses its network, others the network
// between clusters; hybrid makes the latter asynchronous.
func newReplay(m *Model, pl Platform, job Job) (*replay, error) {
	n := pl.Nodes()
	if n < 1 {
		return nil, fmt.Errorf("%w: no nodes", ErrPlatform)
	}
	g := job.Graph
	if g == nil {
		g = Chain(n)
	}
	if len(g) != n {
		return nil, fmt.Errorf("%w: graph of %d ranks for %d nodes", ErrPlatform, len(g), n)
	}
	cluster := make([]int, 0, n)
	for c, cl := range pl.Clusters {
		for range cl.Nodes {
			cluster = append(cluster, c)
		}
	}
	cores := max(job.Cores, 1)
	cont := 1.0
	if pl.SharedCores > 0 {
		cont = max(1, float64(n*cores)/float64(pl.SharedCores))
	}
	pointSeconds := m.PointSeconds
	if ps, ok := m.SchemePointSeconds[job.Scheme]; ok && ps > 0 {
		pointSeconds = ps
	}
	delay := m.ExchangeDelay.At(cont)
	r := &replay{sweep: make([]float64, n), points: make([]int, n), cores: cores, cont: cont, spread: m.Spread, out: make([][]*edge, n), in: make([][]int, n),
		ready: make([]float64, n), idle: make([]float64, n), rng: rand.New(rand.NewPCG(1, 2))}
	wires := map[[2]int]*wire{} // one per ordered pair of clusters
	for i := range n {
		points := m.Points / n
		if i < m.Points%n {
			points++
		}
		r.points[i] = points
		r.sweep[i] = pointSeconds * float64(points) / float64(cores) * cont
		for _, j := range g[i] {
			if j < 0 || j >= n || j == i {
				return nil, fmt.Errorf("%w: rank %d has neighbour %d (of %d ranks)", ErrPlatform, i, j, n)
			}
			name := pl.Between
			if cluster[i] == cluster[j] {
				name = pl.Clusters[cluster[i]].Network
			}
			net, err := pl.network(name)
			if err != nil {
				return nil, err
			}
			async := job.Scheme == jobs.Asynchronous || job.Scheme == jobs.Hybrid && cluster[i] != cluster[j]
			ed := &edge{to: j, async: async, latency: net.Latency.Seconds() + delay,
				transfer: net.transfer(m.LinkBytes) - net.Latency.Seconds()}
			if cluster[i] != cluster[j] {
				ed.wire = wires[[2]int{cluster[i], cluster[j]}]
				if ed.wire == nil {
					ed.wire = &wire{}
					wires[[2]int{cluster[i], cluster[j]}] = ed.wire
				}
			}
			r.out[i] = append(r.out[i], ed)
			if !async {
				r.in[j] = append(r.in[j], i)
			}
		}
	}
	return r, nil
}

// pruneWires forgets the wires' intervals that end before every node is
// ready.
func (r *replay) pruneWires() {
	low := r.ready[0]
	for _, t := range r.ready {
		low = min(low, t)
	}
	for i := range r.out {
		for _, ed := range r.out[i] {
			if ed.wire != nil {
				ed.wire.prune(low)
			}
		}
	}
}

// draw is one sweep's compute time on node i, drawn from the traced spread.
func (r *replay) draw(i int) float64 {
	if len(r.spread) == 0 {
		return r.sweep[i]
	}
	return r.sweep[i] * r.spread[r.rng.IntN(len(r.spread))]
}

// run replays k sweeps on every node. Sweep s of a node starts when the node
// is ready and every synchronous neighbour's halo of sweep s−1 has arrived
// (GRIDHPC's synchronous exchange); then it sends one message per link, one
// after another; the neighbour pairs across the same two clusters share
// the link between them, one message at a time. On an asynchronous link a send is skipped while the
// previous message is still in flight (AIAC). It returns each node's time
// after its k-th sweep.
func (r *replay) run(k int) []float64 {
	n := len(r.sweep)
	prev := make([][]float64, n) // arrival of i's halo of the last sweep at each out edge
	cur := make([][]float64, n)
	for i := range n {
		prev[i] = make([]float64, len(r.out[i]))
		cur[i] = make([]float64, len(r.out[i]))
	}
	arrival := func(from, to int, halos [][]float64) float64 {
		for e, ed := range r.out[from] {
			if ed.to == to {
				return halos[from][e]
			}
		}
		return 0
	}
	for s := range k {
		r.pruneWires()
		for i := range n {
			start := r.ready[i]
			if s > 0 {
				for _, j := range r.in[i] {
					start = max(start, arrival(j, i, prev))
				}
			}
			r.idle[i] += start - r.ready[i]
			t := start + r.draw(i)
			for e, ed := range r.out[i] {
				if ed.async && ed.busy > t {
					continue // skipped: the previous message is in flight
				}
				if ed.wire != nil {
					// The link between the clusters carries one message at
					// a time: the sender waits for it (TCP's backpressure).
					t = ed.wire.reserve(t, ed.transfer)
				} else {
					t += ed.transfer
				}
				ed.busy = t + ed.latency
				cur[i][e] = ed.busy
				ed.updates++
			}
			r.ready[i] = t
		}
		prev, cur = cur, prev
	}
	return r.ready
}

// staleness is the mean halo age over the asynchronous links after k
// sweeps: the receiver's sweeps per delivered update, minus one; 0 without
// asynchronous links.
func (r *replay) staleness(k int) float64 {
	var ages []float64
	for i := range r.out {
		for _, ed := range r.out[i] {
			if ed.async && ed.updates > 0 {
				ages = append(ages, max(0, float64(k)/float64(ed.updates)-1))
			}
		}
	}
	return mean(ages)
}

// round is the interval between two updates delivered over the slowest
// asynchronous link, given each node's time after its replayed sweeps; 0
// without asynchronous links.
func (r *replay) round(ends []float64) float64 {
	round := 0.0
	for i := range r.out {
		for _, ed := range r.out[i] {
			if ed.async && ed.updates > 0 {
				round = max(round, ends[i]/float64(ed.updates))
			}
		}
	}
	return round
}
