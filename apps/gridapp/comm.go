package gridapp

import (
	"context"
	"errors"
	"time"
)

// Flags qualify a message of the low-level model, as the flags of GRID_Send,
// GRID_Receive and GRID_Wait (GRIDHPC Listing 1).
type Flags uint8

// DATA messages carry updates between neighbours; CTRL messages carry
// information about the computation's state (a local test, a termination
// order). NoWait makes Receive return ErrNoMessage instead of blocking.
const (
	DATA Flags = 1 << iota
	CTRL
	NoWait
)

// Mode is how a link carries DATA, chosen by the environment from the
// scheme and the pair's locality (Sec. V-A), never by the application.
type Mode uint8

const (
	// Sync: DATA is reliable and in order, Receive blocks until it arrives
	// (synchronous scheme; hybrid inside a cluster).
	Sync Mode = iota
	// Async: DATA is latest-value: a newer message replaces an unread older
	// one, and a send is skipped while the previous is in flight
	// (asynchronous scheme; hybrid across clusters). CTRL stays reliable.
	Async
)

// String returns "sync" or "async".
func (m Mode) String() string {
	if m == Sync {
		return "sync"
	}
	return "async"
}

// ErrNoMessage is returned by a Receive with NoWait when nothing is there.
var ErrNoMessage = errors.New("gridapp: no message")

// Comm is the low-level model: the paper's communication operations for a
// part that runs its own loop (Calculator). Neighbours are addressed by
// their index in Subtask.Neighbours. The mode of each link follows from the
// scheme and the locality (Mode); the same code therefore runs
// synchronously inside a cluster and asynchronously across sites.
type Comm interface {
	// Mode returns the mode of the link to neighbour i.
	Mode(i int) Mode
	// Send sends v to neighbour i as DATA or CTRL (GRID_Send).
	Send(ctx context.Context, i int, v []float64, flags Flags) error
	// Receive receives the next message of the given kind from neighbour i
	// into v and returns its length (GRID_Receive).
	Receive(ctx context.Context, i int, v []float64, flags Flags) (int, error)
	// Wait blocks until a message from some neighbour is there and returns
	// the neighbour and the message's kind, without taking it (GRID_Wait).
	Wait(ctx context.Context) (i int, flags Flags, err error)
	// Progress reports the part's iteration and local σ for the console
	// (telemetry); call it about once per iteration, it is cheap.
	Progress(iteration int, sigma float64)
}

// Outcome is what a Calculator's loop ends with.
type Outcome struct {
	Iterations int
	Sigma      float64
	Converged  bool // the part learned that the global test passed
}

// Calculator is implemented by a Part that runs its own loop (Fig. 4's
// Calculate) instead of leaving iterations, exchanges and termination to the
// engine. The engine then calls Calculate once, instead of Sweep, Outgoing
// and Halo, and still provides the nodes, networks, link modes, failures,
// telemetry and the gathering of Result. The part must agree with its
// neighbours on when to stop (e.g. by a reduction over CTRL messages);
// returning while a neighbour still waits on it fails that neighbour.
type Calculator interface {
	Calculate(ctx context.Context, c Comm) (Outcome, error)
}

// Checkpoints is implemented by the Comm the engine gives a Calculator.
// A Calculator whose part is also a Checkpointer calls Checkpoint at the
// boundaries every part passes at the same iteration (a BSP superstep's
// barrier): when the job's interval says so, the engine calls the part's
// Checkpoint there, from this goroutine, and keeps the bytes as it keeps
// any part's. On a recovery, every part is built again, restored from the
// newest iteration they all checkpointed, and Calculate is called again:
// the part resumes from what Restore read.
type Checkpoints interface {
	Checkpoint(iteration int)
	// CheckpointEvery is the interval in iterations at which Checkpoint
	// takes one (0: none), for a part that must prepare its state first.
	CheckpointEvery() int
}

// Failure is the panic value with which a Part fails the run from a method
// that returns no error (Sweep, Outgoing, Halo, Result): the engine reports
// Err as the application's failure, naming the node and the application,
// without calling it a panic. Any other panic is reported as one, with the
// file and line.
type Failure struct{ Err error }

func (f Failure) Error() string { return f.Err.Error() }

func (f Failure) Unwrap() error { return f.Err }

// Host is implemented by the Comm the engine gives a Calculator, for a
// part that hands its node's computation to another process with links of
// its own (apps/exec's in-process link): the run's scheme and detector by
// their job names ("sync", "tokens"…), this node's link to neighbour i (its
// network's label, "ethernet", and its address on it, "tcp://10.0.0.1:4242"
// or "unix:///…": the network the pair's pre-flight chose), a run id and
// secret for those links, the same on every node for the same label and
// not the engine's own, and Usage to show that process's times and
// traffic as the node's.
type Host interface {
	Scheme() string
	Detector() string
	Link(i int) (network, local string, err error)
	Key(label string) (run [16]byte, secret []byte)
	Usage(u Usage)
}

// Usage is what another process did for the node, so far: the times of
// its sweeps, sends and waits, and its traffic per network.
type Usage struct {
	Compute, Send, Wait time.Duration
	Traffic             []NetCount
}

// NetCount is one network's traffic: messages and bytes sent and
// received, and asynchronous sends skipped or replaced.
type NetCount struct {
	Network                  string
	Messages, Bytes, Skipped uint64
}
