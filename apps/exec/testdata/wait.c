/*
 * wait.c - the rod of examples/fortran in C, whose halos are received as
 * GRID_Wait reports them new (Listing 1's event loop), checking its
 * contract every iteration: no neighbour twice, GRID_ENOMSG once all new
 * values are received, and on a synchronous link (argument "sync") every
 * neighbour's values new each iteration. A broken contract ends the run
 * with GRID_Abort. Arguments: n [sync].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridhpc.h"

static void send_all(GRIDSubtask *s, double *u, size_t m)
{
	for (uint32_t i = 0; i < s->nneighbours; i++) {
		uint32_t q = (uint32_t)s->neighbours[i];
		GRID_Send(s, q, (char *)(q < s->rank ? &u[1] : &u[m]), 8, DATA_FLAG);
	}
}

int main(int argc, char **argv)
{
	GRIDSubtask s;
	if (argc < 2 || GRID_Init(&s)) return 1;
	int sync = argc > 2 && strcmp(argv[2], "sync") == 0;
	size_t m = (size_t)(s.hi - s.lo);
	double h = 1.0 / (atof(argv[1]) + 1);
	double *u = calloc(m + 2, sizeof *u), *v = calloc(m + 2, sizeof *v);
	char why[128];
	double sigma;
	send_all(&s, u, m);
	do {
		uint32_t got = 0, q;
		int flags = 0, rc;
		while ((rc = GRID_Wait(&s, &q, &flags)) == GRID_OK) {
			uint32_t bit = q < s.rank ? 1 : 2;
			if (flags != DATA_FLAG || got & bit) {
				snprintf(why, sizeof why, "GRID_Wait gave rank %u twice (flags %d)", q, flags);
				GRID_Abort(&s, why);
				return 2;
			}
			got |= bit;
			GRID_Receive(&s, q, (char *)(q < s.rank ? &u[0] : &u[m + 1]), 8, DATA_FLAG);
		}
		uint32_t all = (s.rank > 0 ? 1 : 0) | (s.rank + 1 < s.ranks ? 2 : 0);
		if (rc != GRID_ENOMSG || (sync && got != all)) {
			snprintf(why, sizeof why, "GRID_Wait: %d after ranks %#x of %#x", rc, got, all);
			GRID_Abort(&s, why);
			return 3;
		}
		sigma = 0;
		for (size_t i = 1; i <= m; i++) {
			v[i] = (u[i - 1] + u[i + 1] + h * h) / 2;
			sigma = fmax(sigma, fabs(v[i] - u[i]));
		}
		memcpy(&u[1], &v[1], m * sizeof *u);
		send_all(&s, u, m);
	} while (GRID_Iterate(&s, sigma) > 0);
	GRID_Result(&s, &u[1], m);
	GRID_Finalize(&s);
	return 0;
}
