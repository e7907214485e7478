package exec

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// guestApp is the exec task inside the program's engine (link =
// "inprocess"): the worker's split and graph, and the program as the part.
type guestApp struct{ g *guest }

func (guestApp) Info() gridapp.Info {
	return gridapp.Info{Summary: "the program's own node (link = \"inprocess\")"}
}

func (guestApp) Params() []gridapp.Param { return nil }

// Define splits the items as App.Define does.
func (a guestApp) Define(_ gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	c := a.g.cfg
	ranges, err := gridapp.Split(c.Items, len(nodes))
	if err != nil {
		return gridapp.Task{}, err
	}
	t := gridapp.Task{Eps: c.Eps, MaxIter: c.MaxIter, Parts: make([]gridapp.PartSpec, len(nodes))}
	for r, rg := range ranges {
		t.Parts[r] = gridapp.PartSpec{Neighbours: neighbours(r, len(nodes), c.Ring), Size: rg.Len()*c.Unit + 1}
	}
	return t, nil
}

// NewPart hands the program its sub-task and waits for its first receive.
func (a guestApp) NewPart(_ gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	return newGuestPart(a.g, len(sub.Neighbours))
}

func (guestApp) Assemble(gridapp.Values, gridapp.Task, [][]float64) (gridapp.Result, error) {
	return gridapp.Result{}, nil
}

// guestPart is the program's loop as the engine's Part: Sweep hands the
// turn to the program until its next GRID_Iterate.
type guestPart struct {
	g       *guest
	out     [][]float64 // the program's send buffers, per neighbour
	halo    [][]float64 // its receive buffers
	fresh   []byte
	stash   *Request // a request taken before Sweep could answer it
	waiting bool     // the program waits in GRID_Iterate
	result  []float64
	sigma   float64
	iter    int
}

// newGuestPart mirrors newPart: GRID_Init returns, and the program must
// have sent its first values to every neighbour before its first receive.
func newGuestPart(g *guest, nb int) (*guestPart, error) {
	co := g.co
	co.SetSubtask(g.cfg.Subtask)
	r := co.Resume(answerGo)
	pt := &guestPart{g: g, sigma: math.NaN()}
	win, sent, fresh := co.Memory()
	pt.fresh = fresh
	halo := 0
	if nb > 0 {
		halo = len(win) / (16 * nb)
	}
	for i := range nb {
		pt.out = append(pt.out, floats(win[16*i*halo:], halo))
		pt.halo = append(pt.halo, floats(win[(16*i+8)*halo:], halo))
	}
	size := 0
	if rg, err := gridapp.Split(g.cfg.Items, g.cfg.Ranks); err == nil {
		size = rg[g.cfg.Rank].Len() * g.cfg.Unit
	}
	pt.result = make([]float64, size+1)
	if err := pt.check(&r); err != nil {
		return nil, err
	}
	if r.Call == callReceive {
		ranks := neighbours(g.cfg.Rank, g.cfg.Ranks, g.cfg.Ring)
		for i, ok := range sent {
			if ok == 0 {
				return nil, g.fault("called GRID_Receive before sending its first values to rank %d (send once before the loop, then after each sweep: see gridhpc.h)", ranks[i])
			}
		}
	}
	if r.Call == callResult {
		return nil, g.fault("called GRID_Result before GRID_Iterate returned 0 (the environment decides when the loop ends)")
	}
	pt.stash = &r
	return pt, nil
}

// floats views n float64 values from b's start.
func floats(b []byte, n int) []float64 {
	if n == 0 {
		return []float64{}
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), n)
}

// fault is the error of a program that broke the protocol, named by the
// worker (program and rank).
func (g *guest) fault(format string, a ...any) error {
	return &programAbort{rule: true, reason: fmt.Sprintf(format, a...)}
}

// check turns the program's GRID_Abort, a call gridhpc.c refused, or a
// GRID_Finalize out of turn into the run's failure.
func (pt *guestPart) check(r *Request) error {
	switch r.Call {
	case callAbort:
		return &programAbort{rule: r.Rule, reason: r.Reason}
	case callFinal:
		return pt.g.fault("called GRID_Finalize before the run ended")
	}
	return nil
}

// Sweep lets the program run one iteration and returns its σ.
func (pt *guestPart) Sweep() float64 {
	r := pt.stash
	pt.stash = nil
	switch {
	case r != nil && r.Call == callIterate: // it swept before its first receive
	default:
		pt.waiting = false
		rr := pt.g.co.Resume(answerGo)
		r = &rr
	}
	err := pt.check(r)
	switch {
	case err != nil:
	case r.Call == callResult:
		err = pt.g.fault("called GRID_Result before GRID_Iterate returned 0 (the environment decides when the loop ends)")
	case r.Call == callReceive:
		err = pt.g.fault("asked for its first halos twice (does it link this gridtui's gridhpc.c?)")
	}
	if err != nil {
		panic(gridapp.Failure{Err: err})
	}
	pt.waiting = true
	pt.iter++
	if pt.g.iters != nil {
		pt.g.iters.Store(uint64(pt.iter))
	}
	pt.sigma = r.Sigma
	return r.Sigma
}

func (pt *guestPart) Outgoing(i int) []float64 { return pt.out[i] }
func (pt *guestPart) Halo(i int) []float64     { return pt.halo[i] }
func (pt *guestPart) Received(i int)           { pt.fresh[i] = 1 }

// Result answers the program's last GRID_Iterate with "stop" and takes
// the values of its GRID_Result (answered once the worker has them).
func (pt *guestPart) Result() []float64 {
	r := pt.stash
	pt.stash = nil
	if r == nil || r.Call == callReceive {
		pt.g.stopping()
		rr := pt.g.co.Resume(answerStop)
		r = &rr
	}
	err := pt.check(r)
	n := len(pt.result) - 1
	switch {
	case err != nil:
	case r.Call != callResult:
		err = pt.g.fault("called call %d after GRID_Iterate returned 0, want GRID_Result", r.Call)
	case len(r.Values) != n:
		err = pt.g.fault("GRID_Result of %d values, want %d (its items × the job's unit)", len(r.Values), n)
	}
	if err != nil {
		panic(gridapp.Failure{Err: err})
	}
	copy(pt.result, r.Values)
	pt.result[n] = pt.sigma
	return pt.result
}

func (pt *guestPart) Close() {}
