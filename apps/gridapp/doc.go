// Package gridapp is gridtui's programming model (GRIDHPC Sec. V): the API an
// iterative application is written against. The application owns its
// parameters, the split of its problem into sub-tasks and which sub-tasks
// neighbour which, the local iteration over owned values plus the halos the
// environment filled, and the assembly of the result; the environment owns
// everything else — nodes and the hierarchy, each pair's network, the
// scheme and each link's mode, transport, termination detection, failures,
// telemetry, the results store and the computing gain.
//
// # A tutorial: the smallest application
//
// The package's Example is a complete application, rod (−u″ = 1 on (0,1),
// Jacobi). Its steps are those of Fig. 4 of the paper. The repository's
// examples/rod is the same application as a program of its own: a module
// whose main registers it and calls cli.Main, built and run by the tests.
//
// Parameters. Params declares each parameter once, with its name, kind,
// default, range and help; job files, the console's Compose form and
// `gridtui run --param name=value` show and validate them from there, and
// the application reads them, already checked, from Values:
//
//	func (rod) Params() []gridapp.Param {
//	    return []gridapp.Param{
//	        gridapp.IntParam("n", 64, 1, 1<<20, "interior points"),
//	        gridapp.FloatParam("eps", 1e-10, 0, 1, "tolerance").Above(), // (0, 1]
//	    }
//	}
//
// Task definition (at the submitter). Define receives the nodes the job
// chose, in rank order with their cores, and returns the Task: the
// threshold ε of the local test and one PartSpec per node — the ranks it
// neighbours (the graph: slabs, blocks, a partition of a sparse matrix; it
// must be symmetric and connected), a small Spec the worker's NewPart will
// decode (index ranges, not data), and the size of its share of the result.
// Split cuts an axis into balanced ranges.
//
// The sub-task (on the worker). NewPart builds the Part from its Subtask:
// its rank, its neighbours, its cores and its Spec. A Part allocates its
// own values and one halo buffer per neighbour. For the cores of the node
// (Fig. 4's sub-sub-tasks) it starts a Pool of Subtask.Cores and runs each
// sweep through Pool.Run, one barrier per sweep.
//
// Calculate. For every iteration the engine writes each neighbour's values
// into Halo(i), calls Sweep, and sends Outgoing(i) to neighbour i:
//
//	Sweep() float64          // one iteration over own values + halos; returns local σ
//	Outgoing(i int) []float64 // what neighbour i needs of the current iterate
//	Halo(i int) []float64     // where neighbour i's values are written
//	Result() []float64       // this part's share of the solution
//
// A Part that must act on what it receives (unpack, reorder) also
// implements HaloReceiver. Neighbour i is Subtask.Neighbours[i]; part q's
// Outgoing for part r must have the length of r's Halo for q.
//
// Results. Each worker's Result is gathered at the submitter, and Assemble
// turns the parts' results into the global solution, its true residual
// (measured, e.g. by one more serial sweep, never the detector's belief) and
// the application's own figures (error against an exact solution,
// complementarity). One that cannot measure its solution (a program of its
// own, app exec) sets Result.Reported, and the report calls the residual
// what it is: the largest σ the parts reported.
// An application that implements Outputter also writes its solution as
// files (a ParaView time series, say) into the run's output directory when
// the job asks for VTI output.
//
// Registration. An application registers itself by name from its package's
// init, as database/sql drivers do, and a user's binary imports the
// packages of the applications it wants:
//
//	func init() { gridapp.Register("rod", rod{}) }
//
// # Outer steps: a time loop around the iterations
//
// An implicit time-stepping method solves one linear system per time step,
// each iteratively: an outer loop around the inner iterations. The
// application sets Task.Steps and its Part implements Stepper. The
// environment then runs each step as it runs a whole iteration: the
// scheme's exchanges and its detector until the detector sees the step's
// global test pass (σ < ε on every node, with halos within ε under the
// asynchronous schemes). Then the nodes agree over CTRL messages that every
// one of them saw it (a vote up a spanning tree and the decision down it),
// call Advance on every part, clear the links of the finished detector's
// messages, and start the next step. A step cut by MaxIter ends the run.
// Advance must only move the part's own state (e.g. keep the iterate as the
// previous time level); the next step's first exchange sends its values.
// RunLocal advances the same way, so a synchronous run is bit for bit the
// serial reference in every step (apps/heat is the example).
//
// # Checkpoints: surviving a lost node
//
// A Part that also implements Checkpointer lets its run survive the loss of
// its node: the environment asks every part for a checkpoint at an
// iteration boundary, keeps the copy on another node, and on a loss builds
// the part again with NewPart from the same Subtask (on a spare node, or on
// a surviving one) and calls Restore with the copy. Two methods:
//
//	Checkpoint(w io.Writer) error // the part's state: iterate, halos, counters
//	Restore(r io.Reader) error    // into a fresh part of the same sub-task
//
// Most parts' state is a few float64 buffers, and WriteState and ReadState
// write and read them (a checkpoint of another shape is refused with
// ErrState). The environment frames the bytes with the run, the problem,
// the rank and the iteration and checksums them; the part writes only its
// state. CheckCheckpoints is the test every implementation passes: stopped,
// checkpointed and restored into fresh parts, a run continues bit for bit.
// A structured-grid toolkit implements the pair once for every application
// written on it. An application without checkpoints still runs; a lost node
// then fails its run, and the report says why.
//
// # What the schemes do with the messages
//
// On a synchronous link (the synchronous scheme; hybrid inside a cluster)
// iteration k+1 sweeps with the neighbours' iteration-k values, so when
// Sweep reads only the part's values and its halos, a synchronous run is bit
// for bit the serial one. On an asynchronous link (asynchronous scheme;
// hybrid across clusters) Halo holds the newest values that arrived: a newer
// message replaces an unread one, a send is skipped while the previous is in
// flight, and the engine resends a part's values only when they moved by ≥ ε.
// The application writes the same code for all three schemes. One whose
// method is not known to converge asynchronously (Jacobi on a matrix that
// is not diagonally dominant, say) implements SchemeChecker and refuses, at
// the submitter and with its reason, a job with an asynchronous link.
//
// # What an application must guarantee
//
// Sweep reads only the part's own values and its halos, writes only its own
// values (never a halo: the engine owns them), and returns σ ≥ 0 — a NaN σ, a
// panic in any method, or an Outgoing whose length is not the neighbour's
// Halo length fails the run with an error naming the node and the
// application. Outgoing may alias the iterate; its values are read before
// the next Sweep. Halo(i) returns the same slice (buffer and length) for
// the whole run — a part that swaps iterates keeps its halos apart and
// copies them in, in Sweep or Received; the engine fails a run whose halo
// changed buffer or length, naming the application, the part's rank and
// the neighbour's (HaloGuard in RunLocal).
// Define must be deterministic: the same Values and nodes give the same
// Task.
//
// # Testing an application bit for bit
//
// RunLocal runs a Task in one process with the synchronous scheme's
// semantics; an application that implements SerialReference carries its
// plain serial loop as its specification, and its tests compare the two bit
// for bit for several decompositions and core counts. A synchronous run on
// the grid computes the same values, and stops exactly H + D sweeps after
// the first iteration at which every part had σ < Eps (H, D: the height and
// depth of the detector's spanning tree; RunLocal stops at once).
//
// # Structured grids
//
// A stencil on a structured grid needs none of the above written by hand:
// apps/structured (PETSc's DMDA is its anchor) makes the blocks, the
// neighbour graph, the ghost layers and their exchange, the per-core split
// and the assembly from the global grid, and the application writes its
// local sweep over a box (examples/laplace).
//
// # The low-level model
//
// An application that needs its own loop — a different exchange per phase,
// an outer time loop, its own termination — implements Calculator on its
// Part. Calculate receives a Comm with the paper's operations (Listing 1):
// Send, Receive and Wait, each with the DATA or CTRL flag, on neighbours
// named by index. The mode of each link (Mode: Sync or Async) is the
// environment's choice from the scheme and the pair's locality (Sec. V-A),
// not the caller's: Receive of DATA blocks until it arrives on a Sync link
// and returns the newest update on an Async one; CTRL is always reliable and
// in order and is what a loop uses for its own convergence and termination
// messages. Use the iteration-level interface whenever the method is "sweep,
// exchange, test": it gets the environment's three detectors, the
// send-skip and hybrid links for free; use Calculate only when the loop
// itself is the method.
//
// A Calculator whose node's computation runs in another process with links
// of its own (apps/exec with link = "inprocess") finds what it needs on the
// Comm the engine gives it, which implements Host: the run's scheme and
// detector, its link to each neighbour (network and address), a run id and
// secret derived from the run's, and Usage, which shows that process's
// times and traffic as the node's.
package gridapp
