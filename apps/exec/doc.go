// Package exec is the application that runs a user's program — C, C++,
// Fortran, or Python with NumPy — written against gridhpc.h, the C form of
// GRIDHPC's Listing 1 (GRID_Send, GRID_Receive, GRID_Wait with CTRL_FLAG
// and DATA_FLAG). A job names it with app = "exec" and gives the program's
// path (program; programs where a host or a cluster keeps it elsewhere,
// located by locate.go) and arguments, and how its problem splits: items (planes, rows) in
// contiguous ranges, unit values of result per item, halo values per
// message, a chain or a ring of neighbours.
//
// Each worker starts the program as its child, with its end of a Unix
// socket pair as file descriptor 3 (GRIDHPC_FD) and a memory window the
// two share as file descriptor 4 (GRIDHPC_SHM_FD): the messages to and from
// the neighbours live in the window (window.go), and gridhpc.c speaks a
// small framed protocol over the socket to order the turns (wire.go). The program is the Part of the
// iteration-level model: Sweep lets it run one iteration of its own loop —
// receive the halos, compute, send what its neighbours need, GRID_Iterate
// with its local σ — and the engine does the rest as for a Go application:
// the scheme and each link's mode, the three detectors, telemetry, the
// failures. The program shares nothing with the worker but the window of
// its own messages: a crash, an early exit, a hang, a message or result of the wrong
// size fails the run with an error naming the node and the program, and the
// program dies with its worker.
//
// With link = "inprocess" (the job's link parameter) the program is the
// node itself: gridhpc.c loads libgridhpc_inproc.so, built from Go with
// -buildmode=c-shared (cmd/libgridhpc-inproc; the gridtui binary
// stays pure Go), which runs the engine's Solve — an RMNP endpoint of its
// own linked to the neighbours' programs, the scheme, the detectors — on
// a coroutine in the program's thread (guest.go, guest_part.go; the
// library hands ServeGuest the engine's Solve, which this package cannot
// import): a turn
// of the program's loop is a stack switch, not a process hand-off. The
// worker still starts and watches the program, and keeps the control
// plane (inproc.go): it hands it its sub-task, a key derived from the
// run's, the address to listen on (the worker's own on its link to the
// first neighbour), trades the programs' addresses with the neighbours'
// workers over its own links, relays the program's telemetry (its
// heartbeat carries how long the program has held the turn: a hang),
// sends its result up, and trades a farewell with the neighbours' workers
// before the programs' endpoints close. Failures read as in the window
// link. docs/APPLICATIONS.md says when to use which.
//
// A program that registers its state with GRID_CheckpointRegister (link =
// "window") has checkpoints (checkpoint.go): its part is then a
// gridapp.Checkpointer whose Checkpoint asks the program, waiting in
// GRID_Iterate, for its registered buffers, and whose Restore hands a
// restarted program its buffers at its first receive; a program that
// registers nothing has none.
//
// The C library, its Fortran module and its Python binding are in the
// gridhpc directory beside this package; examples/c-poisson,
// examples/python-poisson and examples/fortran use them.
package exec
