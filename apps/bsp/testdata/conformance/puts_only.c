/* Supersteps of puts only (which processes on one host end in shared
 * memory): large puts arrive whole, in both put buffers and as they
 * grow; puts of several processes into one area apply by source process,
 * then call order; an empty superstep between them changes nothing.
 * expect: ok "puts only: ok" */
#include <stdio.h>
#include <stdlib.h>
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid(), max = 1 << 19;
	int *a = malloc((size_t)max * sizeof(int)), *b = malloc((size_t)max * sizeof(int));
	int *all = calloc((size_t)p, sizeof(int)), last = -1;
	bsp_push_reg(b, max * (int)sizeof(int));
	bsp_push_reg(all, p * (int)sizeof(int));
	bsp_push_reg(&last, sizeof last);
	bsp_sync();
	for (int k = 0, n = 1 << 10; k < 10; k++, n = n * 2 > max ? max : n * 2) {
		for (int i = 0; i < n; i++)
			a[i] = k * 1000003 + s * n + i;
		bsp_put((s + 1) % p, a, b, 0, n * (int)sizeof(int));
		a[0] = -7; /* a put is buffered: this change does not travel */
		for (int q = 0; q < p; q++)
			bsp_put(q, &s, all, s * (int)sizeof(int), sizeof s);
		bsp_put(0, &s, &last, 0, sizeof s);
		bsp_put(0, &k, &last, 0, sizeof k);
		bsp_sync();
		int from = (s + p - 1) % p;
		for (int i = 0; i < n; i++)
			if (b[i] != k * 1000003 + from * n + i)
				bsp_abort("process %d, superstep %d: element %d is %d", s, k, i, b[i]);
		for (int q = 0; q < p; q++)
			if (all[q] != q)
				bsp_abort("process %d: all[%d] = %d", s, q, all[q]);
		if (s == 0 && last != k)
			bsp_abort("process 0: last = %d, want %d (the last put of the last process)", last, k);
		bsp_sync(); /* empty */
		if (b[0] != k * 1000003 + from * n)
			bsp_abort("process %d: an empty superstep changed b[0]", s);
	}
	if (s == 0)
		printf("puts only: ok\n");
	bsp_end();
	return 0;
}
