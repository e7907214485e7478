/* Parallel prefix sum: block distribution of 1 … n, local prefix sums,
 * every process gets the block totals of the others, adds those before it;
 * process 0 checks against the serial sums.
 * expect: ok "prefix sums 500500" */
#include <stdio.h>
#include <stdlib.h>
#include "bsp.h"

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 1000;
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	long lo = n * s / p, hi = n * (s + 1) / p;
	long *x = malloc((size_t)(hi - lo + 1) * sizeof(long));
	long *totals = calloc((size_t)p, sizeof(long));
	bsp_push_reg(totals, p * (int)sizeof(long));
	bsp_sync();
	long acc = 0;
	for (long i = lo; i < hi; i++)
		x[i - lo] = acc += i + 1;
	for (int t = 0; t < p; t++)
		bsp_put(t, &acc, totals, s * (int)sizeof(long), (int)sizeof(long));
	bsp_sync();
	long before = 0;
	for (int t = 0; t < s; t++)
		before += totals[t];
	for (long i = lo; i < hi; i++) {
		x[i - lo] += before;
		if (x[i - lo] != (i + 1) * (i + 2) / 2)
			bsp_abort("process %d: prefix %ld = %ld, serial %ld", s, i, x[i - lo], (i + 1) * (i + 2) / 2);
	}
	if (s == p - 1)
		printf("prefix sums %ld\n", x[hi - lo - 1]);
	bsp_end();
	return 0;
}
