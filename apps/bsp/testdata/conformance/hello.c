/* bsp_pid and bsp_nprocs: every pid 0 … p-1 once; bsp_time grows.
 * expect: ok "hello from 0 of" */
#include <stdio.h>
#include <stdlib.h>
#include "bsp.h"

int main(void) {
	int avail = bsp_nprocs();
	bsp_begin(avail);
	int p = bsp_nprocs(), s = bsp_pid();
	if (p != avail || s < 0 || s >= p)
		bsp_abort("pid %d of %d, %d available", s, p, avail);
	int *seen = calloc(p, sizeof(int));
	bsp_push_reg(seen, p * (int)sizeof(int));
	double t0 = bsp_time();
	bsp_sync();
	int one = 1;
	for (int t = 0; t < p; t++)
		bsp_put(t, &one, seen, s * (int)sizeof(int), (int)sizeof(int));
	bsp_sync();
	for (int t = 0; t < p; t++)
		if (seen[t] != 1)
			bsp_abort("process %d: pid %d not seen", s, t);
	if (bsp_time() < t0)
		bsp_abort("bsp_time went back");
	if (s == 0)
		printf("hello from 0 of %d\n", p);
	bsp_end();
	return 0;
}
