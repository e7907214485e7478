/*
 * faulty.c - a program that breaks gridhpc.h's rules on demand, for the
 * failure tests: faulty MODE RANK ITER PIDFILE. Rank RANK misbehaves in
 * iteration ITER (MODE crash, exit, hang, size, rank, ctrl, result, abort, register: a
 * GRID_CheckpointRegister after the loop began; ckstop: it registers its
 * state and, 0.2 s after its GRID_Iterate of iteration ITER, stops, as a
 * stuck program would, SIGSTOP, so that a checkpoint gets no answer);
 * in mode nolib it never calls the library, in nolib-hang neither exits. Every rank
 * appends its pid to PIDFILE first. The others run a 1-D Jacobi on a chain.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include "gridhpc.h"

/* nowhere is a null pointer the compiler cannot see through. */
volatile int *volatile nowhere;

static void stop(int sig)
{
	(void)sig;
	raise(SIGSTOP);
}

int main(int argc, char **argv)
{
	if (argc < 5) return 2;
	const char *mode = argv[1];
	long bad = atol(argv[2]), when = atol(argv[3]);
	FILE *f = fopen(argv[4], "a");
	if (f) fprintf(f, "%d\n", (int)getpid()), fclose(f);
	const char *rank = getenv("GRIDHPC_RANK");
	if (rank && atol(rank) == bad && !strcmp(mode, "nolib")) return 0;
	if (rank && atol(rank) == bad && !strcmp(mode, "nolib-hang")) for (;;) pause();
	GRIDSubtask s;
	if (GRID_Init(&s)) return 1;
	size_t m = s.hi - s.lo;
	double *u = calloc(m + 2, sizeof *u), *v = calloc(m + 2, sizeof *v);
	int me = (long)s.rank == bad;
	int ckstop = !strcmp(mode, "ckstop");
	if (ckstop && GRID_CheckpointRegister(&s, u, (m + 2) * sizeof *u)) return 1;
	for (uint32_t i = 0; i < s.nneighbours; i++)
		GRID_Send(&s, (uint32_t)s.neighbours[i], (char *)(s.neighbours[i] < s.rank ? u + 1 : u + m), 8, DATA_FLAG);
	if (ckstop && GRID_Resumed(&s) < 0) return 1;
	long k = 0;
	int rc;
	do {
		k++;
		for (uint32_t i = 0; i < s.nneighbours; i++)
			GRID_Receive(&s, (uint32_t)s.neighbours[i], (char *)(s.neighbours[i] < s.rank ? u : u + m + 1), 8, DATA_FLAG);
		if (me && k == when) {
			if (!strcmp(mode, "crash")) *nowhere = 1; /* a stray write */
			if (!strcmp(mode, "exit")) { fprintf(stderr, "faulty: leaving early\n"); exit(3); }
			if (!strcmp(mode, "hang")) for (;;) pause();
			if (!strcmp(mode, "abort")) { GRID_Abort(&s, "the matrix is singular"); return 1; }
			if (!strcmp(mode, "result")) { GRID_Result(&s, u + 1, m); return 1; }
			if (!strcmp(mode, "register")) { GRID_CheckpointRegister(&s, u, sizeof *u); return 1; }
			if (ckstop) {
				struct itimerval in = {.it_value = {.tv_usec = 200000}};
				signal(SIGALRM, stop);
				setitimer(ITIMER_REAL, &in, NULL);
			}
		}
		double sigma = 0;
		for (size_t i = 1; i <= m; i++) {
			v[i] = (u[i - 1] + u[i + 1] + 1e-4) / 2;
			if (v[i] - u[i] > sigma) sigma = v[i] - u[i];
		}
		double *t = u; u = v; v = t;
		for (uint32_t i = 0; i < s.nneighbours; i++) {
			size_t size = me && k == when && !strcmp(mode, "size") ? 16 : 8;
			int flags = me && k == when && !strcmp(mode, "ctrl") ? CTRL_FLAG : DATA_FLAG;
			uint32_t to = me && k == when && !strcmp(mode, "rank") ? s.ranks + 7 : (uint32_t)s.neighbours[i];
			GRID_Send(&s, to, (char *)(s.neighbours[i] < s.rank ? u + 1 : u + m), size, flags);
		}
		rc = GRID_Iterate(&s, sigma);
	} while (rc > 0);
	if (me && !strcmp(mode, "noresult")) return 0; /* leaves before GRID_Result */
	GRID_Result(&s, u + 1, m);
	GRID_Finalize(&s);
	return 0;
}
