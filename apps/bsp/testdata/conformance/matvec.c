/* A dense matrix-vector product y = A x, A(i,j) = i + j + 1 of order n, row
 * blocks per process: each process gets the whole x with bsp_get (one get
 * per block), multiplies its rows, and process 0 gathers y with bsp_put,
 * then checks every entry against the serial product.
 * expect: ok "matvec ok" */
#include <stdio.h>
#include <stdlib.h>
#include "bsp.h"

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 96;
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	int lo = n * s / p, hi = n * (s + 1) / p;
	double *x = malloc(n * sizeof(double)), *y = calloc(n, sizeof(double));
	for (int j = lo; j < hi; j++)
		x[j] = 1.0 / (j + 1);
	bsp_push_reg(x, n * (int)sizeof(double));
	bsp_push_reg(y, n * (int)sizeof(double));
	bsp_sync();
	for (int q = 0; q < p; q++) {
		int qlo = n * q / p, qhi = n * (q + 1) / p;
		if (q != s && qhi > qlo)
			bsp_get(q, x, qlo * (int)sizeof(double), &x[qlo], (qhi - qlo) * (int)sizeof(double));
	}
	bsp_sync();
	double *mine = malloc((hi - lo + 1) * sizeof(double));
	for (int i = lo; i < hi; i++) {
		double acc = 0;
		for (int j = 0; j < n; j++)
			acc += (double)(i + j + 1) * x[j];
		mine[i - lo] = acc;
	}
	if (hi > lo)
		bsp_put(0, mine, y, lo * (int)sizeof(double), (hi - lo) * (int)sizeof(double));
	bsp_sync();
	if (s == 0) {
		for (int i = 0; i < n; i++) {
			double acc = 0;
			for (int j = 0; j < n; j++)
				acc += (double)(i + j + 1) * (1.0 / (j + 1));
			if (acc != y[i])
				bsp_abort("y[%d] = %.17g, serial %.17g", i, y[i], acc);
		}
		printf("matvec ok\n");
	}
	bsp_end();
	return 0;
}
