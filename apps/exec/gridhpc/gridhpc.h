/*
 * gridhpc.h - GRIDHPC's communication operations (Listing 1 of the paper)
 * for programs that gridtui runs with app = "exec".
 *
 * gridtui's worker starts the program on every node with one end of a Unix
 * socket in GRIDHPC_FD and a memory window it shares with the program in
 * GRIDHPC_SHM_FD. The job's link parameter says who is the node's RMNP
 * endpoint (GRIDHPC_LINK, set by the worker):
 *
 *  - link = "window" (the default): the worker. This library speaks
 *    gridtui's framed protocol over the socket (apps/exec/wire.go) and
 *    moves the messages through the window: the worker sends a
 *    neighbour's values straight from it and writes the values received
 *    straight into it. Needs nothing but this file.
 *  - link = "inprocess": the program itself. GRID_Init loads
 *    libgridhpc_inproc.so (GRIDHPC_INPROCESS_LIB, from the job's library
 *    parameter; build it with `go build -buildmode=c-shared -o
 *    libgridhpc_inproc.so ./cmd/libgridhpc-inproc` in gridtui's source,
 *    which needs Go and gcc), which runs the node's engine — its own RMNP
 *    links to the neighbours' programs, the scheme, the detectors — on a
 *    stack of its own in the program's thread: the calls below that wait
 *    for the environment switch to it and back (swapcontext), with no
 *    process or thread hand-off; the worker keeps the control plane
 *    (sub-task, telemetry, result, failures). The same program binary
 *    runs with either link.
 *
 * The environment owns the nodes, the networks,
 * the scheme (synchronous, asynchronous, hybrid), each link's mode and the
 * termination detectors; the program owns its values and its loop:
 *
 *     GRIDSubtask sub;
 *     if (GRID_Init(&sub) != GRID_OK) exit(1);
 *     ... allocate items [sub.lo, sub.hi) of sub.unit values each ...
 *     for each neighbour q: GRID_Send(&sub, q, first values, size, DATA_FLAG);
 *     do {
 *         for each neighbour q: GRID_Receive(&sub, q, halo of q, size, DATA_FLAG);
 *         sigma = one sweep over the own values and the halos;
 *         for each neighbour q: GRID_Send(&sub, q, new values, size, DATA_FLAG);
 *     } while (GRID_Iterate(&sub, sigma) > 0);
 *     GRID_Result(&sub, values, sub.result_size);
 *     GRID_Finalize(&sub);
 *
 * Send once before the loop and after each sweep: the engine forwards the
 * values sent in iteration k to the neighbours' iteration k+1, so a
 * synchronous run is the serial loop bit for bit. On a synchronous link
 * GRID_Receive gives the neighbour's values of the previous iteration; on
 * an asynchronous link (asynchronous scheme, hybrid across clusters) the
 * newest that arrived. GRID_Iterate reports the local residual σ to the
 * environment's detector (and the console) and returns 0 when the run ends.
 * Every message to a neighbour has exactly halo_size[i] bytes (the job's
 * halo parameter, in doubles); CTRL messages belong to the detectors.
 *
 * In link = "window", GRID_Iterate sleeps in read until the worker's
 * answer; with the job's spin parameter (GRIDHPC_SPIN_NS, set by the
 * worker) it first polls for it, yielding the CPU, and stops polling for a
 * while when polls find nothing. In link = "inprocess", GRID_Iterate runs
 * the exchange itself, and a receive waits in poll(2) on the program's
 * thread; the Go runtime in the process has one P (GOMAXPROCS=1 unless the
 * environment sets it) and its own few threads, and forwards a fault in
 * the program's code to the handler this library installs (if the program
 * has none), so that a crash kills the program with its signal.
 *
 * A call that breaks these rules (a wrong size, a rank that is not a
 * neighbour, CTRL_FLAG, a call out of order) fails the whole run with a
 * message naming the node, the program and the call; the function returns
 * the negative code below, and the program should exit.
 *
 * Not thread-safe: call the library from one thread (OpenMP: outside the
 * parallel regions); in link = "inprocess", always the same thread.
 *
 * What the library does not do, by design of the iteration-level model:
 *  - GRID_Wait never blocks. The environment moves the messages between
 *    two GRID_Iterate calls, never during the program's turn, so there is
 *    nothing to wait for inside it: GRID_Wait reports what came before the
 *    turn (GRID_ENOMSG: nothing new), and a program that wants newer values
 *    ends its turn with GRID_Iterate. NOWAIT_FLAG is accepted on
 *    GRID_Receive and changes nothing: no GRID_Receive blocks but the
 *    first of the run.
 *  - CTRL_FLAG is refused (GRID_EFLAGS, and the run fails): the control
 *    messages are the termination detectors' (tokens, activity, switch),
 *    which run in the worker on the σ of GRID_Iterate; a program reports
 *    its state through σ, and cannot end the run on its own but with
 *    GRID_Abort.
 *  - One exchange per neighbour per iteration, of a fixed size: a program
 *    with a loop of its own (several exchanges per iteration, messages of
 *    varying size, a time loop around an inner solve, its own termination)
 *    has no C form yet; gridtui's Go API has one (gridapp.Calculator).
 */
#ifndef GRIDHPC_H
#define GRIDHPC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of GRID_Send, GRID_Receive and GRID_Wait (GRIDHPC Sec. V-A). */
#define DATA_FLAG   1 /* an update for a neighbour */
#define CTRL_FLAG   2 /* computation state (the environment's detectors) */
#define NOWAIT_FLAG 4 /* GRID_Receive: do not block */

/* Return codes: GRID_OK or a positive count on success, else one of these. */
#define GRID_OK       0
#define GRID_ENOENV  (-1) /* not started by a gridtui worker (no GRIDHPC_FD, GRIDHPC_SHM_FD) */
#define GRID_EPROTO  (-2) /* the worker's answer makes no sense (version mismatch?) */
#define GRID_EIO     (-3) /* the connection to the worker broke: the run ended */
#define GRID_ERANK   (-4) /* the rank is not a neighbour of this sub-task */
#define GRID_ESIZE   (-5) /* a size differs from the halo's or the result's */
#define GRID_EFLAGS  (-6) /* flags other than DATA_FLAG (NOWAIT_FLAG on receive) */
#define GRID_ESTATE  (-7) /* a call out of order (e.g. GRID_Result before the stop) */
#define GRID_ENOMSG  (-8) /* GRID_Wait: no neighbour's values are new */
#define GRID_EFAILED (-9) /* the worker failed the run */
#define GRID_ELIB   (-10) /* link = "inprocess": libgridhpc_inproc.so cannot be loaded (why: on stderr) */

/* The sub-task, filled by GRID_Init. Read the public fields; do not write. */
typedef struct GRIDSubtask {
	uint32_t rank;        /* this node's rank, 0 .. ranks-1 */
	uint32_t ranks;       /* nodes of the run */
	uint32_t cores;       /* cores the job gives this node (OMP_NUM_THREADS too) */
	uint32_t nneighbours; /* entries of neighbours and halo_size */
	uint64_t lo, hi;      /* this node's items [lo, hi) of the job's items */
	uint64_t unit;        /* values per item (the job's unit) */
	uint64_t result_size; /* values GRID_Result hands back: (hi - lo) * unit */
	double eps;           /* the threshold of the local test σ < eps */
	uint64_t *neighbours; /* their ranks */
	uint64_t *halo_size;  /* bytes of every message to or from each */
	const char *params;   /* the job's params, "key=value key=value" */
	void *priv;           /* the library's state */
} GRIDSubtask;

/* GRID_Init connects to the worker and fills *sub. */
int GRID_Init(GRIDSubtask *sub);

/* GRID_Send sends size bytes of buffer to neighbour dest (Listing 1): it
 * copies them into the window (no copy if buffer is GRID_SendBuffer(dest))
 * and returns GRID_OK without waiting for the neighbour. */
int GRID_Send(GRIDSubtask *pSubtask, uint32_t dest, char *buffer, size_t size, int flags);

/* GRID_Receive writes neighbour source's values into buffer (size bytes,
 * the halo's) and returns the number of bytes written (Listing 1); no copy
 * if buffer is GRID_ReceiveBuffer(source), where they already are. */
int GRID_Receive(GRIDSubtask *pSubtask, uint32_t source, char *buffer, size_t size, int flags);

/* GRID_Wait stores in *iSubtaskRank a neighbour whose values are new since
 * the program last received them, and DATA_FLAG in *flags (Listing 1);
 * calling it again after GRID_Receive from that neighbour gives the next
 * one. The environment delivers messages between iterations, so it does
 * not block: GRID_ENOMSG says no neighbour has new values in this
 * iteration (on a synchronous link every neighbour's are new each
 * iteration; on an asynchronous one only those that arrived). */
int GRID_Wait(GRIDSubtask *pSubtask, uint32_t *iSubtaskRank, int *flags);

/* GRID_SendBuffer and GRID_ReceiveBuffer return the window's buffers for a
 * neighbour (halo_size bytes, aligned for doubles), or NULL for a rank that
 * is not one: a program that computes in them saves GRID_Send's and
 * GRID_Receive's copies. The receive buffer holds the values of the current
 * iteration from the first GRID_Receive (or GRID_Wait) of the iteration to
 * GRID_Iterate; the send buffer is the program's until it calls GRID_Send. */
char *GRID_SendBuffer(GRIDSubtask *sub, uint32_t dest);
char *GRID_ReceiveBuffer(GRIDSubtask *sub, uint32_t source);

/* GRID_Iterate ends an iteration: it reports the local residual sigma and
 * returns 1 to go on, 0 when the environment's detector ended the run (or
 * the iteration limit), or a negative code. */
int GRID_Iterate(GRIDSubtask *sub, double sigma);

/* GRID_CheckpointRegister registers bytes of buffer as part of the
 * program's state, before the loop (before the first GRID_Receive,
 * GRID_Wait or GRID_Resumed), in the same order on every start. A program
 * that registers its state survives a lost node: at the end of every
 * iteration the job's checkpoint interval names, the library sends the
 * registered buffers to the worker from inside GRID_Iterate (the engine
 * keeps them, with the window's halos, on another node); after a loss, the
 * program started again on a replacement gets them back in its first
 * GRID_Receive (or GRID_Wait, or GRID_Resumed), before that call reads a
 * halo, and goes on as if GRID_Iterate had just returned 1. Register
 * everything the next iterations depend on (the iterate, a counter of its
 * own); not what the program rebuilds from the sub-task. It must call
 * GRID_Resumed (or GRID_Receive, GRID_Wait) before its first sweep: a
 * program without neighbours calls GRID_Resumed. A program that
 * registers nothing has no checkpoints: a lost node fails its run.
 * link = "inprocess": registered, not yet checkpointed. */
int GRID_CheckpointRegister(GRIDSubtask *sub, void *buffer, size_t bytes);

/* GRID_Resumed returns the iteration (GRID_Iterate calls) the program's
 * registered buffers were restored at, 0 on a fresh start, or a negative
 * code. Call it after the first GRID_Send calls and before the loop: it
 * waits for the environment's go of the first iteration (as the first
 * GRID_Receive does), so a program that swaps two arrays each iteration
 * can swap them back by the parity before it receives. */
long long GRID_Resumed(GRIDSubtask *sub);

/* GRID_Result hands back this node's share of the solution: count doubles,
 * sub->result_size of them, after GRID_Iterate returned 0. */
int GRID_Result(GRIDSubtask *sub, const double *values, size_t count);

/* GRID_Finalize closes the connection and frees what GRID_Init allocated. */
int GRID_Finalize(GRIDSubtask *sub);

/* GRID_Abort fails the run with the program's reason, and closes. */
int GRID_Abort(GRIDSubtask *sub, const char *reason);

/* GRID_Param returns the value of key in the job's parameters, or NULL: the
 * pairs of the "params" string first, then every other parameter of the job
 * (eps, items, unit, …) whose value has no space. */
const char *GRID_Param(GRIDSubtask *sub, const char *key);

/* GRID_Strerror describes a return code. */
const char *GRID_Strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
