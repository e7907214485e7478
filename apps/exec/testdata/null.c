/*
 * null.c - a program that computes nothing: every iteration it receives its
 * neighbours' halos and sends its own, and reports σ = 1 (the run ends at
 * the job's max_iter). It measures what the exec bridge costs per
 * iteration (BenchmarkIteration). By default it works in the window's
 * buffers (GRID_SendBuffer, GRID_ReceiveBuffer), as the Go null part works
 * in its own slices; with the argument "copy" it sends from and receives
 * into arrays of its own, which costs a copy each way.
 */
#include <stdlib.h>
#include <string.h>

#include "gridhpc.h"

int main(int argc, char **argv)
{
	GRIDSubtask s;
	if (GRID_Init(&s)) return 1;
	int copy = argc > 1 && strcmp(argv[1], "copy") == 0;
	size_t n = s.nneighbours ? s.halo_size[0] : 8;
	char *out = calloc(1, n), *in = calloc(1, n);
	double *res = calloc(s.result_size + 1, sizeof *res);
	for (uint32_t i = 0; i < s.nneighbours; i++) {
		uint32_t q = (uint32_t)s.neighbours[i];
		GRID_Send(&s, q, copy ? out : GRID_SendBuffer(&s, q), n, DATA_FLAG);
	}
	do {
		for (uint32_t i = 0; i < s.nneighbours; i++) {
			uint32_t q = (uint32_t)s.neighbours[i];
			GRID_Receive(&s, q, copy ? in : GRID_ReceiveBuffer(&s, q), n, DATA_FLAG);
		}
		for (uint32_t i = 0; i < s.nneighbours; i++) {
			uint32_t q = (uint32_t)s.neighbours[i];
			GRID_Send(&s, q, copy ? out : GRID_SendBuffer(&s, q), n, DATA_FLAG);
		}
	} while (GRID_Iterate(&s, 1.0) > 0);
	GRID_Result(&s, res, s.result_size);
	GRID_Finalize(&s);
	return 0;
}
