/* Registrations correspond by order, whatever the addresses: each process
 * registers its own arrays, of different sizes, and puts with offsets.
 * expect: ok */
#include <stdlib.h>
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	int n = 4 + s;
	double *a = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double));
	bsp_push_reg(a, n * (int)sizeof(double));
	bsp_push_reg(b, n * (int)sizeof(double));
	bsp_sync();
	double v[2] = {s + 0.5, s + 0.25};
	bsp_put((s + 1) % p, v, b, 2 * (int)sizeof(double), 2 * (int)sizeof(double));
	bsp_sync();
	int q = (s + p - 1) % p;
	if (b[2] != q + 0.5 || b[3] != q + 0.25 || a[2] != 0 || b[0] != 0)
		bsp_abort("process %d: b = %g %g %g %g", s, b[0], b[1], b[2], b[3]);
	bsp_end();
	return 0;
}
