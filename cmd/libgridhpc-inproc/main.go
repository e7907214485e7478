//go:build cgo

// Command libgridhpc-inproc is libgridhpc_inproc.so, the library a program's
// gridhpc.c loads when the job says link = "inprocess":
//
//	go build -buildmode=c-shared -o libgridhpc_inproc.so ./cmd/libgridhpc-inproc
//
// Its one export, gridhpc_serve, runs on a stack of its own in the
// program's thread (gridhpc_inproc.h): it makes the program the node's
// RMNP endpoint (apps/exec's ServeGuest) and switches back to the program
// whenever its loop must run.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../../apps/exec/gridhpc
#include <stdlib.h>
#include <string.h>
#include "gridhpc_inproc.h"

// gh_resume hands the turn to the program and returns when it hands it back.
static void gh_resume(struct gh_inproc *in, int status)
{
	in->status = status;
	swapcontext(&in->lib, &in->prog);
}

static void gh_set_subtask(struct gh_inproc *in, const void *b, size_t n)
{
	in->subtask = malloc(n);
	if (in->subtask) memcpy(in->subtask, b, n);
	in->subtask_len = in->subtask ? n : 0;
}
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"unsafe"

	"github.com/gridtui/gridtui/apps/exec"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/rmnp"
)

// coroutine is the program's thread behind gridhpc_inproc.h.
type coroutine struct{ in *C.struct_gh_inproc }

func (c coroutine) Resume(answer int) exec.Request {
	C.gh_resume(c.in, C.int(answer))
	in := c.in
	r := exec.Request{Call: int(in.call), Rule: in.rule != 0, Sigma: float64(in.sigma)}
	switch r.Call {
	case exec.CallResult:
		if in.count > 0 && in.values != nil {
			r.Values = unsafe.Slice((*float64)(unsafe.Pointer(in.values)), int(in.count))
		} else {
			r.Values = []float64{}
		}
	case exec.CallAbort:
		if in.reason != nil {
			r.Reason = C.GoString(in.reason)
		}
	}
	return r
}

func (c coroutine) SetSubtask(b []byte) {
	if len(b) == 0 {
		return
	}
	C.gh_set_subtask(c.in, unsafe.Pointer(&b[0]), C.size_t(len(b)))
}

func (c coroutine) Memory() (win, sent, fresh []byte) {
	in := c.in
	n := int(in.nneighbours)
	if in.win != nil && in.winsize > 0 {
		win = unsafe.Slice((*byte)(unsafe.Pointer(in.win)), int(in.winsize))
	}
	if n > 0 {
		sent = unsafe.Slice((*byte)(unsafe.Pointer(in.sent)), n)
		fresh = unsafe.Slice((*byte)(unsafe.Pointer(in.fresh)), n)
	}
	return win, sent, fresh
}

//export gridhpc_serve
func gridhpc_serve(in *C.struct_gh_inproc) C.int {
	if in.version != C.GH_INPROC_VERSION {
		fmt.Fprintf(os.Stderr, "gridhpc: gridhpc.c speaks the in-process version %d, this library %d: rebuild both from one gridtui\n", in.version, C.GH_INPROC_VERSION)
		return -2 // GRID_EPROTO
	}
	return C.int(exec.ServeGuest(int(in.fd), coroutine{in}, solveNode))
}

// solveNode is solve.Solve in apps/exec's terms.
func solveNode(ctx context.Context, ep *rmnp.Endpoint, n exec.Node, report func(exec.Status)) (exec.Solved, error) {
	// The program's own engine: no submitter defined its task, every rank
	// derives it alike from the application's parameters.
	parts, err := solve.DefineLocal(n.App, nil, n.Ranks, n.Cores)
	if err != nil {
		return exec.Solved{}, err
	}
	if n.Rank < 0 || n.Rank >= len(parts) {
		return exec.Solved{}, fmt.Errorf("gridhpc: rank %d of %d", n.Rank, len(parts))
	}
	t := solve.Subtask{PartTask: parts[n.Rank], Cores: n.Cores, MaxIter: n.MaxIter,
		Scheme: solve.Scheme(n.Scheme), Detector: solve.Detector(n.Detector), Node: n.Name}
	for _, l := range n.Neighbours {
		t.Neighbours = append(t.Neighbours, solve.Neighbour{Rank: l.Rank, Peer: l.Peer, Mode: l.Mode, Network: l.Network})
	}
	res, err := solve.Solve(ctx, ep, t, func(s solve.NodeStatus) {
		report(exec.Status{Iteration: s.Iteration, Sigma: s.Sigma, Compute: s.Compute, Send: s.Send, Wait: s.Wait})
	})
	return exec.Solved{Values: res.Values, Iterations: res.Iterations, Sigma: res.Sigma, Converged: res.Converged,
		Compute: res.Compute, Send: res.Send, Wait: res.Wait}, err
}

func main() {}
