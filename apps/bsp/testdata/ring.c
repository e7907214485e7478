/* ring.c: each superstep every process puts its value into its right
 * neighbour and combines its own with its left neighbour's; process 0
 * prints the sum of the values after STEPS supersteps. It registers its
 * state for checkpoints, so a run that loses a process resumes from the
 * last one (engine/recovery_bsp_test.go).
 *
 *   ring STEPS [PAUSE_US] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bsp.h"

#define MOD 1000000007ULL

int main(int argc, char **argv) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	long steps = argc > 1 ? atol(argv[1]) : 300, pause = argc > 2 ? atol(argv[2]) : 2000;
	long k = 0;
	unsigned long long x = (unsigned long long)s + 1, in = 0, *all = calloc((size_t)p, sizeof *all);
	bsp_checkpoint_reg(&k, sizeof k);
	bsp_checkpoint_reg(&x, sizeof x);
	bsp_checkpoint_reg(&in, sizeof in);
	bsp_push_reg(&in, sizeof in);
	bsp_push_reg(all, p * (int)sizeof *all);
	bsp_sync();
	long start = 0;
	if (bsp_resumed()) {
		/* The checkpoint was taken inside iteration k's bsp_sync. */
		start = k;
		goto resume;
	}
	for (; k < steps; k++) {
		struct timespec d = {0, pause * 1000};
		nanosleep(&d, NULL);
		bsp_put((s + 1) % p, &x, &in, 0, sizeof x);
		bsp_sync();
	resume:
		x = (x * 31 + in + 1) % MOD;
	}
	bsp_put(0, &x, all, s * (int)sizeof x, sizeof x);
	bsp_sync();
	if (s == 0) {
		unsigned long long sum = 0;
		for (int i = 0; i < p; i++)
			sum += all[i];
		printf("ring sum %llu\nresumed at %ld of %d\n", sum, start, bsp_resumed());
	}
	bsp_end();
	return 0;
}
