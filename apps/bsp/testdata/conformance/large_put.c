/* A put of 1 MiB and a get of 1 MiB arrive whole.
 * expect: ok */
#include <stdlib.h>
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	int n = 1 << 18;
	int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int)), *c = malloc(n * sizeof(int));
	for (int i = 0; i < n; i++)
		a[i] = s * n + i;
	bsp_push_reg(a, n * (int)sizeof(int));
	bsp_push_reg(b, n * (int)sizeof(int));
	bsp_sync();
	bsp_put((s + 1) % p, a, b, 0, n * (int)sizeof(int));
	bsp_get((s + 1) % p, a, 0, c, n * (int)sizeof(int));
	bsp_sync();
	int q = (s + p - 1) % p, r = (s + 1) % p;
	for (int i = 0; i < n; i++)
		if (b[i] != q * n + i || c[i] != r * n + i)
			bsp_abort("process %d: element %d", s, i);
	bsp_end();
	return 0;
}
