/*
 * null.c - a program that computes nothing: every iteration it receives its
 * neighbours' halos and sends its own, and reports σ = 1 (the run ends at
 * the job's max_iter). It measures what the exec bridge costs per
 * iteration (BenchmarkIteration).
 */
#include <stdlib.h>

#include "gridhpc.h"

int main(void)
{
	GRIDSubtask s;
	if (GRID_Init(&s)) return 1;
	size_t n = s.nneighbours ? s.halo_size[0] : 8;
	char *out = calloc(1, n), *in = calloc(1, n);
	double *res = calloc(s.result_size + 1, sizeof *res);
	for (uint32_t i = 0; i < s.nneighbours; i++) GRID_Send(&s, (uint32_t)s.neighbours[i], out, n, DATA_FLAG);
	do {
		for (uint32_t i = 0; i < s.nneighbours; i++) GRID_Receive(&s, (uint32_t)s.neighbours[i], in, n, DATA_FLAG);
		for (uint32_t i = 0; i < s.nneighbours; i++) GRID_Send(&s, (uint32_t)s.neighbours[i], out, n, DATA_FLAG);
	} while (GRID_Iterate(&s, 1.0) > 0);
	GRID_Result(&s, res, s.result_size);
	GRID_Finalize(&s);
	return 0;
}
