// Package bsp is the application that runs a BSPlib program (C or C++
// over bsp.h, the standard's prototypes: Hill et al. 1998) on a job's
// nodes, one process per node, as InteGrade runs BSP programs. A job names
// it with app = "bsp" and gives the program's path and arguments.
//
// Each worker starts the program as its child, as apps/exec does, with its
// end of a Unix socket pair as file descriptor 3 (BSP_FD) and BSP_PID,
// BSP_NPROCS in its environment. bsplib/bsp.c records the program's
// registrations, puts, gets and messages, and hands the worker a
// superstep at each bsp_sync; the worker trades it with the other
// processes' workers through package bsp's Exchange over the RMNP links of
// the run (every pair linked, synchronous, on the network Algorithm 1
// chose), asks its program for the data of the others' gets, and brings
// back the gets, puts and messages for it. A rule of the standard that
// some process breaks, a crash, an exit without bsp_end or a hang fails
// the run with an error naming the process, the call and the rule.
//
// The part reports each superstep as an iteration, and its times in
// computation, communication and at the barrier and its traffic as the
// node's; its result carries the totals and the tail of the program's
// output, which Assemble turns into the report's figures.
package bsp
