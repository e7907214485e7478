/*
 * ckchain.c - a program that registers its state (GRID_CheckpointRegister)
 * and so survives a lost node: Jacobi for -u'' = 1 on a chain of items
 * points (u = 0 beyond both ends), one value per item and per message.
 * It swaps two arrays each iteration, as solvers do, and registers both
 * and a counter of its own; a restarted copy swaps them back by the parity
 * GRID_Resumed gives. The result is u, then the counter (the last value of
 * the last rank's share is replaced by it) so that a test sees the program
 * counted every iteration exactly once.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gridhpc.h"

static void die(GRIDSubtask *s, const char *what, int rc)
{
	fprintf(stderr, "ckchain: rank %u: %s: %s\n", s->rank, what, GRID_Strerror(rc));
	exit(1);
}

int main(void)
{
	GRIDSubtask s;
	int rc = GRID_Init(&s);
	if (rc) die(&s, "init", rc);
	size_t n = (size_t)(s.hi - s.lo);
	double *u = calloc(n + 2, sizeof *u), *v = calloc(n + 2, sizeof *v);
	double count = 0;
	if (!u || !v) die(&s, "memory", GRID_EIO);
	if ((rc = GRID_CheckpointRegister(&s, u, (n + 2) * sizeof *u)) ||
	    (rc = GRID_CheckpointRegister(&s, v, (n + 2) * sizeof *v)) ||
	    (rc = GRID_CheckpointRegister(&s, &count, sizeof count)))
		die(&s, "register", rc);
	int lower = s.lo > 0, upper = s.rank + 1 < s.ranks;
	if (lower) GRID_Send(&s, s.rank - 1, (char *)&u[1], 8, DATA_FLAG);
	if (upper) GRID_Send(&s, s.rank + 1, (char *)&u[n], 8, DATA_FLAG);
	long long k = GRID_Resumed(&s);
	if (k < 0) die(&s, "resumed", (int)k);
	if (k % 2) {
		double *t = u;
		u = v, v = t;
	}
	do {
		if (lower && (rc = GRID_Receive(&s, s.rank - 1, (char *)&u[0], 8, DATA_FLAG)) < 0) die(&s, "receive", rc);
		if (upper && (rc = GRID_Receive(&s, s.rank + 1, (char *)&u[n + 1], 8, DATA_FLAG)) < 0) die(&s, "receive", rc);
		double sigma = 0;
		for (size_t i = 1; i <= n; i++) {
			v[i] = (u[i - 1] + u[i + 1] + 1.0) / 2.0;
			double d = v[i] > u[i] ? v[i] - u[i] : u[i] - v[i];
			if (d > sigma) sigma = d;
		}
		double *t = u;
		u = v, v = t;
		count++;
		if (lower) GRID_Send(&s, s.rank - 1, (char *)&u[1], 8, DATA_FLAG);
		if (upper) GRID_Send(&s, s.rank + 1, (char *)&u[n], 8, DATA_FLAG);
		rc = GRID_Iterate(&s, sigma);
	} while (rc > 0);
	if (rc < 0) die(&s, "iterate", rc);
	if (!upper) u[n] = count;
	if ((rc = GRID_Result(&s, u + 1, n))) die(&s, "result", rc);
	GRID_Finalize(&s);
	return 0;
}
