/*
 * gridhpc_inproc.h - what gridhpc.c and libgridhpc_inproc.so (built from Go,
 * cmd/libgridhpc-inproc) share when the job asks for link = "inprocess".
 * Not for programs: they include gridhpc.h only.
 *
 * The library runs the node's engine (its RMNP endpoint, the scheme, the
 * detectors) on a stack of its own in the program's thread, as a
 * coroutine: a call of the program that must wait for the environment (the
 * first GRID_Receive, GRID_Iterate, GRID_Result, GRID_Finalize, a rule
 * broken, GRID_Abort) writes its request here and switches to the library;
 * the library switches back with its answer in status. Nothing crosses a
 * process or a thread.
 */
#ifndef GRIDHPC_INPROC_H
#define GRIDHPC_INPROC_H

#include <stdint.h>
#include <ucontext.h>

#define GH_INPROC_VERSION 1

/* Requests (the frame kinds of the window protocol, plus the end). */
enum { GH_RECEIVE = 3, GH_ITERATE = 5, GH_RESULT = 6, GH_ABORT = 7, GH_FINAL = 8 };

struct gh_inproc {
	ucontext_t prog, lib;   /* the program's context and the library's */
	int version;            /* GH_INPROC_VERSION */
	int fd;                 /* the socket to the worker (GRIDHPC_FD) */
	/* the program's request */
	int call;
	int rule;               /* GH_ABORT: 1 when gridhpc.c caught a bad call */
	double sigma;           /* GH_ITERATE */
	const double *values;   /* GH_RESULT */
	uint64_t count;
	const char *reason;     /* GH_ABORT */
	/* the library's answer: 0 go on, 1 stop, or a negative GRID_E code */
	int status;
	int done;               /* the library has returned: no more turns */
	/* the library's gift at the start: the encoded sub-task (wire.go) */
	unsigned char *subtask;
	uint64_t subtask_len;
	/* the program's memory, set by GRID_Init before the first request:
	 * per neighbour its send buffer then its receive buffer (as the window) */
	char *win;
	uint64_t winsize;
	unsigned char *sent;    /* per neighbour: sent to in this turn */
	unsigned char *fresh;   /* per neighbour: new values (the library sets them) */
	uint32_t nneighbours;
};

/* gridhpc_serve is the library's entry: it returns when the run is over
 * for this program (status then holds the last answer). */
typedef int (*gh_serve_fn)(struct gh_inproc *);

#endif
