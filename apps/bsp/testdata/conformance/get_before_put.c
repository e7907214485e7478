/* A get reads the value before the superstep's puts.
 * expect: ok */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	int x = 100 + s, got = -1, v = -5;
	int next = (s + 1) % p;
	bsp_push_reg(&x, sizeof x);
	bsp_sync();
	bsp_get(next, &x, 0, &got, sizeof got);
	bsp_put(next, &v, &x, 0, sizeof v);
	if (got != -1)
		bsp_abort("process %d: get written before bsp_sync", s);
	bsp_sync();
	if (got != 100 + next || x != -5)
		bsp_abort("process %d: got %d (want %d), x = %d (want -5)", s, got, 100 + next, x);
	bsp_end();
	return 0;
}
