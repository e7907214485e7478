/* Inner product (BSPedupack's bspinprod): x·x for x = 1 … n, cyclic
 * distribution; every process puts its partial sum into every process.
 * expect: ok "inner product 333833500" */
#include <stdio.h>
#include <stdlib.h>
#include "bsp.h"

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	double *partial = calloc((size_t)p, sizeof(double));
	bsp_push_reg(partial, p * (int)sizeof(double));
	bsp_sync();
	double sum = 0;
	for (int i = s; i < n; i += p)
		sum += (double)(i + 1) * (double)(i + 1);
	for (int t = 0; t < p; t++)
		bsp_put(t, &sum, partial, s * (int)sizeof(double), (int)sizeof(double));
	bsp_sync();
	double total = 0;
	for (int t = 0; t < p; t++)
		total += partial[t];
	double serial = (double)n * (n + 1) * (2.0 * n + 1) / 6;
	if (total != serial)
		bsp_abort("process %d: inner product %.17g, serial %.17g", s, total, serial);
	if (s == 0)
		printf("inner product %.0f\n", total);
	bsp_pop_reg(partial);
	bsp_end();
	return 0;
}
